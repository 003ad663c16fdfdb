/** Fixed sample values shared by the sample calls: a person's facts and an item as a claim hands it over. */
import { EMPTY_CONTRIBUTION } from '../../src/domain/analysis-aggregate.js';
import type { GatheredPerson } from '../../src/domain/finish-facts.js';
import type { ClaimedItem } from '../../src/queue/item.js';
import { CLAIM_ID, ITEM_ID, PROFILE_ID, REPORT_ID, RUN_ID, WORKSPACE_ID } from './sample.js';

export const PERSON: GatheredPerson = {
  facts: {
    profileId: PROFILE_ID,
    active: true,
    person: { pronet_url: 'https://pronet.example/in/sample', name: 'Sample Person', title: null, headline: null },
    analysis: { revision: 'rev-1', outcomes: {} },
    full: null,
    activity: null,
    activityObserved: false,
    activityGap: null,
    events: {},
    latestScan: null,
  },
  stored: EMPTY_CONTRIBUTION,
};

export const PERSON_ITEM: ClaimedItem = {
  id: ITEM_ID,
  claim_id: CLAIM_ID,
  run_id: RUN_ID,
  report_id: REPORT_ID,
  workspace_id: WORKSPACE_ID,
  profile_id: PROFILE_ID,
  kind: 'person',
  mode: 'full_profile',
  key_mode: 'live',
};

export const COMPANY_ITEM: ClaimedItem = { ...PERSON_ITEM, profile_id: null, kind: 'company_page' };
