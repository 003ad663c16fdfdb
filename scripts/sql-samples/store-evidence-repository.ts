import { evidenceDetails, findDownloadableEvidence } from '../../src/store/evidence-repository.js';
import { ITEM_ID, PROFILE_ID, REPORT_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/evidence-repository',
  operations: {
    findDownloadableEvidence: { run: (db) => findDownloadableEvidence(db, WORKSPACE_ID, REPORT_ID, ITEM_ID, PROFILE_ID) },
    evidenceDetails: { run: (db) => evidenceDetails(db, REPORT_ID, PROFILE_ID) },
  },
};
