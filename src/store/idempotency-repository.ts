/**
 * Idempotency records (4.4 rules 7-9, 4.8 rule 4, decisions "Idempotency"):
 * the key's advisory lock, the saved record, saving one, and pruning the
 * expired. The protocol that runs them in the write's transaction is
 * use-cases/idempotent-write.ts.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { IDEMPOTENCY_TTL_MS } from '../domain/fingerprint.js';
import type { Database } from './schema.js';

export interface IdempotencyScope {
  workspaceId: string;
  operation: 'create_report' | 'import_profiles' | 'refresh_report';
  scope: string;
  key: string;
  fingerprint: string;
}

/**
 * Takes the key's transaction advisory lock without waiting; false when
 * another transaction holds it (a request with the same key is running).
 */
export async function tryLockIdempotencyKey(trx: Transaction<Database>, scope: IdempotencyScope): Promise<boolean> {
  const lockKey = `${scope.workspaceId}|${scope.operation}|${scope.scope}|${scope.key}`;
  const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${lockKey}, 0)) as ok`.execute(trx);
  return rows[0].ok;
}

/** What a write answered: its status and the response's data (saved, and replayed for the key). */
export interface WriteResult<T> {
  status: number;
  data: T;
}

export interface IdempotencyRecord {
  fingerprint: string;
  status_code: number;
  response: unknown;
  expires_at: Date;
}

/** The record saved for the key, expired or not. */
export async function findIdempotencyRecord(trx: Transaction<Database>, scope: IdempotencyScope): Promise<IdempotencyRecord | undefined> {
  return trx
    .selectFrom('idempotency_records')
    .select(['fingerprint', 'status_code', 'response', 'expires_at'])
    .where('workspace_id', '=', scope.workspaceId)
    .where('operation', '=', scope.operation)
    .where('scope', '=', scope.scope)
    .where('key', '=', scope.key)
    .executeTakeFirst();
}

/** Saves (or replaces an expired) record of the key's successful write, kept for IDEMPOTENCY_TTL_MS from `at`. */
export async function saveIdempotencyRecord(trx: Transaction<Database>, scope: IdempotencyScope, result: WriteResult<unknown>, at: Date): Promise<void> {
  const record = {
    fingerprint: scope.fingerprint,
    status_code: result.status,
    response: JSON.stringify(result.data),
    created_at: at,
    expires_at: new Date(at.getTime() + IDEMPOTENCY_TTL_MS),
  };
  await trx
    .insertInto('idempotency_records')
    .values({ workspace_id: scope.workspaceId, operation: scope.operation, scope: scope.scope, key: scope.key, ...record })
    .onConflict((oc) => oc.columns(['workspace_id', 'operation', 'scope', 'key']).doUpdateSet(record))
    .execute();
}

/** Deletes the records that expired before `before` (maintenance, src/maintenance.ts); returns how many. */
export async function pruneIdempotencyRecords(db: Kysely<Database>, before: Date): Promise<number> {
  const result = await db.deleteFrom('idempotency_records').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
