import {
  compareHistory,
  deleteItemsHistory,
  historyScan,
  historyWrite,
  pointRounds,
  pruneHistory,
  readPeopleScans,
  readPersonScans,
  readReportRounds,
  recordCompletedRound,
} from '../../src/store/history-repository.js';
import { ANALYSIS, runWrites } from './finish-writes.js';
import { sql } from 'kysely';
import { answer, CLAIM_ID, ITEM_ID, NOW, PROFILE_ID, REPORT_ID, type ModuleSamples } from './sample.js';

const ALWAYS = sql<boolean>`true`;
const FIRST_ROUND = { round: ITEM_ID, previous: null, latest: true };
const LATER_ROUND = { round: CLAIM_ID, previous: { 'identity.has_photo': 'optimize' as const }, latest: true };

export const samples: ModuleSamples = {
  module: 'store/history-repository',
  operations: {
    historyWrite: {
      run: (db) =>
        runWrites(db, [
          historyWrite(db, { reportId: REPORT_ID, profileId: PROFILE_ID, round: FIRST_ROUND }, historyScan(FIRST_ROUND, ANALYSIS), ANALYSIS, NOW, ALWAYS),
        ]),
    },
    // A person's later scan: what changed since the previous one is stored with it.
    'historyWrite (a later scan)': {
      run: (db) =>
        runWrites(db, [
          historyWrite(db, { reportId: REPORT_ID, profileId: PROFILE_ID, round: LATER_ROUND }, historyScan(LATER_ROUND, ANALYSIS), ANALYSIS, NOW, ALWAYS),
        ]),
    },
    compareHistory: {
      run: (db) => compareHistory(db, NOW),
      rows: answer([
        'from person_scan_history h',
        [{ item_id: ITEM_ID, outcomes: { 'identity.has_photo': 'good' }, previous: { 'identity.has_photo': 'optimize' } }],
      ]),
    },
    recordCompletedRound: {
      run: (db) => recordCompletedRound(db, REPORT_ID),
      rows: answer(['insert into report_snapshots', [{ id: 1, checks: { 'c-photo': { good: 1, optimize: 2, unknown: 0 } } }]]),
    },
    pointRounds: { run: (db) => pointRounds(db), rows: answer(['from report_snapshots where not pointed', [{ id: 1, checks: {} }]]) },
    readPeopleScans: { run: (db) => readPeopleScans(db, REPORT_ID) },
    readPersonScans: { run: (db) => readPersonScans(db, { reportId: REPORT_ID, profileId: PROFILE_ID, limit: 20 }) },
    readReportRounds: { run: (db) => readReportRounds(db, REPORT_ID, 10) },
    deleteItemsHistory: { run: (db) => deleteItemsHistory(db, [ITEM_ID], NOW) },
    pruneHistory: { run: (db) => pruneHistory(db, NOW, NOW), rows: answer(['select count(*)::int as n from changed', [{ n: 0 }]]) },
  },
};
