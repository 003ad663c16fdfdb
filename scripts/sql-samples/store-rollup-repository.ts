import {
  readAggregates,
  readCurrentTotals,
  readReportTotals,
  refreshReportRollup,
  storeContributions,
  storeVisibleFlags,
} from '../../src/store/rollup-repository.js';
import { PERSON } from './people.js';
import { answer, NO_COMPANY_FACTS, NOW, PROFILE_ID, REPORT_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/rollup-repository',
  operations: {
    readCurrentTotals: {
      run: (db) => readCurrentTotals(db, REPORT_ID),
      rows: answer(['as begun_company', [{ totals: null, pending: null, begun: null, begun_company: null }]]),
    },
    readAggregates: { run: (db) => readAggregates(db, REPORT_ID) },
    readReportTotals: { run: (db) => readReportTotals(db, [REPORT_ID]) },
    'refreshReportRollup (some people)': {
      run: (db) => refreshReportRollup(db, REPORT_ID, { profileIds: [PROFILE_ID, null] }, NOW),
      rows: answer(['as facts', [NO_COMPANY_FACTS]]),
    },
    'refreshReportRollup (all)': {
      run: (db) => refreshReportRollup(db, REPORT_ID, 'all', NOW, { touch: true }),
      rows: answer(['as facts', [NO_COMPANY_FACTS]]),
    },
    storeContributions: { run: (db) => storeContributions(db, REPORT_ID, [{ id: PROFILE_ID, contribution: PERSON.stored!, activeChanged: true }]) },
    storeVisibleFlags: { run: (db) => storeVisibleFlags(db, [PROFILE_ID]) },
  },
};
