import { insertKey, listWorkspaceKeys, recordKeyUse, revokeKey, revokeUserKeys } from '../../src/store/key-repository.js';
import { KEY_ID, NOW, USER_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/key-repository',
  operations: {
    insertKey: { run: (db) => insertKey(db, { workspaceId: WORKSPACE_ID, userId: USER_ID, scopes: ['reports:read'], mode: 'live' }, NOW) },
    listWorkspaceKeys: { run: (db) => listWorkspaceKeys(db, WORKSPACE_ID) },
    revokeKey: { run: (db) => revokeKey(db, KEY_ID, NOW, { workspaceId: WORKSPACE_ID }) },
    revokeUserKeys: { run: (db) => revokeUserKeys(db, USER_ID, NOW) },
    recordKeyUse: { run: (db) => recordKeyUse(db, [KEY_ID], NOW) },
  },
};
