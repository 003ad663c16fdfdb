import { readPersonLabel, readPersonRecords } from '../../src/store/person-export-repository.js';
import { PROFILE_ID, REPORT_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/person-export-repository',
  operations: {
    'readPersonRecords (one attachment)': { run: (db) => readPersonRecords(db, WORKSPACE_ID, { reportId: REPORT_ID, profileId: PROFILE_ID }) },
    'readPersonRecords (by url)': { run: (db) => readPersonRecords(db, WORKSPACE_ID, { url: 'https://pronet.example/in/sample' }) },
    readPersonLabel: { run: (db) => readPersonLabel(db, WORKSPACE_ID, REPORT_ID, PROFILE_ID) },
  },
};
