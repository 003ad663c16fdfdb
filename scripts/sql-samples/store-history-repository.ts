import {
  compareHistory,
  historyWrite,
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

export const samples: ModuleSamples = {
  module: 'store/history-repository',
  operations: {
    historyWrite: {
      run: (db) =>
        runWrites(db, [historyWrite(db, { reportId: REPORT_ID, profileId: PROFILE_ID, round: { round: ITEM_ID, previous: null } }, ANALYSIS, NOW, ALWAYS)]),
    },
    // A person's later scan: what changed since the previous one is stored with it.
    'historyWrite (a later scan)': {
      run: (db) =>
        runWrites(db, [
          historyWrite(
            db,
            { reportId: REPORT_ID, profileId: PROFILE_ID, round: { round: CLAIM_ID, previous: { 'identity.has_photo': 'optimize' } } },
            ANALYSIS,
            NOW,
            ALWAYS,
          ),
        ]),
    },
    compareHistory: {
      run: (db) => compareHistory(db),
      rows: answer([
        'from person_scan_history h',
        [{ item_id: ITEM_ID, outcomes: { 'identity.has_photo': 'good' }, previous: { 'identity.has_photo': 'optimize' } }],
      ]),
    },
    recordCompletedRound: { run: (db) => recordCompletedRound(db, REPORT_ID) },
    readPeopleScans: { run: (db) => readPeopleScans(db, REPORT_ID) },
    readPersonScans: { run: (db) => readPersonScans(db, { reportId: REPORT_ID, profileId: PROFILE_ID, limit: 20 }) },
    readReportRounds: { run: (db) => readReportRounds(db, REPORT_ID, 10) },
    pruneHistory: { run: (db) => pruneHistory(db, NOW) },
  },
};
