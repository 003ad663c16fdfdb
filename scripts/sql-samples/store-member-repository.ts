import {
  findAccountByEmail,
  findUsableLink,
  findUser,
  insertAccount,
  insertLink,
  insertUser,
  listMembers,
  listMemberships,
  listPendingInvitations,
  lockOwners,
  markLinkUsed,
  markRemoved,
  revokeLink,
  revokeUserLinks,
  setCredentials,
  setRole,
} from '../../src/store/member-repository.js';
import { ACCOUNT_ID, answer, LATER, LINK_ID, NOW, USER_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

const TOKEN_HASH = Buffer.alloc(32, 1);

export const samples: ModuleSamples = {
  module: 'store/member-repository',
  operations: {
    'findUser (in a workspace)': { run: (db) => findUser(db, { workspaceId: WORKSPACE_ID, userId: USER_ID }, { forUpdate: true }) },
    'findUser (any workspace)': { run: (db) => findUser(db, { anyWorkspace: true, userId: USER_ID }) },
    findAccountByEmail: { run: (db) => findAccountByEmail(db, 'sample@example.com') },
    listMemberships: { run: (db) => listMemberships(db, ACCOUNT_ID) },
    listMembers: { run: (db) => listMembers(db, WORKSPACE_ID) },
    lockOwners: { run: (db) => lockOwners(db, WORKSPACE_ID) },
    insertAccount: {
      run: (db) => insertAccount(db, { email: 'sample@example.com', passwordHash: 'hash' }, NOW),
      rows: answer(['insert into "accounts"', [{ id: ACCOUNT_ID }]]),
    },
    'insertUser (of an account)': {
      run: (db) => insertUser(db, { workspaceId: WORKSPACE_ID, name: 'Sample', role: 'member', accountId: ACCOUNT_ID }, NOW),
      rows: answer(['insert into "users"', [{ id: USER_ID }]]),
    },
    'insertUser (with a new account)': {
      run: (db) =>
        insertUser(db, { workspaceId: WORKSPACE_ID, name: 'Sample', role: 'member', accountId: null, email: 'sample@example.com', passwordHash: null }, NOW),
      rows: answer(['insert into "accounts"', [{ id: ACCOUNT_ID }]], ['insert into "users"', [{ id: USER_ID }]]),
    },
    setCredentials: { run: (db) => setCredentials(db, USER_ID, { name: 'Sample', email: 'sample@example.com', passwordHash: 'hash' }, NOW) },
    setRole: { run: (db) => setRole(db, WORKSPACE_ID, USER_ID, 'admin') },
    markRemoved: { run: (db) => markRemoved(db, WORKSPACE_ID, USER_ID, NOW) },
    insertLink: {
      run: (db) =>
        insertLink(
          db,
          {
            tokenHash: TOKEN_HASH,
            workspaceId: WORKSPACE_ID,
            purpose: 'invitation',
            userId: null,
            role: 'member',
            label: 'sample',
            createdBy: USER_ID,
            expiresAt: LATER,
          },
          NOW,
        ),
      rows: answer(['insert into "access_links"', [{ id: LINK_ID }]]),
    },
    findUsableLink: { run: (db) => findUsableLink(db, TOKEN_HASH, NOW, { forUpdate: true }) },
    markLinkUsed: { run: (db) => markLinkUsed(db, LINK_ID, NOW) },
    listPendingInvitations: { run: (db) => listPendingInvitations(db, WORKSPACE_ID, NOW) },
    revokeLink: { run: (db) => revokeLink(db, WORKSPACE_ID, LINK_ID, NOW) },
    revokeUserLinks: { run: (db) => revokeUserLinks(db, USER_ID, NOW) },
  },
};
