import { activityWrites, analysisWrites, companyWrite, evidenceWrites, readCompanyFinish, readFinishFacts } from '../../src/store/analysis-repository.js';
import { analysisChange } from '../../src/domain/profile-analysis.js';
import { ANALYSIS, EVENTS, IMAGES, PROFILE, runWrites } from './finish-writes.js';
import { sql } from 'kysely';
import { ITEM_ID, NOW, PROFILE_ID, REPORT_ID, type ModuleSamples } from './sample.js';

/** A write on its own: always (in a finish, the gate's condition). */
const ALWAYS = sql<boolean>`true`;

const BASE = { reportId: REPORT_ID, profileId: PROFILE_ID, itemId: ITEM_ID };

export const samples: ModuleSamples = {
  module: 'store/analysis-repository',
  operations: {
    evidenceWrites: { run: (db) => runWrites(db, evidenceWrites(db, { ...BASE, images: IMAGES }, NOW, ALWAYS).writes) },
    activityWrites: { run: (db) => runWrites(db, activityWrites(db, { ...BASE, events: EVENTS, capturedAt: NOW }, NOW, new Map(), ALWAYS).writes) },
    companyWrite: {
      run: (db) =>
        runWrites(db, [
          companyWrite(
            db,
            {
              reportId: REPORT_ID,
              itemId: ITEM_ID,
              company: { name: 'Sample Company', tagline: null, industry: null, follower_count: 5, website: null },
              capturedAt: NOW,
            },
            NOW,
            ALWAYS,
          ),
        ]),
    },
    analysisWrites: {
      run: (db) => runWrites(db, analysisWrites(db, { ...BASE, profile: PROFILE }, ANALYSIS, analysisChange(REPORT_ID, undefined, ANALYSIS, NOW), ALWAYS)),
    },
    readCompanyFinish: { run: (db) => readCompanyFinish(db, { reportId: REPORT_ID, observedEventIds: ['event-1'] }) },
    readFinishFacts: {
      run: (db) =>
        readFinishFacts(db, {
          reportId: REPORT_ID,
          profileId: PROFILE_ID,
          observedEventIds: ['event-1'],
          ended: { id: ITEM_ID, status: 'succeeded', warning: false },
        }),
      // A person never analysed: nothing stored yet, the attachment gone.
      rows: () => [{ item_id: null, covered: false, events: null, evidence: null, existing: null, person: null, media_generation: 0, facts_version: null }],
    },
  },
};
