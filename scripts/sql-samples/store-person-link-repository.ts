import { findPersonLink, insertPersonLinks, listPersonLinks, recordOpened, revokePersonLinks } from '../../src/store/person-link-repository.js';
import { LATER, LINK_ID, NOW, PROFILE_ID, REPORT_ID, USER_ID, type ModuleSamples } from './sample.js';

const TOKEN_HASH = Buffer.alloc(32, 2);

export const samples: ModuleSamples = {
  module: 'store/person-link-repository',
  operations: {
    insertPersonLinks: {
      run: (db) => insertPersonLinks(db, [{ tokenHash: TOKEN_HASH, reportId: REPORT_ID, profileId: PROFILE_ID, createdBy: USER_ID, expiresAt: LATER }], NOW),
    },
    listPersonLinks: { run: (db) => listPersonLinks(db, REPORT_ID) },
    findPersonLink: { run: (db) => findPersonLink(db, TOKEN_HASH) },
    recordOpened: { run: (db) => recordOpened(db, LINK_ID, NOW) },
    revokePersonLinks: { run: (db) => revokePersonLinks(db, REPORT_ID, LINK_ID, NOW) },
  },
};
