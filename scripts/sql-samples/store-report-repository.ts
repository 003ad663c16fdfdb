import {
  attachmentsByUrl,
  applyRosterPlan,
  findReport,
  insertReport,
  listActiveProfiles,
  listReports,
  removeProfile,
  setArchived,
  setPublic,
} from '../../src/store/report-repository.js';
import { answer, IMPORT_ID, LATER, NOW, PROFILE_ID, REPORT_ID, WORKSPACE_ID, type ModuleSamples } from './sample.js';

const URL = 'https://pronet.example/in/sample';
const AFTER = { at: NOW, id: PROFILE_ID };

export const samples: ModuleSamples = {
  module: 'store/report-repository',
  operations: {
    insertReport: {
      run: (db) =>
        insertReport(
          db,
          {
            workspaceId: WORKSPACE_ID,
            name: 'Sample report',
            companyName: 'Sample Company',
            suppliedDomain: 'sample.example',
            rootDomain: 'sample.example',
            pronetCompanyUrl: 'https://pronet.example/company/sample',
            visibility: 'private',
          },
          NOW,
        ),
      rows: answer(['insert into "reports"', [{ id: REPORT_ID }]]),
    },
    'findReport (in a workspace)': { run: (db) => findReport(db, { workspaceId: WORKSPACE_ID, reportId: REPORT_ID }, { forUpdate: true }) },
    'findReport (by public token)': { run: (db) => findReport(db, { publicToken: 'sample-token' }) },
    'findReport (any workspace)': { run: (db) => findReport(db, { anyWorkspace: true, reportId: REPORT_ID }) },
    listReports: {
      run: (db) =>
        listReports(db, { workspaceId: WORKSPACE_ID, includeArchived: false, rootDomain: 'sample.example', watermark: LATER, after: AFTER, limit: 50 }),
    },
    setArchived: { run: (db) => setArchived(db, REPORT_ID, true, NOW) },
    setPublic: { run: (db) => setPublic(db, REPORT_ID, true, NOW) },
    attachmentsByUrl: { run: (db) => attachmentsByUrl(db, REPORT_ID, [URL]) },
    applyRosterPlan: {
      run: (db) =>
        applyRosterPlan(
          db,
          {
            reportId: REPORT_ID,
            workspaceId: WORKSPACE_ID,
            source: 'api_import',
            importId: IMPORT_ID,
            rows: [
              { row_number: 1, status: 'add', url: URL, profile: { pronet_url: URL, name: 'Sample Person' } },
              { row_number: 2, status: 'restore', url: `${URL}-2`, profile: { pronet_url: `${URL}-2` }, existing_id: PROFILE_ID },
            ],
          },
          NOW,
        ),
    },
    listActiveProfiles: { run: (db) => listActiveProfiles(db, { reportId: REPORT_ID, watermark: LATER, after: AFTER, limit: 50 }) },
    removeProfile: { run: (db) => removeProfile(db, REPORT_ID, PROFILE_ID, NOW) },
  },
};
