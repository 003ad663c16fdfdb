/**
 * Examples for the OpenAPI document (./openapi.ts): one consistent story (a
 * report about Acme with two people, its scans, an import, its analysis).
 * Every example is checked against its schema by the document lint
 * (`no-invalid-media-type-examples`, test/unit/openapi-lint.test.ts), so an
 * example that drifts from the schema fails `npm test`.
 */

import { DEFAULT_LIMITS } from '../domain/rate-limits.js';

const BASE = 'http://127.0.0.1:8080';
export const ids = {
  request: '1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b',
  workspace: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f',
  key: '2a9d6c1e-7b3f-4e8a-9c0d-1e2f3a4b5c6d',
  user: '8b7a6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d',
  report: '0b8e5f7a-3c2d-4e1f-9a8b-7c6d5e4f3a2b',
  jane: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a',
  bob: '7e6d5c4b-3a2f-4e1d-9c8b-a7f6e5d4c3b2',
  mia: '9c8b7a6f-5e4d-4c3b-a2f1-e0d9c8b7a6f5',
  fullScan: '3c2b1a0f-9e8d-4c7b-a6f5-e4d3c2b1a0f9',
  activityScan: '4d3c2b1a-0f9e-4d8c-b7a6-f5e4d3c2b1a0',
  import: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  image: 'b1a2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  event: 'c2b3a4d5-e6f7-4b8c-9d0e-1f2a3b4c5d6e',
  checkHeadline: 'd3c4b5a6-f7e8-4c9d-8e0f-1a2b3c4d5e6f',
  checkPhoto: 'e4d5c6b7-a8f9-4d0e-9f1a-2b3c4d5e6f7a',
  categoryIdentity: 'f5e6d7c8-b9a0-4e1f-8a2b-3c4d5e6f7a8b',
} as const;

const T0 = '2026-03-02T09:15:00.000Z';
const T1 = '2026-03-02T09:16:30.000Z';
const T2 = '2026-03-02T09:17:05.000Z';

export const context = {
  data: {
    key_id: ids.key,
    user_id: ids.user,
    workspace_id: ids.workspace,
    scopes: ['*'],
    limits: { ...DEFAULT_LIMITS },
  },
  request_id: ids.request,
};

export const workspace = {
  data: { id: ids.workspace, name: 'Default', slug: 'default', status: 'active', created_at: T0, updated_at: T0 },
  request_id: ids.request,
};

export const report = {
  id: ids.report,
  workspace_id: ids.workspace,
  name: 'Quarterly audit',
  company: {
    name: 'Acme',
    supplied_domain: 'www.acme.co.uk',
    root_domain: 'acme.co.uk',
    pronet_company_url: 'https://pronet.example/company/acme',
  },
  visibility: 'private',
  archived: false,
  analysis_state: 'available',
  profile_count: 2,
  analyzed_profile_count: 2,
  public_url: null,
  workspace_url: `${BASE}/reports/${ids.report}`,
  created_at: T0,
  updated_at: T2,
};

const cursor = 'eyJ2IjoxLCJrIjoiMjAyNi0wMy0wMlQwOToxNTowMC4wMDBaIn0.c2lnbmF0dXJl';

export const reportList = { data: [report], page: { next_cursor: null }, request_id: ids.request };
export const reportListWithMore = { data: [report], page: { next_cursor: cursor }, request_id: ids.request };

export const profile = {
  id: ids.jane,
  report_id: ids.report,
  pronet_url: 'https://pronet.example/in/jane-doe',
  name: 'Jane Doe',
  title: 'Head of Sales',
  headline: null,
  source: 'urls',
  analysis_available: true,
  added_at: T0,
};

export const profileList = { data: [profile], page: { next_cursor: cursor }, request_id: ids.request };

export const scan = {
  data: {
    id: ids.fullScan,
    report_id: ids.report,
    mode: 'full_profile',
    status: 'running',
    counts: { requested: 2, completed: 1, warnings: 0, failed: 0 },
    created_at: T0,
    started_at: T1,
    completed_at: null,
    terminal_reason: null,
  },
  request_id: ids.request,
};

export const createReportBody = {
  name: 'Quarterly audit',
  company: { name: 'Acme', domain: 'www.acme.co.uk', pronet_company_url: 'https://pronet.example/company/acme' },
  visibility: 'private',
  profiles: [
    { pronet_url: 'https://pronet.example/in/jane-doe', name: 'Jane Doe', title: 'Head of Sales' },
    { pronet_url: 'https://pronet.example/in/quiet-bob' },
    { pronet_url: 'https://pronet.example/in/jane-doe/' },
  ],
};

export const createReportReturnExisting = {
  name: 'Quarterly audit',
  company: { name: 'Acme', domain: 'acme.co.uk', pronet_company_url: 'https://pronet.example/company/acme' },
  on_existing: 'return_existing',
};

export const createdReport = {
  data: {
    outcome: 'created',
    report: { ...report, analysis_state: 'queued', analyzed_profile_count: 0, updated_at: T0 },
    scan_requests: [
      { id: ids.fullScan, mode: 'full_profile', status: 'queued', person_count: 2, company_page_count: 0 },
      { id: ids.activityScan, mode: 'activity', status: 'queued', person_count: 2, company_page_count: 1 },
    ],
    profiles: {
      submitted: 3,
      added: 2,
      duplicate_in_input: 1,
      rows: [
        { row_number: 1, status: 'added', profile_id: ids.jane },
        { row_number: 2, status: 'added', profile_id: ids.bob },
        { row_number: 3, status: 'duplicate_in_input', first_row_number: 1 },
      ],
    },
  },
  request_id: ids.request,
};

export const existingReports = {
  data: { outcome: 'existing', existing_reports: [report], next_cursor: null },
  request_id: ids.request,
};

export const importBody = {
  profiles: [
    { pronet_url: 'https://pronet.example/in/mia-chen', name: 'Mia Chen', headline: 'Building things at Acme' },
    { pronet_url: 'https://pronet.example/in/jane-doe' },
  ],
};

export const importPreview = {
  data: {
    validation_only: true,
    valid: true,
    counts: { submitted: 2, would_add: 1, would_restore: 0, already_present: 1, duplicate_in_input: 0, would_queue_profiles: 1 },
    rows: [
      { row_number: 1, status: 'would_add' },
      { row_number: 2, status: 'already_present' },
    ],
  },
  request_id: ids.request,
};

const receiptData = {
  id: ids.import,
  report_id: ids.report,
  state: 'completed',
  counts: { submitted: 2, added: 1, restored: 0, already_present: 1, duplicate_in_input: 0, profiles_queued: 1 },
  rows: [
    {
      row_number: 1,
      status: 'added',
      profile_id: ids.mia,
      scan_requests: [
        { scan_run_id: ids.fullScan, mode: 'full_profile' },
        { scan_run_id: ids.activityScan, mode: 'activity' },
      ],
    },
    { row_number: 2, status: 'already_present', profile_id: ids.jane },
  ],
  scan_requests: [
    { scan_run_id: ids.fullScan, mode: 'full_profile', status_at_commit: 'queued', jobs_created: 1, jobs_coalesced: 0 },
    { scan_run_id: ids.activityScan, mode: 'activity', status_at_commit: 'queued', jobs_created: 1, jobs_coalesced: 0 },
  ],
  created_at: T1,
  expires_at: '2026-04-01T09:16:30.000Z',
};

export const importReceipt = { data: receiptData, request_id: ids.request };

const revision = (n: number) => `r${n}`.padEnd(24, 'a').replace(/a/g, (_, i: number) => 'abcdef0123456789'[(i + n) % 16]);

export const analysisSummary = {
  data: {
    report: {
      id: ids.report,
      name: 'Quarterly audit',
      archived: false,
      company: {
        name: 'Acme',
        domain: 'www.acme.co.uk',
        pronet_url: 'https://pronet.example/company/acme',
        observed_context: {
          name: 'Acme',
          tagline: 'Tools for builders',
          industry: 'Software Development',
          follower_count: 1520,
          website: 'https://acme.co.uk',
          captured_at: T1,
        },
      },
    },
    links: { workspace_url: `${BASE}/reports/${ids.report}`, public_url: null },
    availability: 'available',
    has_usable_results: true,
    coverage: {
      person_profiles: 2,
      optimization: { analyzed_profiles: 2, answered_checks: 3, unknown_checks: 1, profiles_without_usable_analysis: 0 },
      activity: { observed_person_profiles: 2, company_page_observed: true, incomplete_person_profiles: 0 },
    },
    work: {
      state: 'completed',
      all_requested_work_terminal: true,
      all_requested_work_succeeded: true,
      counts: { requested: 5, queued: 0, processing: 0, succeeded: 5, failed: 0, inaccessible: 0, cancelled: 0, warnings: 0 },
      scan_run_ids: [ids.fullScan, ids.activityScan],
    },
    freshness: { state: 'current', reasons: [], oldest_captured_at: T1, newest_captured_at: T2 },
    evaluated_at: '2026-03-02T10:00:00.000Z',
    results_revision: revision(1),
    work_revision: revision(2),
    collections: { profiles_revision: revision(3), activity_revision: revision(4) },
    optimization_summary: {
      method: 'existing_profile_check_aggregation',
      cohort_profile_count: 2,
      counts: { good: 2, optimize: 1, answered: 3, unknown: 1, score_pct: 66.67 },
      categories: [{ id: ids.categoryIdentity, key: 'identity', good: 2, optimize: 1, answered: 3, score_pct: 66.67, revision: revision(5) }],
      checks: [
        { id: ids.checkHeadline, key: 'headline_present', good: 1, optimize: 1, answered: 2, score_pct: 50, revision: revision(6) },
        { id: ids.checkPhoto, key: 'profile_photo', good: 1, optimize: 0, answered: 1, score_pct: 100, revision: revision(7) },
      ],
    },
    limitations: [],
  },
  request_id: ids.request,
};

export const summaryInProgress = {
  data: {
    ...analysisSummary.data,
    availability: 'partial',
    work: {
      state: 'processing',
      all_requested_work_terminal: false,
      all_requested_work_succeeded: false,
      counts: { requested: 5, queued: 1, processing: 1, succeeded: 3, failed: 0, inaccessible: 0, cancelled: 0, warnings: 0 },
      scan_run_ids: [ids.fullScan, ids.activityScan],
    },
    freshness: { state: 'stale', reasons: ['refresh_in_progress'], oldest_captured_at: T1, newest_captured_at: T1 },
    limitations: [{ code: 'refresh_in_progress', message: 'Requested work is still queued or processing.' }],
  },
  request_id: ids.request,
};

export const findingsPage = {
  data: [
    {
      profile_id: ids.jane,
      pronet_url: 'https://pronet.example/in/jane-doe',
      name: 'Jane Doe',
      title: 'Head of Sales',
      headline: null,
      revision: revision(8),
      analysis: {
        catalog_version: '2026-01',
        captured_at: T1,
        available_at: T2,
        counts: { good: 1, optimize: 1, unknown: 0, answered: 2, score_pct: 50 },
        checks: [
          {
            id: ids.checkHeadline,
            key: 'headline_present',
            title: 'Headline is filled in',
            category: { id: ids.categoryIdentity, key: 'identity' },
            outcome: 'optimize',
            observed_value: null,
            recommendation: 'Add a headline that says what you do for [company name].',
            source_url: 'https://pronet.example/in/jane-doe',
            evidence: {
              images: [
                {
                  url: `${BASE}/api/v1/reports/${ids.report}/evidence/${ids.image}`,
                  preview_url: `${BASE}/api/v1/reports/${ids.report}/evidence/${ids.image}?variant=preview`,
                },
              ],
            },
          },
          {
            id: ids.checkPhoto,
            key: 'profile_photo',
            title: 'Profile photo is set',
            category: { id: ids.categoryIdentity, key: 'identity' },
            outcome: 'good',
            observed_value: true,
            recommendation: null,
            source_url: 'https://pronet.example/in/jane-doe',
            evidence: { images: [] },
          },
        ],
      },
      reason: null,
    },
    {
      profile_id: ids.mia,
      pronet_url: 'https://pronet.example/in/mia-chen',
      name: 'Mia Chen',
      title: null,
      headline: 'Building things at Acme',
      revision: revision(9),
      analysis: null,
      reason: 'scan_queued',
    },
  ],
  revision: revision(3),
  next_cursor: cursor,
  request_id: ids.request,
};

export const activityPage = {
  data: [
    {
      id: ids.event,
      profile_id: ids.jane,
      event_type: 'post',
      actor: { kind: 'person', url: 'https://pronet.example/in/jane-doe', name: 'Jane Doe' },
      source_url: 'https://pronet.example/posts/jane-doe-1',
      text: 'We are hiring at Acme!',
      occurred_at: '2026-02-27T16:00:00.000Z',
      counts: { reactions: 42, comments: 5, reposts: null },
      provenance: 'scanner',
      captured_at: T1,
      available_at: T2,
      updated_at: T2,
      revision: revision(10),
    },
  ],
  revision: revision(4),
  next_cursor: null,
  request_id: ids.request,
};

/** Error envelopes (section 7); `retryable`/`next_action` appear on analysis routes and where named. */
export const error = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
  error: { code, message, ...extra },
  request_id: ids.request,
});
