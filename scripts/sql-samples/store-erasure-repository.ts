import {
  deleteWorkspaceRows,
  erasePeopleOfReport,
  findExpiredPeople,
  findPeopleToErase,
  itemExists,
  queueBlobDeletions,
} from '../../src/store/erasure-repository.js';
import { ITEM_ID, LATER, NOW, PROFILE_ID, REPORT_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

const SHA256 = '0'.repeat(64);

export const samples: ModuleSamples = {
  module: 'store/erasure-repository',
  operations: {
    'findPeopleToErase (one attachment)': { run: (db) => findPeopleToErase(db, WORKSPACE_ID, { reportId: REPORT_ID, profileId: PROFILE_ID }) },
    'findPeopleToErase (by url)': { run: (db) => findPeopleToErase(db, WORKSPACE_ID, { url: 'https://pronet.example/in/sample' }) },
    erasePeopleOfReport: {
      run: (db) =>
        erasePeopleOfReport(db, WORKSPACE_ID, REPORT_ID, [{ id: PROFILE_ID, report_id: REPORT_ID, pronet_url: 'https://pronet.example/in/sample' }], NOW),
    },
    queueBlobDeletions: { run: (db) => queueBlobDeletions(db, [SHA256], NOW) },
    itemExists: { run: (db) => itemExists(db, ITEM_ID) },
    deleteWorkspaceRows: { run: (db) => deleteWorkspaceRows(db, WORKSPACE_ID, NOW) },
    findExpiredPeople: { run: (db) => findExpiredPeople(db, { removedBefore: NOW, archivedBefore: LATER }, 100) },
  },
};
