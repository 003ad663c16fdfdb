import {
  readProviderUsage,
  recordProviderUsage,
  releaseProviderRecords,
  reservedToday,
  reserveProviderRecordsUpTo,
} from '../../src/store/provider-usage-repository.js';
import { WORKSPACE_ID, type ModuleSamples } from './sample.js';

const PROVIDER = 'https://provider.example/api';

export const samples: ModuleSamples = {
  module: 'store/provider-usage-repository',
  operations: {
    reserveProviderRecordsUpTo: { run: (db) => reserveProviderRecordsUpTo(db, PROVIDER, { budget: 1000, perInput: 1, inputs: 5, partial: true }) },
    releaseProviderRecords: { run: (db) => releaseProviderRecords(db, PROVIDER, '2026-01-02', 2) },
    reservedToday: { run: (db) => reservedToday(db, PROVIDER) },
    recordProviderUsage: { run: (db) => recordProviderUsage(db, { workspaceId: WORKSPACE_ID, provider: PROVIDER, records: 3 }) },
    readProviderUsage: { run: (db) => readProviderUsage(db, WORKSPACE_ID) },
  },
};
