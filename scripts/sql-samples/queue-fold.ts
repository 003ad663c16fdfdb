import { emptyTotals } from '../../src/domain/analysis-aggregate.js';
import { foldOnce, planFold, writeFold } from '../../src/queue/fold.js';
import { PERSON } from './people.js';
import { answer, NOW, PROFILE_ID, REPORT_ID, RUN_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'queue/fold',
  operations: {
    foldOnce: { run: (db) => foldOnce(db, REPORT_ID, NOW) },
    planFold: { run: (db) => planFold(db, REPORT_ID, NOW) },
    writeFold: {
      run: (db) =>
        writeFold(db, REPORT_ID, {
          version: '42',
          deltaIds: [1, 2],
          counted: 2,
          people: [{ id: PROFILE_ID, version: '7' }],
          held: [],
          runs: [
            {
              id: RUN_ID,
              version: '43',
              after: {
                status: 'running',
                unfinished: 1,
                completed: 1,
                warnings: 0,
                failed: 0,
                inaccessible: 0,
                cancelled: 0,
                started_at: NOW,
                completed_at: null,
                terminal_reason: null,
              },
            },
          ],
          runStates: { has_runs: true, running: true, queued: false },
          totals: emptyTotals(),
          contributions: [{ id: PROFILE_ID, contribution: PERSON.stored!, activeChanged: false }],
          company: null,
          at: NOW,
        }),
      rows: answer(['from locked', [{ locked: true, ok: true, more: false }]]),
    },
  },
};
