/** Report (2.4), Profile (2.5), Scan (2.6), CreateReport (2.7) and the write responses (2.8). */
import { Type, type Static } from '@sinclair/typebox';
import { BuiltUri, Count, Cursor, DateTime, ListEnvelope, Nullable, SingleEnvelope, StoredText, Text, Uri, Uuid } from './common.js';

const strict = { additionalProperties: false } as const;
const ScanMode = Type.Union([Type.Literal('full_profile'), Type.Literal('activity')]);
/** A row of a write: 1-100 (contract section 8, `profiles_per_write_max`). */
const RowNumber = Type.Integer({ minimum: 1, maximum: 100, format: 'int32' });

export const Report = Type.Object(
  {
    id: Uuid,
    workspace_id: Uuid,
    name: StoredText(200),
    company: Type.Object(
      { name: StoredText(200), supplied_domain: StoredText(2048), root_domain: Nullable(StoredText(2048)), pronet_company_url: Uri },
      strict,
    ),
    visibility: Type.Union([Type.Literal('private'), Type.Literal('public')]),
    archived: Type.Boolean(),
    analysis_state: Type.Union(['not_requested', 'queued', 'running', 'available', 'failed'].map((s) => Type.Literal(s))),
    profile_count: Count,
    analyzed_profile_count: Count,
    public_url: Nullable(BuiltUri),
    workspace_url: BuiltUri,
    created_at: DateTime,
    updated_at: DateTime,
  },
  strict,
);
export type Report = Static<typeof Report>;

export const Profile = Type.Object(
  {
    id: Uuid,
    report_id: Uuid,
    pronet_url: Uri,
    // As supplied: 200 / 200 / 500 through the API and the web; people of other sources (ops, migration) may carry longer.
    name: Nullable(StoredText()),
    title: Nullable(StoredText()),
    headline: Nullable(StoredText()),
    source: Type.Union(['urls', 'finder', 'ops', 'migration', 'api_import'].map((s) => Type.Literal(s))),
    analysis_available: Type.Boolean(),
    added_at: DateTime,
  },
  strict,
);
export type Profile = Static<typeof Profile>;

export const Scan = Type.Object(
  {
    id: Uuid,
    report_id: Uuid,
    mode: ScanMode,
    status: Type.Union(['queued', 'running', 'completed', 'partial', 'failed', 'inaccessible', 'cancelled'].map((s) => Type.Literal(s))),
    counts: Type.Object(
      {
        requested: Count,
        completed: Count,
        warnings: Count,
        failed: Count,
      },
      strict,
    ),
    created_at: DateTime,
    started_at: Nullable(DateTime),
    completed_at: Nullable(DateTime),
    terminal_reason: Nullable(Type.Union([Type.Literal('failed'), Type.Literal('inaccessible'), Type.Literal('cancelled')])),
  },
  strict,
);
export type Scan = Static<typeof Scan>;

export const CreateProfile = Type.Object(
  {
    pronet_url: Text({ maxLength: 2048, format: 'uri' }),
    name: Type.Optional(Text({ minLength: 1, maxLength: 200 })),
    title: Type.Optional(Text({ minLength: 1, maxLength: 200 })),
    headline: Type.Optional(Text({ minLength: 1, maxLength: 500 })),
  },
  strict,
);
export type CreateProfile = Static<typeof CreateProfile>;

// pronet_url's `format: uri` documents the field; identity rules (http(s) only)
// are checked by the domain's URL normalization, so the body validator skips it.
export const CreateProfileBody = Type.Object(
  {
    pronet_url: Text({ maxLength: 2048 }),
    name: Type.Optional(Text({ minLength: 1, maxLength: 200 })),
    title: Type.Optional(Text({ minLength: 1, maxLength: 200 })),
    headline: Type.Optional(Text({ minLength: 1, maxLength: 500 })),
  },
  strict,
);

export const CreateReport = Type.Object(
  {
    company: Type.Object(
      {
        name: Text({ minLength: 1, maxLength: 200 }),
        domain: Text({ maxLength: 2048 }),
        pronet_company_url: Text({ maxLength: 2048, format: 'uri' }),
      },
      strict,
    ),
    name: Text({ minLength: 1, maxLength: 200 }),
    visibility: Type.Optional(Type.Union([Type.Literal('private'), Type.Literal('public')], { default: 'private' })),
    on_existing: Type.Optional(Type.Union([Type.Literal('create'), Type.Literal('return_existing')], { default: 'create' })),
    profiles: Type.Optional(Type.Array(CreateProfileBody, { maxItems: 100, default: [] })),
  },
  strict,
);
export type CreateReport = Static<typeof CreateReport>;

export const CreationScan = Type.Object(
  {
    id: Uuid,
    mode: ScanMode,
    status: Type.Literal('queued'),
    person_count: Count,
    company_page_count: Count,
  },
  strict,
);

export const CreationRow = Type.Union([
  Type.Object({ row_number: RowNumber, status: Type.Literal('added'), profile_id: Uuid }, strict),
  Type.Object(
    {
      row_number: RowNumber,
      status: Type.Literal('duplicate_in_input'),
      first_row_number: RowNumber,
    },
    strict,
  ),
]);

export const CreatedReport = Type.Object(
  {
    outcome: Type.Literal('created'),
    report: Report,
    scan_requests: Type.Array(CreationScan, { maxItems: 2 }),
    profiles: Type.Object(
      {
        submitted: Count,
        added: Count,
        duplicate_in_input: Count,
        rows: Type.Array(CreationRow, { maxItems: 100 }),
      },
      strict,
    ),
  },
  strict,
);
export type CreatedReport = Static<typeof CreatedReport>;

export const ExistingReports = Type.Object(
  {
    outcome: Type.Literal('existing'),
    existing_reports: Type.Array(Report, { minItems: 1, maxItems: 100 }),
    next_cursor: Nullable(Cursor),
  },
  strict,
);
export type ExistingReports = Static<typeof ExistingReports>;

export const ReportResponse = SingleEnvelope(Report);
export const ReportList = ListEnvelope(Report);
export const ProfileList = ListEnvelope(Profile);
export const ScanResponse = SingleEnvelope(Scan);
export const CreateReportResponse = SingleEnvelope(Type.Union([CreatedReport, ExistingReports]));

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, format: 'int32' })),
    cursor: Type.Optional(Cursor),
  },
  strict,
);

export const ReportListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, format: 'int32' })),
    cursor: Type.Optional(Cursor),
    company_root_domain: Type.Optional(Text({ minLength: 1, maxLength: 2048 })),
    include_archived: Type.Optional(Type.Boolean({ default: false })),
  },
  strict,
);
