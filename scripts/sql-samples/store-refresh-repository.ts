import { activePeopleIds, reportKeyMode, unsuccessfulPeopleIds } from '../../src/store/refresh-repository.js';
import { answer, REPORT_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/refresh-repository',
  operations: {
    activePeopleIds: { run: (db) => activePeopleIds(db, REPORT_ID) },
    unsuccessfulPeopleIds: { run: (db) => unsuccessfulPeopleIds(db, REPORT_ID) },
    reportKeyMode: { run: (db) => reportKeyMode(db, REPORT_ID), rows: answer(['key_mode', [{ key_mode: 'live' }]]) },
  },
};
