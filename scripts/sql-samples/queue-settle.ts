import { settlePendingRollups, settleRollups, settleStaleRollups } from '../../src/queue/settle.js';
import { answer, NOW, REPORT_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'queue/settle',
  operations: {
    settleRollups: { run: (db) => settleRollups(db, REPORT_ID, NOW) },
    settlePendingRollups: { run: (db) => settlePendingRollups(db).then(() => settleRollups(db, REPORT_ID, NOW)) },
    settleStaleRollups: { run: (db) => settleStaleRollups(db, NOW, 5000), rows: answer(['select distinct report_id', [{ report_id: REPORT_ID }]]) },
  },
};
