import {
  applyRunChange,
  applyRunCounts,
  cancelReportScans,
  findScanRun,
  listReportRuns,
  refreshRun,
  settleRunStatus,
  type ScanRunRow,
} from '../../src/store/scan-repository.js';
import { answer, NOW, REPORT_ID, RUN_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

const RUN = {
  id: RUN_ID,
  report_id: REPORT_ID,
  workspace_id: WORKSPACE_ID,
  mode: 'full_profile',
  key_mode: 'live',
  status: 'running',
  requested: 2,
  unfinished: 0,
  completed: 2,
  warnings: 0,
  failed: 0,
  inaccessible: 0,
  cancelled: 0,
  created_at: NOW,
  started_at: NOW,
  completed_at: null,
  terminal_reason: null,
  background: false,
} as unknown as ScanRunRow;
const run = answer(['scan_runs', [RUN]]);

export const samples: ModuleSamples = {
  module: 'store/scan-repository',
  operations: {
    findScanRun: { run: (db) => findScanRun(db, WORKSPACE_ID, REPORT_ID, RUN_ID) },
    listReportRuns: { run: (db) => listReportRuns(db, WORKSPACE_ID, REPORT_ID, 20) },
    applyRunChange: { run: (db) => applyRunChange(db, RUN_ID, { kind: 'finished', status: 'succeeded', warning: false }, NOW), rows: run },
    applyRunCounts: {
      run: (db) => applyRunCounts(db, RUN_ID, { startedAt: NOW, succeeded: 1, failed: 0, inaccessible: 0, cancelled: 0, warnings: 0 }, NOW),
      rows: run,
    },
    refreshRun: { run: (db) => refreshRun(db, RUN_ID, NOW), rows: run },
    settleRunStatus: { run: (db) => settleRunStatus(db, RUN, NOW), rows: run },
    cancelReportScans: { run: (db) => cancelReportScans(db, REPORT_ID, NOW) },
  },
};
