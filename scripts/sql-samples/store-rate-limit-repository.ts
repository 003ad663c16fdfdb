import { authorizeAndTake, pruneRateCounters, takeRate } from '../../src/store/rate-limit-repository.js';
import { KEY_ID, NOW, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/rate-limit-repository',
  operations: {
    takeRate: {
      run: (db) => takeRate(db, NOW, [{ policy: 'reads-per-key', id: `read:key:${KEY_ID}`, limit: 600, amount: 1 }]),
      rows: () => [{ exceeded: 0, counts: [1] }],
    },
    pruneRateCounters: { run: (db) => pruneRateCounters(db, NOW) },
    'authorizeAndTake (read)': {
      run: (db) => authorizeAndTake(db, { secret: 'psk_live_sample', windowStart: NOW, kind: 'read', readLimits: [600, 3000], writeDefaults: [60, 300] }),
    },
    'authorizeAndTake (write)': {
      run: (db) => authorizeAndTake(db, { secret: 'psk_live_sample', windowStart: NOW, kind: 'write', readLimits: [600, 3000], writeDefaults: [60, 300] }),
    },
  },
};
