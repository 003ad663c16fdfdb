import { endCompanyItem, endPersonItem } from '../../src/queue/finish.js';
import { ANALYSIS, companyWrites, personWrites } from './finish-writes.js';
import { COMPANY_ITEM, PERSON, PERSON_ITEM } from './people.js';
import { historyScan, historyWrite } from '../../src/store/history-repository.js';
import { gateHolds } from '../../src/store/one-statement.js';
import { answer, ITEM_ID, NOW, PROFILE_ID, REPORT_ID, type ModuleSamples } from './sample.js';

const ROUND = { round: ITEM_ID, previous: null, latest: true };
const GATE_HOLDS = answer(['from gate', [{ claim_held: true, unchanged: true, media_kept: true }]]);

const SUCCEEDED = { status: 'succeeded', warning: false, reason: null, activity_gap: null } as const;

export const samples: ModuleSamples = {
  module: 'queue/finish',
  operations: {
    endPersonItem: {
      run: (db) =>
        endPersonItem(db, PERSON_ITEM, SUCCEEDED, NOW, {
          factsVersion: '7',
          person: PERSON,
          writes: [
            ...personWrites(db, gateHolds),
            historyWrite(db, { reportId: REPORT_ID, profileId: PROFILE_ID, round: ROUND }, historyScan(ROUND, ANALYSIS), ANALYSIS, NOW, gateHolds),
          ],
          analysisAvailable: true,
          mediaGeneration: 3,
        }),
      rows: GATE_HOLDS,
    },
    endCompanyItem: {
      run: (db) => endCompanyItem(db, COMPANY_ITEM, SUCCEEDED, NOW, { companyVersion: '5', writes: companyWrites(db, gateHolds), mediaGeneration: 3 }),
      rows: GATE_HOLDS,
    },
  },
};
