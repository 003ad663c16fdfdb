import { claimItem } from '../../src/queue/claim.js';
import { answer, CLAIM_ID, ITEM_ID, NOW, WORKER_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'queue/claim',
  operations: {
    claimItem: { run: (db) => claimItem(db, 60, { id: WORKER_ID, deadSeconds: 10, hungSeconds: 60 }) },
    'claimItem (begun in the same statement)': {
      run: (db) => claimItem(db, 60, { id: WORKER_ID, deadSeconds: 10, hungSeconds: 60 }, { now: NOW, maxAttempts: 3 }),
      rows: answer(['with claimed', [{ claimed_item: ITEM_ID, claimed_claim: CLAIM_ID, claimed_attempts: 1, begun: false }]]),
    },
  },
};
