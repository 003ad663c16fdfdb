import { recordPersonDelta } from '../../src/queue/deltas.js';
import { NOW, PROFILE_ID, REPORT_ID, RUN_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'queue/deltas',
  operations: {
    recordPersonDelta: {
      run: (db) => recordPersonDelta(db, REPORT_ID, PROFILE_ID, { runId: RUN_ID, change: { kind: 'finished', status: 'succeeded', warning: false } }, NOW),
    },
  },
};
