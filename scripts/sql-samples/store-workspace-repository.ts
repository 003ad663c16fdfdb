import { countWorkspaces, findWorkspace, insertWorkspace, updateWorkspace } from '../../src/store/workspace-repository.js';
import { ACCOUNT_ID, answer, NOW, WORKSPACE_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/workspace-repository',
  operations: {
    insertWorkspace: {
      run: (db) => insertWorkspace(db, 'Sample Workspace', NOW, { accountId: ACCOUNT_ID, name: 'Sample' }),
      rows: answer(['insert into "workspaces"', [{ id: WORKSPACE_ID, slug: 'sample-workspace' }]]),
    },
    findWorkspace: { run: (db) => findWorkspace(db, WORKSPACE_ID) },
    countWorkspaces: { run: (db) => countWorkspaces(db), rows: () => [{ n: 1 }] },
    updateWorkspace: { run: (db) => updateWorkspace(db, WORKSPACE_ID, { name: 'Renamed', api_access: true, writes_per_minute_per_key: 60 }, NOW) },
  },
};
