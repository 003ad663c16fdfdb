/**
 * The OpenAPI document's metadata: what the route schemas cannot say.
 *
 * @fastify/swagger builds paths, parameters and bodies from the routes'
 * TypeBox schemas (one schema per resource feeds validation, serialization
 * and the document). `completeOpenApiDocument` then, as the plugin's
 * `transformObject`, adds per operation: operationId, description with the
 * required scopes, the Idempotency-Key header, every status the contract
 * lists (section 4) with its error codes, response headers (X-Request-ID,
 * Cache-Control, RateLimit, Retry-After, Location, Idempotency-Replayed) and
 * examples; it hoists the named resources (Report, Scan, …) into
 * `components.schemas` so generated clients get named types, and writes
 * literal unions as `enum`. Documentation only: nothing here changes
 * validation or responses. The document is linted in npm test (Redocly:
 * test/unit/openapi-lint.test.ts; Spectral with OWASP's API rules, .spectral.js:
 * test/api/openapi-spectral.test.ts) and compared with the registered routes
 * (test/api/openapi-routes.test.ts).
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { TSchema } from '@sinclair/typebox';
import * as ex from './openapi-examples.js';
import { ActivityEvent, AnalysisSummary, FindingsRecord } from '../domain/schemas/analysis.js';
import { ErrorEnvelope } from '../domain/schemas/common.js';
import { errorMessage } from '../domain/errors.js';
import { ImportPreviewRow, ImportReceipt, ImportRow, ImportScan, ImportValidation, ProfileImport } from '../domain/schemas/import.js';
import { RefreshBody, RefreshReceipt } from '../domain/schemas/refresh.js';
import { CreatedReport, CreateProfileBody, CreateReport, CreationRow, CreationScan, ExistingReports, Profile, Report, Scan } from '../domain/schemas/report.js';
import { Context, Limits, Workspace } from '../domain/schemas/workspace.js';

// The document is plain JSON assembled from many parts; its shape is checked by the Redocly lint test.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Resources named in `components.schemas` (contract section 2). */
const NAMED_SCHEMAS: Record<string, TSchema> = {
  Error: ErrorEnvelope,
  Context,
  Limits,
  Workspace,
  Report,
  Profile,
  Scan,
  CreateReport,
  CreateProfile: CreateProfileBody,
  CreatedReport,
  CreationScan,
  CreationRow,
  ExistingReports,
  ProfileImport,
  ImportValidation,
  ImportPreviewRow,
  ImportReceipt,
  RefreshBody,
  RefreshReceipt,
  ImportRow,
  ImportScan,
  AnalysisSummary,
  FindingsRecord,
  ActivityEvent,
};

/** In alphabetical order (the document's lint). */
const TAGS = [
  {
    name: 'analysis',
    description:
      'Stored analysis, read-only: summary, per-person findings, activity events and evidence images (2.9, ' +
      '4.10-4.13). Errors carry `retryable` and `next_action`.',
  },
  {
    name: 'extensions',
    description:
      'Extensions beside the contract (not part of API v1 as specified): they change none of its rules and add no fields to its ' +
      "records. Refreshes scan a report's people again.",
  },
  { name: 'imports', description: 'Profile imports: preview, idempotent commit and saved receipts (2.7, 2.8, 4.8, 4.9).' },
  { name: 'reports', description: 'Reports about a company and their roster of people (2.4, 2.5, 4.3-4.6).' },
  { name: 'scans', description: 'Scan runs: asynchronous collection for the attached people (2.6, 4.7).' },
  { name: 'workspace', description: 'The calling key, its workspace, scopes and effective limits (2.2, 2.3).' },
];

/**
 * The one server of the document: this deployment, for integrators outside it
 * (`x-internal: false`), named by its environment: `local` when it answers on
 * a loopback address, production otherwise (staging deployments are
 * production deployments of their operator's staging).
 */
export function serverOf(serverUrl: string): Json {
  const host = new URL(serverUrl).hostname.replace(/^\[|\]$/g, '');
  const local = host === 'localhost' || host === '::1' || host.startsWith('127.');
  return {
    url: serverUrl,
    description: `${local ? 'Local' : 'Production'} deployment of profile-scan (paths include the /api/v1 version prefix)`,
    'x-internal': false,
  };
}

export function openApiBase(serverUrl: string): NonNullable<FastifyDynamicSwaggerOptions['openapi']> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'profile-scan API',
      version: '1.0.0-rc.1',
      description: [
        'Workspace-scoped JSON API for reports about a company, the people attached to them, asynchronous scans and stored analysis.',
        '',
        'Every request carries `Authorization: Bearer <API_KEY>`; a key is bound to one workspace. Success envelopes are `{data, request_id}`',
        '(lists add `page.next_cursor`; analysis collections add top-level `revision` and `next_cursor`); errors are',
        '`{error: {code, message}, request_id}`. `X-Request-ID` equals `request_id`; every response is `Cache-Control: no-store`.',
        '',
        'Limits (UTC minute windows): 60 reads per key, 300 per workspace; 10 writes per key, 50 per workspace (workspace settings may differ);',
        '1000 submitted profile rows per workspace; 100 profiles per write; 1 MiB bodies. A 429 carries `Retry-After` (whole seconds).',
        'Writes (report creation, import commits) require an `Idempotency-Key`; retry an uncertain result with the same key and body.',
        '',
        'Scan allowance: a workspace may have a monthly (UTC) allowance of profile scans (one per person a write queues). A write that',
        'would exceed it is refused whole with 409 `scan_allowance_exceeded`; an import preview states what is left in `Scan-Allowance-*` headers.',
      ].join('\n'),
      license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
      contact: { name: 'The operator of this deployment' },
    },
    servers: [serverOf(serverUrl)],
    tags: TAGS,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `psk_test_…` or `psk_live_…`.' } },
    },
    security: [{ bearer: [] }],
  };
}

// ---------------------------------------------------------------- headers

const HEADERS: Record<string, Json> = {
  XRequestId: { description: 'Equals `request_id` of the body.', schema: { type: 'string', format: 'uuid', maxLength: 36 }, example: ex.ids.request },
  CacheControl: { description: 'Always `no-store`.', schema: { type: 'string', const: 'no-store' } },
  RateLimit: {
    description:
      'The tightest bucket this request counted against: policy name, remaining requests `r` and seconds `t` until the window ends. ' +
      'Sent on every answer to a request with a valid key, errors included (but a 403 `api_access_disabled`).',
    schema: { type: 'string', maxLength: 200, pattern: '^"[a-z-]+";r=[0-9]+;t=[0-9]+$' },
    example: '"reads-per-key";r=59;t=42',
  },
  RateLimitPolicy: {
    description: 'Every bucket this request counted against, with its quota `q` per window `w` (seconds). Sent with `RateLimit`.',
    schema: { type: 'string', maxLength: 400, pattern: '^"[a-z-]+";q=[0-9]+;w=[0-9]+(, "[a-z-]+";q=[0-9]+;w=[0-9]+)*$' },
    example: '"reads-per-key";q=60;w=60, "reads-per-workspace";q=300;w=60',
  },
  RetryAfter: {
    description: 'Whole seconds (at least 1) until the current UTC minute window ends.',
    schema: { type: 'integer', minimum: 1, maximum: 60, format: 'int32' },
    example: 17,
  },
  Location: { description: 'Absolute URI of the created resource.', schema: { type: 'string', format: 'uri', maxLength: 4096 } },
  IdempotencyReplayed: {
    description: '`true` when this is a replay of a saved result for the same Idempotency-Key and body (4.4 rule 8, 4.8 rule 4).',
    schema: { type: 'string', const: 'true' },
  },
  WwwAuthenticate: { description: '`Bearer`.', schema: { type: 'string', const: 'Bearer' }, example: 'Bearer' },
  ContentLength: {
    description: 'Size of the image in bytes (at most 10 MiB).',
    schema: { type: 'integer', minimum: 1, maximum: 10485760, format: 'int32' },
  },
  ScanAllowanceLimit: {
    description: 'The workspace\'s scan allowance: profile scans per calendar month (UTC), or `unlimited` (docs/operations.md, "Scan allowance").',
    schema: { type: 'string', maxLength: 20, pattern: '^(unlimited|[0-9]+)$' },
    example: '500',
  },
  ScanAllowanceUsed: {
    description: 'Profile scans admitted this month.',
    schema: { type: 'string', maxLength: 20, pattern: '^[0-9]+$' },
    example: '120',
  },
  ScanAllowanceRemaining: {
    description: 'Profile scans left this month, or `unlimited`. A commit queues at most `would_queue_profiles` of them.',
    schema: { type: 'string', maxLength: 20, pattern: '^(unlimited|[0-9]+)$' },
    example: '380',
  },
  ScanAllowanceReset: {
    description: 'When the month ends and the count starts again (RFC 3339, UTC).',
    schema: { type: 'string', format: 'date-time', maxLength: 30 },
    example: '2026-12-01T00:00:00.000Z',
  },
};
const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
const baseHeaders = () => ({ 'X-Request-ID': ref('XRequestId'), 'Cache-Control': ref('CacheControl') });
const allowanceHeaders = () => ({
  'Scan-Allowance-Limit': ref('ScanAllowanceLimit'),
  'Scan-Allowance-Used': ref('ScanAllowanceUsed'),
  'Scan-Allowance-Remaining': ref('ScanAllowanceRemaining'),
  'Scan-Allowance-Reset': ref('ScanAllowanceReset'),
});
const limitHeaders = () => ({ ...baseHeaders(), RateLimit: ref('RateLimit'), 'RateLimit-Policy': ref('RateLimitPolicy') });

const IDEMPOTENCY_KEY_SCHEMA = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' };

// ---------------------------------------------------------------- errors

type Examples = Record<string, { summary: string; value: Json }>;
const E = ex.error;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400:
    'Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding ' +
    '(`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key ' +
    '(`idempotency_key_invalid`).',
  401: 'Missing, invalid or revoked key (`unauthorized`).',
  403: 'The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`).',
  404: 'Unknown resource, or one in another workspace (`not_found`).',
  409: 'Conflict.',
  410: 'The saved import receipt is older than 30 days (`receipt_expired`).',
  413: 'The body exceeds 1 MiB (`payload_too_large`).',
  415: 'The body is not JSON (`unsupported_media_type`).',
  422: 'The body is invalid.',
  429: 'Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds.',
  500: 'Server failure (`internal_error`); retry with bounded backoff.',
  503: 'Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff.',
};

function defaultErrorExamples(status: number, analysis: boolean): Examples {
  const a = (retryable: boolean, next_action: string) => (analysis ? { retryable, next_action } : {});
  switch (status) {
    case 400:
      return {
        invalid_request: {
          summary: 'Invalid parameter',
          value: E('invalid_request', 'Invalid querystring parameter "limit": must be <= 100.', a(false, 'fix_request')),
        },
        invalid_cursor: {
          summary: 'Cursor used with other filters',
          value: E('invalid_cursor', 'The cursor is invalid or belongs to another request.', a(false, 'restart_traversal')),
        },
      };
    case 401:
      return {
        unauthorized: {
          summary: 'No or invalid key',
          value: E('unauthorized', 'A valid API key is required: send Authorization: Bearer <key>.', a(false, 'check_key')),
        },
      };
    case 403:
      return {
        insufficient_scope: {
          summary: 'Missing scope',
          value: E('insufficient_scope', 'This key lacks the scope(s) this request needs: reports:read.', a(false, 'check_key')),
        },
        api_access_disabled: {
          summary: 'Workspace access disabled',
          value: E('api_access_disabled', 'API access is disabled for this workspace.', a(false, 'check_key')),
        },
      };
    case 404:
      return {
        not_found: {
          summary: 'Unknown or foreign resource',
          value: E('not_found', 'The report does not exist or is not visible to this key.', a(false, 'check_identifiers')),
        },
      };
    case 410:
      return { receipt_expired: { summary: 'Receipt expired', value: E('receipt_expired', 'The import receipt expired after 30 days.') } };
    case 413:
      return { payload_too_large: { summary: 'Body over 1 MiB', value: E('payload_too_large', 'The request body exceeds 1 MiB.') } };
    case 415:
      return {
        unsupported_media_type: {
          summary: 'Not JSON',
          value: E('unsupported_media_type', 'Request bodies must be JSON (Content-Type: application/json).'),
        },
      };
    case 429:
      return {
        rate_limited: {
          summary: 'Rate limited',
          value: E('rate_limited', 'Rate limit exceeded (reads_per_key); retry after the current minute window.', {
            retryable: true,
            ...a(true, 'retry_later'),
          }),
        },
      };
    case 500:
      return {
        internal_error: {
          summary: 'Server failure',
          value: E('internal_error', 'The server failed to handle the request; retry with bounded backoff.', {
            retryable: true,
            ...a(true, 'retry_later'),
          }),
        },
      };
    case 503:
      return {
        unavailable: {
          summary: 'Unavailable',
          value: E('unavailable', 'The service is unavailable; retry with bounded backoff.', a(true, 'retry_later')),
        },
      };
  }
  return {};
}

const ALLOWANCE_EXCEEDED: Examples = {
  scan_allowance_exceeded: {
    summary: "The write would exceed the workspace's scan allowance",
    value: E(
      'scan_allowance_exceeded',
      "This write would queue 12 profile scans, but the workspace's scan allowance has 5 of 500 left this month " +
        '(it resets at 2026-12-01T00:00:00.000Z). Nothing was saved.',
      { retryable: false },
    ),
  },
};

const WRITE_CONFLICTS: Examples = {
  idempotency_key_reused: {
    summary: 'Same key, different body',
    value: E('idempotency_key_reused', 'This Idempotency-Key was used with a different request.'),
  },
  idempotency_request_in_progress: {
    summary: 'Same key while the first request still runs',
    value: E('idempotency_request_in_progress', 'A request with this Idempotency-Key is still in progress; retry shortly.', {
      retryable: true,
    }),
  },
};

// ---------------------------------------------------------------- operations

interface ErrorDoc {
  description?: string;
  examples?: Examples;
  /** Response headers besides the usual ones. */
  headers?: Record<string, Json>;
}

interface OperationDoc {
  operationId: string;
  description: string;
  scopes: string;
  /** Error statuses (section 4: every endpoint 400, 401, 403, 404, 429, 500, 503; writes also 409, 413, 415, 422). */
  errors: number[];
  errorDocs?: Partial<Record<number, ErrorDoc>>;
  success: Record<string, { description: string; examples: Examples; headers?: Record<string, Json> }>;
  requestExamples?: Examples;
  idempotencyKey?: 'required' | 'optional';
  parameters?: Record<string, { description: string; example?: Json }>;
  analysis?: boolean;
}

const READ = [400, 401, 403, 404, 429, 500, 503];
const WRITE = [400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503];
const one = (summary: string, value: Json): Examples => ({ example: { summary, value } });

const LIST_PARAMS = (what: string) => ({
  limit: { description: `Page size, 1-100 (default 50).`, example: 50 },
  cursor: {
    description:
      `Opaque cursor from \`page.next_cursor\` of the previous page of ${what}. ` +
      `Pass it unchanged with the same endpoint, filters and limit; an invalid or changed binding is 400 \`invalid_cursor\`. ` +
      `Stop when \`page.next_cursor\` is null.`,
  },
});
const REPORT_ID = { report_id: { description: 'The report (uuid).', example: ex.ids.report } };
const ANALYSIS_PARAMS = {
  cursor: {
    description:
      'Opaque cursor from the top-level `next_cursor` of the previous page. Expires after 15 minutes (400 ' +
      '`cursor_expired`); bound to report, workspace, route, filters, limit and revision. Send the same `limit`, ' +
      'filters and `expected_revision` on every page.',
  },
  expected_revision: {
    description:
      'The collection revision from the summary (`collections.profiles_revision` / `collections.activity_revision`). ' +
      'When the collection no longer has this revision the request is 409 `results_changed`: discard staged pages ' +
      'and restart (4.13).',
    example: ex.analysisSummary.data.collections.profiles_revision,
  },
};
const RESULTS_CHANGED: ErrorDoc = {
  description:
    'The collection changed during the traversal, or `expected_revision` is stale (`results_changed`, retryable): ' +
    'discard staged pages, re-read the summary and restart with bounded backoff (4.13 rule 5).',
  examples: one(
    'Collection changed',
    E('results_changed', 'The collection changed since the traversal started; restart from the first page.', {
      retryable: true,
      next_action: 'restart_traversal',
    }),
  ),
};
const RESULT_TOO_LARGE: ErrorDoc = {
  description: 'One stored record exceeds the 2 MiB response budget (`result_too_large`); lowering the page limit does not help.',
  examples: one('Record too large', E('result_too_large', 'A stored record exceeds the response budget.', { retryable: false, next_action: 'skip_record' })),
};

const OPERATIONS: Record<string, OperationDoc> = {
  'GET /api/v1/context': {
    operationId: 'getContext',
    scopes: 'workspace:read',
    description: 'The calling key: its id, user, workspace, scopes and the effective limits of its workspace (2.2). A key cannot switch workspace.',
    errors: READ,
    success: { 200: { description: 'The key context.', examples: one('A `*` key with default limits', ex.context) } },
  },
  'GET /api/v1/workspace': {
    operationId: 'getWorkspace',
    scopes: 'workspace:read',
    description: 'The workspace the calling key is bound to (2.3).',
    errors: READ,
    success: { 200: { description: 'The workspace.', examples: one('The workspace', ex.workspace) } },
  },
  'GET /api/v1/reports': {
    operationId: 'listReports',
    scopes: 'reports:read',
    description: 'Reports of the workspace, newest first (4.3). Archived reports are excluded unless `include_archived=true`.',
    errors: READ,
    parameters: {
      ...LIST_PARAMS('reports'),
      company_root_domain: {
        description:
          'Hostname or http(s) company URL; normalized to its registrable domain (public and private suffix rules); ' +
          'matches that root domain and its subdomains.',
        example: 'acme.co.uk',
      },
      include_archived: { description: 'Include archived reports (default false).', example: true },
    },
    success: {
      200: {
        description: 'One page of reports.',
        examples: {
          last: { summary: 'Last page', value: ex.reportList },
          more: { summary: 'More pages follow', value: ex.reportListWithMore },
        },
      },
    },
  },
  'POST /api/v1/reports': {
    operationId: 'createReport',
    scopes: '`reports:create`, `reports:read`, plus `profiles:add` when `profiles` is not empty',
    description: [
      'Creates a report and attaches up to 100 people; admitted people get a `full_profile` and an `activity` scan queued (4.4).',
      'All rows are validated before anything changes; duplicates in the body keep the first occurrence; no external lookup happens.',
      'With `on_existing: return_existing`, reports of the same company root domain (all states) are returned with ' +
        '200 and outcome `existing`; nothing is created.',
      'Idempotent: retry an uncertain result with the same body and Idempotency-Key; a replay returns the original ' +
        'status and data with `Idempotency-Replayed: true`.',
    ].join(' '),
    errors: WRITE,
    idempotencyKey: 'required',
    errorDocs: {
      409: {
        description:
          "The people would exceed the workspace's scan allowance this month (`scan_allowance_exceeded`, not retryable until " +
          'the allowance is raised or the month ends; nothing was saved; the `Scan-Allowance-*` headers say what is left), the ' +
          'Idempotency-Key was used with a different body (`idempotency_key_reused`), or its first request is still ' +
          'running (`idempotency_request_in_progress`, retryable).',
        examples: { ...ALLOWANCE_EXCEEDED, ...WRITE_CONFLICTS },
        headers: allowanceHeaders(),
      },
      422: {
        description: 'The body is invalid (`validation_failed`); `details` name the rows and fields, never the values. Nothing was changed.',
        examples: one(
          'Invalid rows',
          E('validation_failed', 'The report could not be created: the body is invalid (see details). Nothing was changed.', {
            details: [
              { field: 'company.pronet_company_url', code: 'invalid_url' },
              { row_number: 2, field: 'pronet_url', code: 'invalid_url' },
            ],
          }),
        ),
      },
    },
    requestExamples: {
      create: { summary: 'A report with people (row 3 repeats row 1)', value: ex.createReportBody },
      return_existing: { summary: 'Return existing reports for the company instead of creating one', value: ex.createReportReturnExisting },
    },
    success: {
      201: {
        description: 'Created: report, queued scans and one row per submitted person. `Location` is the report.',
        examples: one('Created with two people and a duplicate row', ex.createdReport),
        headers: { Location: ref('Location'), 'Idempotency-Replayed': ref('IdempotencyReplayed') },
      },
      200: {
        description:
          '`on_existing: return_existing` matched: up to 100 existing reports (continue with GET /reports, `company_root_domain` and `include_archived=true`).',
        examples: one('Existing report', ex.existingReports),
        headers: { 'Idempotency-Replayed': ref('IdempotencyReplayed') },
      },
    },
  },
  'GET /api/v1/reports/{report_id}': {
    operationId: 'getReport',
    scopes: 'reports:read',
    description: 'One report (2.4, 4.5).',
    errors: READ,
    parameters: REPORT_ID,
    success: { 200: { description: 'The report.', examples: one('A report', { data: ex.report, request_id: ex.ids.request }) } },
  },
  'GET /api/v1/reports/{report_id}/profiles': {
    operationId: 'listReportProfiles',
    scopes: 'profiles:read',
    description: "The report's roster: active attachments only, newest first (2.5, 4.6).",
    errors: READ,
    parameters: { ...REPORT_ID, ...LIST_PARAMS('the roster') },
    success: { 200: { description: 'One page of the roster.', examples: one('A page with more to follow', ex.profileList) } },
  },
  'GET /api/v1/reports/{report_id}/scans/{scan_run_id}': {
    operationId: 'getScan',
    scopes: 'reports:read',
    description: 'One scan run and its counts (2.6, 4.7). Reading never starts a scan. Poll with slowing intervals and honour `Retry-After`.',
    errors: READ,
    parameters: {
      ...REPORT_ID,
      scan_run_id: { description: 'The scan run (uuid), from `scan_requests` of a creation or import.', example: ex.ids.fullScan },
    },
    success: { 200: { description: 'The scan run.', examples: one('A running scan', ex.scan) } },
  },
  'POST /api/v1/reports/{report_id}/profile-imports': {
    operationId: 'createProfileImport',
    scopes: '`reports:read`, `profiles:add`',
    description: [
      'Imports 1-100 people into a report (4.8). The whole batch is validated first.',
      'With `validation_only=true` it returns a preview (200) and changes nothing (no roster change, receipt or scan), but counts against request admission.',
      'A commit returns the receipt (201) with `Location`; added and restored people get both scans queued. Archived reports are 409 `report_archived`.',
      'The Idempotency-Key (required for commits) is scoped to workspace, operation and report; the same body ' +
        'replays the receipt for 30 days with `Idempotency-Replayed: true`.',
    ].join(' '),
    errors: WRITE,
    idempotencyKey: 'optional',
    parameters: {
      ...REPORT_ID,
      validation_only: { description: 'Preview only (default false): nothing is changed and no Idempotency-Key is needed.', example: true },
    },
    errorDocs: {
      409: {
        description:
          "The report is archived (`report_archived`), the people would exceed the workspace's scan allowance this month " +
          '(`scan_allowance_exceeded`, not retryable until the allowance is raised or the month ends; nothing was saved; the ' +
          '`Scan-Allowance-*` headers say what is left), the Idempotency-Key was used with a different body ' +
          '(`idempotency_key_reused`), or its first request still runs (`idempotency_request_in_progress`, retryable).',
        examples: {
          report_archived: { summary: 'Archived report', value: E('report_archived', errorMessage('report_archived', { action: 'importing people' })) },
          ...ALLOWANCE_EXCEEDED,
          ...WRITE_CONFLICTS,
        },
        headers: allowanceHeaders(),
      },
      422: {
        description:
          'Rows are invalid (`import_validation_failed`, not retryable); `details` name row numbers, fields and codes, never the values. Nothing was changed.',
        examples: one(
          'Invalid rows',
          E('import_validation_failed', 'The import was rejected: some rows are invalid (see details). Nothing was changed.', {
            retryable: false,
            details: [
              { row_number: 2, field: 'pronet_url', code: 'invalid_url' },
              { row_number: 3, field: 'name', code: 'too_long' },
            ],
          }),
        ),
      },
    },
    requestExamples: { import: { summary: 'Two people, one already on the roster', value: ex.importBody } },
    success: {
      200: {
        description:
          'Preview (`validation_only=true`). The commit would use at most `would_queue_profiles` profile scans of the ' +
          "workspace's allowance; the `Scan-Allowance-*` headers say what is left this month. A preview reserves nothing.",
        examples: one('Preview', ex.importPreview),
        headers: { 'Idempotency-Replayed': ref('IdempotencyReplayed'), ...allowanceHeaders() },
      },
      201: {
        description: 'Committed (or replayed) receipt. `Location` is the saved receipt.',
        examples: one('Receipt', ex.importReceipt),
        headers: { Location: ref('Location'), 'Idempotency-Replayed': ref('IdempotencyReplayed') },
      },
    },
  },
  'POST /api/v1/reports/{report_id}/refreshes': {
    operationId: 'createRefresh',
    scopes: '`reports:read`, `profiles:add`',
    description: [
      "Extension: scans a report's people again. Queues a `full_profile` and an `activity` scan for every active person",
      '(or the `profile_ids` named) and the company page, as an import admits them: joined to still-queued runs, people',
      'already pending are coalesced and cost nothing, the others are charged to the scan allowance. The roster and the',
      'stored results do not change; until the scans finish the summary stays readable, freshness `stale` with the reason',
      "`refresh_in_progress`. Idempotent like the contract's writes: the Idempotency-Key is scoped to workspace, operation",
      'and report; the same body replays the first answer with `Idempotency-Replayed: true`. Counts against the write limits.',
    ].join(' '),
    errors: WRITE,
    idempotencyKey: 'required',
    parameters: REPORT_ID,
    errorDocs: {
      409: {
        description:
          "The report is archived (`report_archived`), the people would exceed the workspace's scan allowance this month " +
          '(`scan_allowance_exceeded`; nothing was queued), or the Idempotency-Key was used with a different body ' +
          '(`idempotency_key_reused`) or is still running (`idempotency_request_in_progress`, retryable).',
        examples: {
          report_archived: {
            summary: 'Archived report',
            value: E('report_archived', 'The report is archived; unarchive it before scanning its people again.'),
          },
          ...ALLOWANCE_EXCEEDED,
          ...WRITE_CONFLICTS,
        },
        headers: allowanceHeaders(),
      },
      422: {
        description:
          'The body is invalid, names someone who is not an active person of the report, or the report has nobody to scan (`validation_failed`). Nothing was queued.',
        examples: one(
          'Not on the report',
          E('validation_failed', 'Some people are not active on this report; nothing was queued.', {
            retryable: false,
            details: [{ field: 'profile_ids[1]', code: 'not_on_report' }],
          }),
        ),
      },
    },
    requestExamples: {
      report: { summary: 'Every active person (the body may also be omitted)', value: {} },
      people: { summary: 'Chosen people', value: { profile_ids: [ex.ids.jane] } },
    },
    success: {
      201: {
        description: 'Queued (or replayed): the people asked for, those queued, and the scan runs joined or created.',
        examples: one('Two people, one of them already pending', {
          data: {
            id: ex.ids.import,
            report_id: ex.ids.report,
            people_requested: 2,
            people_queued: 1,
            scan_requests: [
              { scan_run_id: ex.ids.fullScan, mode: 'full_profile', jobs_created: 1, jobs_coalesced: 1 },
              { scan_run_id: ex.ids.activityScan, mode: 'activity', jobs_created: 2, jobs_coalesced: 1 },
            ],
            created_at: '2026-03-02T09:00:00.000Z',
          },
          request_id: ex.ids.request,
        }),
        headers: { 'Idempotency-Replayed': ref('IdempotencyReplayed') },
      },
    },
  },
  'GET /api/v1/reports/{report_id}/profile-imports/{import_id}': {
    operationId: 'getProfileImport',
    scopes: 'imports:read',
    description: 'A saved import receipt (4.9): immutable contents, not live scan status. 410 after 30 days.',
    errors: [...READ.slice(0, 4), 410, ...READ.slice(4)],
    parameters: { ...REPORT_ID, import_id: { description: 'The import receipt (uuid).', example: ex.ids.import } },
    success: { 200: { description: 'The receipt.', examples: one('Receipt', ex.importReceipt) } },
  },
  'GET /api/v1/reports/{report_id}/evidence/{image_id}': {
    operationId: 'downloadEvidence',
    scopes: '`reports:read`, `analysis:read`, `profiles:read`',
    description:
      'Downloads an evidence image: use the `url` (or `preview_url`) of a findings `evidence.images[]` entry with ' +
      'the bearer header, from a trusted server (4.12). JPEG, PNG or WebP, up to 10 MiB. Access and key status are ' +
      'rechecked on every download.',
    errors: READ,
    analysis: true,
    parameters: {
      ...REPORT_ID,
      image_id: { description: 'The evidence image (uuid), as found in the image url.', example: ex.ids.image },
      variant: { description: '`original` (default) or `preview`.', example: 'preview' },
    },
    errorDocs: {
      404: {
        description: 'A foreign, removed or obsolete reference (`not_found`), or media that is missing or changed (`evidence_unavailable`).',
        examples: {
          not_found: {
            summary: 'Unknown reference',
            value: E('not_found', 'The evidence image does not exist or is not visible to this key.', {
              retryable: false,
              next_action: 'check_identifiers',
            }),
          },
          evidence_unavailable: {
            summary: 'Media missing or changed',
            value: E('evidence_unavailable', 'The media of this evidence image is no longer available.', {
              retryable: false,
              next_action: 'reread_analysis',
            }),
          },
        },
      },
    },
    success: {},
  },
  'GET /api/v1/reports/{report_id}/analysis': {
    operationId: 'getAnalysisSummary',
    scopes: '`reports:read`, `analysis:read`',
    description:
      'The stored analysis summary (2.9, 4.10): availability, coverage, work state, freshness, optimization totals ' +
      'and the revisions used for reconciliation (4.13). Reads stored data only; a report without results is 200 ' +
      'with empty values.',
    errors: READ,
    analysis: true,
    parameters: REPORT_ID,
    success: {
      200: {
        description: 'The summary.',
        examples: {
          completed: { summary: 'All work finished', value: ex.analysisSummary },
          processing: { summary: 'Work still running', value: ex.summaryInProgress },
        },
      },
    },
  },
  'GET /api/v1/reports/{report_id}/analysis/profiles': {
    operationId: 'listAnalysisProfiles',
    scopes: '`reports:read`, `analysis:read`, `profiles:read`',
    description:
      'Per-person findings, one record per active attachment, ordered by `profile_id` (2.9, 4.11). Unanalyzed people ' +
      'are present with `analysis: null` and a `reason`. Follow the top-level `next_cursor` until null; a changed ' +
      'revision during the traversal is 409 `results_changed`.',
    errors: [...READ.slice(0, 4), 409, 422, ...READ.slice(4)],
    analysis: true,
    parameters: {
      ...REPORT_ID,
      ...ANALYSIS_PARAMS,
      limit: { description: 'Records per page, 1-25 (default 10). Pages may hold fewer records to stay under 2 MiB.', example: 25 },
      profile_id: { description: 'Only this attachment (404 when it is not an active attachment of the report).', example: ex.ids.jane },
    },
    errorDocs: { 409: RESULTS_CHANGED, 422: RESULT_TOO_LARGE },
    success: { 200: { description: 'One page of findings.', examples: one('Two people, one analyzed', ex.findingsPage) } },
  },
  'GET /api/v1/reports/{report_id}/analysis/activity': {
    operationId: 'listAnalysisActivity',
    scopes: '`reports:read`, `analysis:read`, `profiles:read`',
    description:
      'Stored activity events (posts, reposts, comments, reactions), ordered by id (2.9, 4.11a). An empty page does ' +
      'not prove that no activity exists: see the summary coverage and limitations.',
    errors: [...READ.slice(0, 4), 409, 422, ...READ.slice(4)],
    analysis: true,
    parameters: {
      ...REPORT_ID,
      ...ANALYSIS_PARAMS,
      limit: { description: 'Events per page, 1-100 (default 25).', example: 100 },
      profile_id: { description: "Only this attachment's events.", example: ex.ids.jane },
      event_type: { description: 'Only events of this type.', example: 'post' },
      occurred_from: {
        description: 'RFC 3339 with offset, inclusive. With a date filter, events of unknown date are excluded.',
        example: '2026-02-01T00:00:00Z',
      },
      occurred_to: { description: 'RFC 3339 with offset, exclusive.', example: '2026-03-01T00:00:00Z' },
    },
    errorDocs: {
      409: {
        ...RESULTS_CHANGED,
        examples: one(
          'Collection changed',
          E('results_changed', 'The collection changed since the traversal started; restart from the first page.', {
            retryable: true,
            next_action: 'restart_traversal',
          }),
        ),
      },
      422: RESULT_TOO_LARGE,
    },
    success: { 200: { description: 'One page of events.', examples: one('Last page', ex.activityPage) } },
  },
};

// ---------------------------------------------------------------- transforms

function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((k) => value[k] !== undefined && k !== '$id' && k !== '$schema')
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Replaces every inline copy of a named schema by a $ref (the roots of components excepted). */
function hoistSchemas(doc: Json): void {
  const byShape = new Map<string, string>();
  for (const [name, schema] of Object.entries(NAMED_SCHEMAS)) byShape.set(canonical(JSON.parse(JSON.stringify(schema))), name);
  const replace = (node: Json, isRoot: boolean): Json => {
    if (Array.isArray(node)) return node.map((n) => replace(n, false));
    if (!node || typeof node !== 'object') return node;
    if (!isRoot) {
      const name = byShape.get(canonical(node));
      if (name) return { $ref: `#/components/schemas/${name}` };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === 'example' || k === 'examples' ? v : replace(v, false);
    return out;
  };
  const schemas: Json = (doc.components.schemas ??= {});
  for (const [name, schema] of Object.entries(NAMED_SCHEMAS)) schemas[name] = replace(JSON.parse(JSON.stringify(schema)), true);
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(item)) {
      for (const content of [op.requestBody?.content, ...Object.values<Json>(op.responses ?? {}).map((r) => r.content)]) {
        for (const media of Object.values<Json>(content ?? {})) if (media.schema) media.schema = replace(media.schema, false);
      }
    }
  }
}

/** `anyOf` of string literals → `enum` (what TypeBox writes for a union of literals). */
function simplify(node: Json): Json {
  if (Array.isArray(node)) return node.map(simplify);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'example' || k === 'examples' ? v : simplify(v);
  const members = out.anyOf;
  if (
    Array.isArray(members) &&
    members.length > 1 &&
    members.every((m: Json) => m && typeof m === 'object' && Object.keys(m).sort().join() === 'const,type' && m.type === members[0].type)
  ) {
    const { anyOf: _, ...rest } = out;
    return { ...rest, type: members[0].type, enum: members.map((m: Json) => m.const) };
  }
  return out;
}

function errorResponse(status: number, doc: OperationDoc): Json {
  const custom = doc.errorDocs?.[status];
  // A request without a valid key was not counted: its 401 carries no RateLimit.
  const headers: Json = { ...(status === 401 ? baseHeaders() : limitHeaders()), ...custom?.headers };
  if (status === 429) headers['Retry-After'] = ref('RetryAfter');
  if (status === 401) headers['WWW-Authenticate'] = ref('WwwAuthenticate');
  return {
    description: custom?.description ?? ERROR_DESCRIPTIONS[status],
    headers,
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        examples: custom?.examples ?? defaultErrorExamples(status, doc.analysis === true),
      },
    },
  };
}

function completeOperation(op: Json, doc: OperationDoc): void {
  op.operationId = doc.operationId;
  op.description = `${doc.description}\n\nScopes: ${doc.scopes.includes('`') ? doc.scopes : `\`${doc.scopes}\``}.`;
  op.security = [{ bearer: [] }];

  const params: Json[] = op.parameters ?? [];
  for (const param of params) {
    if (param.in === 'query' && param.schema && 'default' in param.schema) param.required = false;
    // A parameter without metadata stays undescribed; the lint test requires a description for each.
    const meta = doc.parameters?.[param.name];
    if (!meta) continue;
    param.description = meta.description;
    if (meta.example !== undefined) param.example = meta.example;
  }
  if (doc.idempotencyKey) {
    params.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: doc.idempotencyKey === 'required',
      description:
        doc.idempotencyKey === 'required'
          ? 'Required. One key per intended write; reuse it only to retry that same request (same body). 1-128 characters ' +
            'from letters, digits, `.`, `_`, `:`, `-`.'
          : 'Required for commits, ignored with `validation_only=true`. One key per intended commit; reuse it only to ' +
            'recover that request. 1-128 characters from letters, digits, `.`, `_`, `:`, `-`.',
      schema: IDEMPOTENCY_KEY_SCHEMA,
      example: 'import-2026-03-02-a',
    });
  }
  if (params.length > 0) op.parameters = params;

  if (op.requestBody) {
    op.requestBody.description = 'JSON only (`Content-Type: application/json`), at most 1 MiB; unknown fields are rejected.';
    if (doc.requestExamples) op.requestBody.content['application/json'].examples = doc.requestExamples;
  }

  const generated: Json = op.responses ?? {};
  const responses: Json = {};
  if (doc.operationId === 'downloadEvidence') {
    const binary = { schema: { type: 'string', format: 'binary', maxLength: 10485760 } };
    responses['200'] = {
      description: 'The image bytes (JPEG, PNG or WebP).',
      headers: { ...limitHeaders(), 'Content-Length': ref('ContentLength') },
      content: { 'image/jpeg': binary, 'image/png': binary, 'image/webp': binary },
    };
  }
  for (const [status, success] of Object.entries(doc.success)) {
    // Only statuses the route declares (its response schema); the lint test checks each operation has a 2XX.
    const schema = generated[status]?.content?.['application/json']?.schema;
    if (!schema) continue;
    responses[status] = {
      description: success.description,
      headers: { ...limitHeaders(), ...success.headers },
      content: { 'application/json': { schema, examples: success.examples } },
    };
  }
  for (const status of doc.errors) responses[String(status)] = errorResponse(status, doc);
  op.responses = responses;
}

/** `transformObject` of @fastify/swagger: completes the generated document (see the module comment); `serverUrl` replaces `servers[0].url`. */
export function completeOpenApiDocument(documentObject: Parameters<NonNullable<FastifyDynamicSwaggerOptions['transformObject']>>[0], serverUrl?: string): Json {
  const doc: Json = structuredClone((documentObject as { openapiObject: Json }).openapiObject);
  // The server's address is known only once it listens (PORT=0); the document is built on first request.
  if (serverUrl) doc.servers = [serverOf(serverUrl)];
  doc.components = { ...doc.components, headers: HEADERS };
  // The document describes API v1; web pages and operational endpoints (/livez, /metrics, …) are not part of it.
  for (const path of Object.keys(doc.paths ?? {})) if (!path.startsWith('/api/v1/')) delete doc.paths[path];
  hoistSchemas(doc);
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const key = `${method.toUpperCase()} ${path}`;
      const meta = OPERATIONS[key];
      // An operation without metadata keeps what the route declares; the lint test fails on it (no operationId).
      if (meta) completeOperation(op, meta);
    }
  }
  return simplify(doc);
}
