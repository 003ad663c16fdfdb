import { pendingMigrations } from '../../src/store/health-repository.js';
import type { ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/health-repository',
  operations: {
    pendingMigrations: { run: (db) => pendingMigrations(db) },
  },
};
