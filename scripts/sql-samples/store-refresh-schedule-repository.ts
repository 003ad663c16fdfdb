import { claimDueSchedule, deleteSchedule, findSchedule, recordScheduleRun, upsertSchedule } from '../../src/store/refresh-schedule-repository.js';
import { LATER, NOW, REPORT_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/refresh-schedule-repository',
  operations: {
    findSchedule: { run: (db) => findSchedule(db, REPORT_ID) },
    upsertSchedule: { run: (db) => upsertSchedule(db, { reportId: REPORT_ID, workspaceId: WORKSPACE_ID, cadence: 'weekly', nextDueAt: LATER }, NOW) },
    deleteSchedule: { run: (db) => deleteSchedule(db, REPORT_ID) },
    claimDueSchedule: { run: (db) => claimDueSchedule(db, NOW) },
    recordScheduleRun: { run: (db) => recordScheduleRun(db, REPORT_ID, 'queued', LATER, NOW) },
  },
};
