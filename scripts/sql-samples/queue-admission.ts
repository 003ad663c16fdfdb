import { admitScans } from '../../src/queue/admission.js';
import { answer, NOW, RUN_ID, PROFILE_ID, REPORT_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

const RUN = { id: RUN_ID, status: 'queued' };

export const samples: ModuleSamples = {
  module: 'queue/admission',
  operations: {
    admitScans: {
      run: (db) => admitScans(db, { reportId: REPORT_ID, workspaceId: WORKSPACE_ID, keyMode: 'live', profileIds: [PROFILE_ID] }, NOW),
      rows: answer(['insert into "scan_runs"', [RUN]], ['update "scan_runs"', [RUN]]),
    },
  },
};
