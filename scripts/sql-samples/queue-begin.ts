import { beginItem } from '../../src/queue/begin.js';
import { CLAIM_ID, ITEM_ID, NOW, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'queue/begin',
  operations: {
    beginItem: { run: (db) => beginItem(db, { itemId: ITEM_ID, claimId: CLAIM_ID, attempts: 1 }, NOW) },
  },
};
