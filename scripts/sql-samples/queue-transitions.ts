import { lockClaimed, transaction, markItemFailed, releaseItem, requeueItem, rollUp } from '../../src/queue/transitions.js';
import { PERSON_ITEM } from './people.js';
import { CLAIM_ID, ITEM_ID, NOW, type ModuleSamples } from './sample.js';

const CLAIM = { itemId: ITEM_ID, claimId: CLAIM_ID };
const LOCKED = {
  ...PERSON_ITEM,
  status: 'running' as const,
  archived: false,
  company_name: 'Sample Company',
  root_domain: 'sample.example',
  pronet_company_url: 'https://pronet.example/company/sample',
  pronet_url: 'https://pronet.example/in/sample',
  media_generation: 3,
};
/** The claimed item as its lock reads it: the transition goes on past it. */
const held = () => [LOCKED];

export const samples: ModuleSamples = {
  module: 'queue/transitions',
  operations: {
    transaction: { run: (db) => transaction(db, (trx) => lockClaimed(trx, CLAIM)) },
    lockClaimed: { run: (db) => lockClaimed(db, CLAIM) },
    rollUp: { run: (db) => rollUp(db, LOCKED, { kind: 'finished', status: 'succeeded', warning: false }, NOW) },
    requeueItem: { run: (db) => requeueItem(db, CLAIM, { delayMs: 1000, spendAttempt: true, reason: 'provider busy' }, NOW), rows: held },
    releaseItem: { run: (db) => releaseItem(db, CLAIM, NOW), rows: held },
    markItemFailed: { run: (db) => markItemFailed(db, CLAIM, 'attempts spent', NOW), rows: held },
  },
};
