import { lockAttachments, lockReport, lockRun, lockUnheldAttachments } from '../../src/store/locks.js';
import { PROFILE_ID, REPORT_ID, RUN_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/locks',
  operations: {
    lockReport: { run: (db) => lockReport(db, REPORT_ID) },
    lockRun: { run: (db) => lockRun(db, RUN_ID) },
    lockAttachments: { run: (db) => lockAttachments(db, [PROFILE_ID]) },
    lockUnheldAttachments: { run: (db) => lockUnheldAttachments(db, [PROFILE_ID]) },
  },
};
