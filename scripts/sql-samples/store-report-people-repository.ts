import { readPersonActivity, readReportPeople, readReportPerson } from '../../src/store/report-people-repository.js';
import { PROFILE_ID, REPORT_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/report-people-repository',
  operations: {
    readReportPerson: { run: (db) => readReportPerson(db, WORKSPACE_ID, REPORT_ID, PROFILE_ID) },
    readPersonActivity: { run: (db) => readPersonActivity(db, REPORT_ID, PROFILE_ID, 20) },
    readReportPeople: { run: (db) => readReportPeople(db, WORKSPACE_ID, REPORT_ID) },
  },
};
