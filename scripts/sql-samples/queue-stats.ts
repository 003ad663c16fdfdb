import { queueStatsByMode } from '../../src/queue/stats.js';
import type { ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'queue/stats',
  operations: {
    queueStatsByMode: { run: (db) => queueStatsByMode(db) },
  },
};
