import { itemRead, settle } from '../../src/queue/item.js';
import { settlePendingRollups } from '../../src/queue/settle.js';
import { ITEM_ID, NOW, REPORT_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'queue/item',
  operations: {
    itemRead: { run: (db) => itemRead(db, ITEM_ID).execute() },
    // The fold it asks for, waited for here: that is all it runs.
    settle: {
      run: (db) => {
        settle(db, REPORT_ID, NOW);
        return settlePendingRollups(db);
      },
    },
  },
};
