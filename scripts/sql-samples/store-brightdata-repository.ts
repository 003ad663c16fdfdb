import {
  dropSnapshot,
  findSnapshots,
  pruneSnapshots,
  readBreakerStates,
  readCompanyPage,
  readPausedProviders,
  recordSnapshot,
  settleSnapshot,
  storeCompanyPage,
  writeBreakerState,
} from '../../src/store/brightdata-repository.js';
import { WORKSPACE_ID, type ModuleSamples } from './sample.js';

const PROVIDER = 'https://provider.example/api';
const SNAPSHOT = 'snapshot-sample';
const URL_KEY = 'pronet.example/company/sample';

export const samples: ModuleSamples = {
  module: 'store/brightdata-repository',
  operations: {
    recordSnapshot: {
      run: (db) =>
        recordSnapshot(db, {
          snapshotId: SNAPSHOT,
          provider: PROVIDER,
          datasetId: 'dataset-sample',
          group: 'profiles',
          urlKeys: [URL_KEY],
          workspaceIds: [WORKSPACE_ID],
          reservedDay: '2026-01-02',
          reserved: 1,
        }),
    },
    findSnapshots: { run: (db) => findSnapshots(db, { provider: PROVIDER, group: 'profiles', urlKeys: [URL_KEY], keepMs: 86_400_000, redeliverMs: 600_000 }) },
    settleSnapshot: { run: (db) => settleSnapshot(db, PROVIDER, SNAPSHOT, 1) },
    dropSnapshot: { run: (db) => dropSnapshot(db, PROVIDER, SNAPSHOT, { built: false }) },
    pruneSnapshots: { run: (db) => pruneSnapshots(db, PROVIDER, 86_400_000) },
    readCompanyPage: { run: (db) => readCompanyPage(db, { workspaceId: WORKSPACE_ID, urlKey: URL_KEY, maxAgeMs: 86_400_000 }) },
    storeCompanyPage: {
      run: (db) =>
        storeCompanyPage(db, { workspaceId: WORKSPACE_ID, urlKey: URL_KEY, record: { name: 'Sample Company' }, capturedAt: '2026-01-02T03:04:05.000Z' }),
    },
    writeBreakerState: { run: (db) => writeBreakerState(db, PROVIDER, 'open', 'provider answered 503') },
    readBreakerStates: { run: (db) => readBreakerStates(db, 60_000) },
    readPausedProviders: { run: (db) => readPausedProviders(db, 60_000) },
  },
};
