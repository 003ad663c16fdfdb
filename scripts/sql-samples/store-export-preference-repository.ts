import { readCsvSeparator, writeCsvSeparator, writeDisplayCompanyName } from '../../src/store/export-preference-repository.js';
import { NOW, REPORT_ID, USER_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/export-preference-repository',
  operations: {
    readCsvSeparator: { run: (db) => readCsvSeparator(db, USER_ID) },
    writeCsvSeparator: { run: (db) => writeCsvSeparator(db, USER_ID, 'semicolon') },
    writeDisplayCompanyName: { run: (db) => writeDisplayCompanyName(db, WORKSPACE_ID, REPORT_ID, 'Sample', NOW) },
  },
};
