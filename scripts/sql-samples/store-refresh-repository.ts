import { inSavepoint, activePeopleIds, reportKeyMode, unsuccessfulPeopleIds } from '../../src/store/refresh-repository.js';
import { answer, REPORT_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/refresh-repository',
  operations: {
    inSavepoint: { run: (db) => db.transaction().execute((trx) => inSavepoint(trx, () => activePeopleIds(trx, REPORT_ID))) },
    activePeopleIds: { run: (db) => activePeopleIds(db, REPORT_ID) },
    unsuccessfulPeopleIds: { run: (db) => unsuccessfulPeopleIds(db, REPORT_ID) },
    reportKeyMode: { run: (db) => reportKeyMode(db, REPORT_ID), rows: answer(['key_mode', [{ key_mode: 'live' }]]) },
  },
};
