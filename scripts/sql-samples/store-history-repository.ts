import { historyWrite, pruneHistory, readPeopleScans, readPersonScans, readReportRounds, recordCompletedRound } from '../../src/store/history-repository.js';
import { ANALYSIS, runWrites } from './finish-writes.js';
import { ITEM_ID, NOW, PROFILE_ID, REPORT_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/history-repository',
  operations: {
    historyWrite: { run: (db) => runWrites(db, [historyWrite(db, { reportId: REPORT_ID, profileId: PROFILE_ID, itemId: ITEM_ID }, ANALYSIS, NOW)]) },
    recordCompletedRound: { run: (db) => recordCompletedRound(db, REPORT_ID) },
    readPeopleScans: { run: (db) => readPeopleScans(db, REPORT_ID) },
    readPersonScans: { run: (db) => readPersonScans(db, { reportId: REPORT_ID, profileId: PROFILE_ID, limit: 20 }) },
    readReportRounds: { run: (db) => readReportRounds(db, REPORT_ID, 10) },
    pruneHistory: { run: (db) => pruneHistory(db, NOW) },
  },
};
