import type { Transaction } from 'kysely';
import { findIdempotencyRecord, pruneIdempotencyRecords, saveIdempotencyRecord, tryLockIdempotencyKey } from '../../src/store/idempotency-repository.js';
import type { Database } from '../../src/store/schema.js';
import { NOW, REPORT_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

const SCOPE = { workspaceId: WORKSPACE_ID, operation: 'import_profiles', scope: REPORT_ID, key: 'sample-key', fingerprint: 'sample-fingerprint' } as const;

export const samples: ModuleSamples = {
  module: 'store/idempotency-repository',
  operations: {
    tryLockIdempotencyKey: {
      run: (db) => db.transaction().execute((trx: Transaction<Database>) => tryLockIdempotencyKey(trx, SCOPE)),
      rows: () => [{ ok: true }],
    },
    findIdempotencyRecord: { run: (db) => db.transaction().execute((trx: Transaction<Database>) => findIdempotencyRecord(trx, SCOPE)) },
    saveIdempotencyRecord: {
      run: (db) => db.transaction().execute((trx: Transaction<Database>) => saveIdempotencyRecord(trx, SCOPE, { status: 201, data: { id: REPORT_ID } }, NOW)),
    },
    pruneIdempotencyRecords: { run: (db) => pruneIdempotencyRecords(db, NOW) },
  },
};
