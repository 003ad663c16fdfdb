import { activityPage, isActiveAttachment, readFindingsPage, readSummaryText } from '../../src/store/analysis-read-repository.js';
import { NOW, PROFILE_ID, REPORT_ID, WORKSPACE_ID, LATER, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/analysis-read-repository',
  operations: {
    readSummaryText: { run: (db) => readSummaryText(db, WORKSPACE_ID, REPORT_ID) },
    readFindingsPage: {
      run: (db) => readFindingsPage(db, { workspaceId: WORKSPACE_ID, reportId: REPORT_ID, afterId: PROFILE_ID, profileId: null, limit: 100, format: 'json' }),
      rows: () => [{ id: null, found: false, active: false, profiles: null, pending: null, begun: null }],
    },
    activityPage: {
      run: (db) => activityPage(db, { reportId: REPORT_ID, afterId: null, profileId: PROFILE_ID, eventType: 'post', from: NOW, to: LATER, limit: 50 }),
    },
    isActiveAttachment: { run: (db) => isActiveAttachment(db, REPORT_ID, PROFILE_ID) },
  },
};
