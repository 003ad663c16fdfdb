import {
  deleteAccountSessions,
  deleteSession,
  deleteUserSessions,
  findSessionUser,
  insertSession,
  pruneSessions,
  switchSessionWorkspace,
  touchSession,
} from '../../src/store/session-repository.js';
import { ACCOUNT_ID, LATER, NOW, USER_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

const TOKEN_HASH = Buffer.alloc(32, 3);

export const samples: ModuleSamples = {
  module: 'store/session-repository',
  operations: {
    insertSession: { run: (db) => insertSession(db, { tokenHash: TOKEN_HASH, userId: USER_ID, workspaceId: WORKSPACE_ID, expiresAt: LATER }, NOW) },
    findSessionUser: { run: (db) => findSessionUser(db, TOKEN_HASH, NOW, NOW) },
    touchSession: { run: (db) => touchSession(db, TOKEN_HASH, NOW) },
    deleteSession: { run: (db) => deleteSession(db, TOKEN_HASH) },
    switchSessionWorkspace: { run: (db) => switchSessionWorkspace(db, TOKEN_HASH, USER_ID, WORKSPACE_ID) },
    deleteAccountSessions: { run: (db) => deleteAccountSessions(db, ACCOUNT_ID) },
    deleteUserSessions: { run: (db) => deleteUserSessions(db, USER_ID) },
    pruneSessions: { run: (db) => pruneSessions(db, NOW, NOW) },
  },
};
