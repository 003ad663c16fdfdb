import { listAudit, pruneAudit, recordAudit } from '../../src/store/audit-repository.js';
import { NOW, REPORT_ID, USER_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/audit-repository',
  operations: {
    recordAudit: {
      run: (db) =>
        recordAudit(db, {
          at: NOW,
          workspaceId: WORKSPACE_ID,
          actor: { kind: 'user', userId: USER_ID },
          action: 'archive',
          objectKind: 'report',
          objectId: REPORT_ID,
        }),
    },
    listAudit: { run: (db) => listAudit(db, WORKSPACE_ID, 50) },
    pruneAudit: { run: (db) => pruneAudit(db, NOW) },
  },
};
