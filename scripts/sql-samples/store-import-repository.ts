import { findReceipt, insertReceipt } from '../../src/store/import-repository.js';
import { IMPORT_ID, LATER, NOW, REPORT_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/import-repository',
  operations: {
    insertReceipt: {
      run: (db) =>
        insertReceipt(db, { id: IMPORT_ID, reportId: REPORT_ID, workspaceId: WORKSPACE_ID, receipt: { rows: [] }, createdAt: NOW, expiresAt: LATER }),
    },
    findReceipt: { run: (db) => findReceipt(db, WORKSPACE_ID, REPORT_ID, IMPORT_ID) },
  },
};
