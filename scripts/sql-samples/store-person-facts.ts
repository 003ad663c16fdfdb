import { companyFacts, personFacts } from '../../src/store/person-facts.js';
import { answer, NO_COMPANY_FACTS, PROFILE_ID, REPORT_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/person-facts',
  operations: {
    'personFacts (some people)': { run: (db) => personFacts(db, REPORT_ID, [PROFILE_ID]) },
    'personFacts (everyone begun)': { run: (db) => personFacts(db, REPORT_ID, null, { begun: true }) },
    companyFacts: { run: (db) => companyFacts(db, REPORT_ID), rows: answer(['as facts', [NO_COMPANY_FACTS]]) },
  },
};
