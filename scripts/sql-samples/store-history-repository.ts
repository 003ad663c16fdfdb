import { historyWrite, pruneHistory, readPeopleScans, readPersonScans, readReportRounds, recordCompletedRound } from '../../src/store/history-repository.js';
import { ANALYSIS, runWrites } from './finish-writes.js';
import { sql } from 'kysely';
import { CLAIM_ID, ITEM_ID, NOW, PROFILE_ID, REPORT_ID, type ModuleSamples } from './sample.js';

const ALWAYS = sql<boolean>`true`;

export const samples: ModuleSamples = {
  module: 'store/history-repository',
  operations: {
    historyWrite: {
      run: (db) =>
        runWrites(db, [historyWrite(db, { reportId: REPORT_ID, profileId: PROFILE_ID, itemId: ITEM_ID, endingItemId: ITEM_ID }, ANALYSIS, NOW, ALWAYS)]),
    },
    // An activity item that ends before its round's full-profile item: the row of its own round.
    'historyWrite (an activity item first)': {
      run: (db) =>
        runWrites(db, [historyWrite(db, { reportId: REPORT_ID, profileId: PROFILE_ID, itemId: ITEM_ID, endingItemId: CLAIM_ID }, ANALYSIS, NOW, ALWAYS)]),
    },
    recordCompletedRound: { run: (db) => recordCompletedRound(db, REPORT_ID) },
    readPeopleScans: { run: (db) => readPeopleScans(db, REPORT_ID) },
    readPersonScans: { run: (db) => readPersonScans(db, { reportId: REPORT_ID, profileId: PROFILE_ID, limit: 20 }) },
    readReportRounds: { run: (db) => readReportRounds(db, REPORT_ID, 10) },
    pruneHistory: { run: (db) => pruneHistory(db, NOW) },
  },
};
