import { endCompanyItem, endPersonItem } from '../../src/queue/finish.js';
import { COMPANY_ITEM, PERSON, PERSON_ITEM } from './people.js';
import { NOW, type ModuleSamples } from './sample.js';

const SUCCEEDED = { status: 'succeeded', warning: false, reason: null, activity_gap: null } as const;

export const samples: ModuleSamples = {
  module: 'queue/finish',
  operations: {
    endPersonItem: {
      run: (db) =>
        endPersonItem(db, PERSON_ITEM, SUCCEEDED, NOW, { factsVersion: '7', person: PERSON, writes: [], analysisAvailable: true, mediaGeneration: 3 }),
    },
    endCompanyItem: { run: (db) => endCompanyItem(db, COMPANY_ITEM, SUCCEEDED, NOW, { companyVersion: '5', writes: [], mediaGeneration: 3 }) },
  },
};
