/**
 * Row types of every table, as Kysely sees them. The SQL migrations in
 * ./migrations are the source of truth; keep this file in step with them.
 */
import type { ColumnType, Generated, GeneratedAlways } from 'kysely';
import type { KeyMode } from '../domain/keys.js';
import type { ItemStatus, ScanMode } from '../domain/scan-status.js';
import type { ActivityGap, CollectedActivityEvent, CollectedProfile } from '../domain/collected.js';
import type { StoredFinding } from '../domain/analysis-records.js';
import type { CheckTotals, Contribution, Totals } from '../domain/analysis-aggregate.js';
import type { ImportReceipt } from '../domain/schemas/import.js';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A json/jsonb column: read as `T` (pg parses it), written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export interface SettingsTable {
  key: string;
  value: string;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  slug: string;
  status: 'active';
  api_access: Generated<boolean>;
  writes_per_minute_per_key: number | null;
  writes_per_minute_per_workspace: number | null;
  submitted_profiles_per_minute_per_workspace: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Profile scans per calendar month (UTC); null = unlimited (migration 0025). */
  scan_allowance: Generated<number | null>;
}

export interface UsersTable {
  id: string;
  workspace_id: string;
  name: string;
  /** Migration 0046 adds viewer. */
  role: 'owner' | 'admin' | 'member' | 'viewer';
  created_at: Timestamp;
  /** Migration 0020 (web workspace): the membership's removal. */
  removed_at: Generated<Date | null>;
  /** Migration 0047: the separator of the user's CSV exports (web/people-csv.ts). */
  csv_separator: Generated<'comma' | 'semicolon'>;
  /** Migration 0049: the account this membership belongs to (one account, several workspaces). */
  account_id: string;
}

/** Who signs in (migration 0049): an email and an argon2id hash, with a membership (users) per workspace. */
export interface AccountsTable {
  id: string;
  email: string | null;
  password_hash: string | null;
  password_changed_at: Date | null;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  user_id: string;
  mode: KeyMode;
  scopes: string[];
  secret_hash: Buffer;
  secret_prefix: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
  /** Migration 0020: recorded at most once a minute per key and process. */
  last_used_at: Generated<Date | null>;
}

export interface RateCountersTable {
  bucket: string;
  window_start: Timestamp;
  count: number;
}

export interface ReportsTable {
  id: string;
  workspace_id: string;
  name: string;
  company_name: string;
  supplied_domain: string;
  root_domain: string | null;
  pronet_company_url: string;
  visibility: 'private' | 'public';
  public_token: string | null;
  archived: boolean;
  /** When it was archived; null while active. */
  archived_at: Generated<Date | null>;
  profile_count: Generated<number>;
  analyzed_profile_count: Generated<number>;
  analysis_state: ColumnType<AnalysisState, AnalysisState | undefined, AnalysisState>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The version of the company page's stored observation, bumped by the statement that ends its item (migration 0037). */
  company_version: Generated<string>;
  /** The company's name in advice, web only (migration 0047); null: derived from company_name (domain/company-name.ts). */
  display_company_name: Generated<string | null>;
}

export type AnalysisState = 'not_requested' | 'queued' | 'running' | 'available' | 'failed';

export type ProfileSource = 'urls' | 'finder' | 'ops' | 'migration' | 'api_import';

export interface ReportProfilesTable {
  id: string;
  report_id: string;
  workspace_id: string;
  pronet_url: string;
  name: string | null;
  title: string | null;
  headline: string | null;
  /** The other columns of a web CSV import, by header (migration 0030); {} when none. */
  imported_columns: ColumnType<Record<string, string>, string | undefined, string>;
  source: ProfileSource;
  status: 'active' | 'removed';
  analysis_available: Generated<boolean>;
  /**
   * Bumped by every transaction that changes the person's facts under the
   * attachment lock (src/store/locks.ts); a finishing item's one statement
   * checks it against its read (migration 0035, queue/finish.ts).
   */
  facts_version: Generated<string>;
  added_at: Timestamp;
  removed_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProfileEventsTable {
  id: Generated<string>;
  profile_id: string;
  event: 'added' | 'removed' | 'restored';
  source: string | null;
  import_id: string | null;
  at: Timestamp;
}

export interface IdempotencyRecordsTable {
  workspace_id: string;
  operation: string;
  scope: string;
  key: string;
  fingerprint: string;
  status_code: number;
  /** The answer's `data` as it was sent (any resource: the caller knows which). */
  response: Json<unknown>;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface ImportReceiptsTable {
  id: string;
  report_id: string;
  workspace_id: string;
  /** null once tombstoned (expired; migration 0012): the row then only answers 410. */
  receipt: Json<ImportReceipt> | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  tombstoned_at: Timestamp | null;
}

export type { ItemStatus, KeyMode, ScanMode };
export type ScanStatus = 'queued' | 'running' | 'completed' | 'partial' | 'failed' | 'inaccessible' | 'cancelled';

export interface ScanRunsTable {
  id: string;
  report_id: string;
  workspace_id: string;
  mode: ScanMode;
  key_mode: KeyMode;
  status: ScanStatus;
  requested: Generated<number>;
  completed: Generated<number>;
  warnings: Generated<number>;
  failed: Generated<number>;
  /** Maintained counts (migration 0019): pending + running, inaccessible, cancelled. */
  unfinished: Generated<number>;
  inaccessible: Generated<number>;
  cancelled: Generated<number>;
  created_at: Timestamp;
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
  terminal_reason: 'failed' | 'inaccessible' | 'cancelled' | null;
  /** A scheduled refresh's run (migration 0052): background work, which other work joins never. */
  background: Generated<boolean>;
}

export interface ScanItemsTable {
  id: string;
  run_id: string;
  report_id: string;
  profile_id: string | null;
  kind: 'person' | 'company_page';
  status: ItemStatus;
  attempts: Generated<number>;
  warning: Generated<boolean>;
  reason: string | null;
  created_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  /** Pending: claimable from this instant (admission, retry backoff or a provider's Retry-After). */
  ready_at: Timestamp;
  /** Running: the current claim, and (items without a worker heartbeat only) until when its lease holds it. */
  claim_id: string | null;
  lease_expires_at: Timestamp | null;
  /** The worker process holding a running item (migration 0027); null: held by its lease. */
  worker_id: string | null;
  /** Why a succeeded person's item did not observe the activity it was asked for (migration 0044); null otherwise. */
  activity_gap: ActivityGap | null;
  /** Its run's lane (migration 0052): background items are claimed after every other item (migration 0053). */
  background: Generated<boolean>;
  /** Its run's mode and created_at (migration 0056), which its reference to the run includes: a person's latest item per mode by index order. */
  run_mode: ScanMode;
  run_created_at: Timestamp;
}

export interface EvidenceImagesTable {
  id: string;
  report_id: string;
  profile_id: string | null;
  item_id: string;
  section: string;
  original_sha256: string;
  original_size: number;
  original_type: string;
  preview_sha256: string;
  preview_size: number;
  preview_type: string;
  obsolete: Generated<boolean>;
  /** When it became obsolete (migration 0012). */
  obsolete_at: Timestamp | null;
  created_at: Timestamp;
  /** Migration 0023: bytes from the source, or a card rendered from the observed data. */
  origin: 'captured' | 'rendered';
  /** Migration 0029: displayed sizes (null for images stored before it). */
  original_width: number | null;
  original_height: number | null;
  preview_width: number | null;
  preview_height: number | null;
}

/** One row (migration 0012; src/maintenance.ts). */
export interface MaintenanceStateTable {
  id: Generated<boolean>;
  media_gc_generation: Generated<number>;
  last_run_at: Timestamp | null;
}

export interface ProfileAnalysesTable {
  profile_id: string;
  report_id: string;
  item_id: string;
  catalog_version: string;
  profile_data: Json<CollectedProfile>;
  findings: Json<StoredFinding[]>;
  good: number;
  optimize: number;
  unknown: number;
  captured_at: Timestamp;
  available_at: Timestamp;
  revision: string;
  visible: Generated<boolean>;
  /** The findings record's `analysis` member as JSON text, a template (src/domain/findings-text.ts; migration 0011). */
  analysis_json: string | null;
  /** ANALYSIS_TEXT_FORMAT of analysis_json; another value means "build the record from findings". */
  analysis_format: string | null;
}

export interface ActivityEventsTable {
  id: string;
  report_id: string;
  profile_id: string | null;
  external_id: string;
  event_type: 'post' | 'repost' | 'comment' | 'reaction' | 'unknown';
  actor_kind: 'person' | 'company_page';
  actor: Json<CollectedActivityEvent['actor']>;
  source_url: string | null;
  text: string | null;
  occurred_at: Timestamp | null;
  counts: Json<CollectedActivityEvent['counts']>;
  provenance: 'scanner' | 'legacy' | 'unknown';
  captured_at: Timestamp | null;
  available_at: Timestamp | null;
  updated_at: Timestamp | null;
  revision: string;
  content_hash: string;
  /** profile_id, or NIL_SUBJECT for the company page (generated). */
  subject: GeneratedAlways<string>;
}

/** `activity_events.subject` of company-page events (its generated column: `coalesce(profile_id, nil)`). */
export const NIL_SUBJECT = '00000000-0000-0000-0000-000000000000';

export interface ActivityCoverageTable {
  profile_id: string;
  report_id: string;
  item_id: string;
  event_count: number;
  captured_at: Timestamp;
  available_at: Timestamp;
  visible: Generated<boolean>;
}

/** Each attachment's last applied contribution to report_aggregates (domain/analysis-aggregate.ts). */
export interface ProfileContributionsTable {
  profile_id: string;
  report_id: string;
  contribution: Json<Contribution>;
}

/** A roll-up change not yet folded into report_aggregates, scan_runs and reports (migration 0021). */
export interface RollupDeltasTable {
  id: GeneratedAlways<number>;
  report_id: string;
  run_id: string | null;
  started: Generated<boolean>;
  finished: 'succeeded' | 'failed' | 'inaccessible' | 'cancelled' | null;
  warning: Generated<boolean>;
  totals: Json<Totals> | null;
  at: Timestamp;
  created_at: Generated<Timestamp>;
  /** A person whose contribution the fold recomputes (a begun item's; migration 0031). */
  recompute_profile_id: string | null;
  /** The fold recomputes the company page's contribution (its item begun or ended; migration 0037). */
  recompute_company: Generated<boolean>;
}

export interface ReportAggregatesTable {
  report_id: string;
  totals: Json<Totals>;
  company: Json<Contribution> | null;
  updated_at: Timestamp;
}

export interface CompanyContextTable {
  report_id: string;
  item_id: string;
  name: string | null;
  tagline: string | null;
  industry: string | null;
  follower_count: number | null;
  website: string | null;
  captured_at: Timestamp;
  available_at: Timestamp;
}

/** Request counts of a minute per workspace and kind, spread over slots (migration 0011, unlogged: a crash forgets at most a minute's counts). */
export interface RequestCountersTable {
  workspace_id: string;
  kind: 'read' | 'write';
  window_start: Timestamp;
  slot: number;
  total: number;
  /** key id → requests of that key counted in this slot. */
  per_key: ColumnType<Record<string, number>, string, string>;
}

export interface Database {
  settings: SettingsTable;
  workspaces: WorkspacesTable;
  scan_allowance_usage: ScanAllowanceUsageTable;
  users: UsersTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  rate_counters: RateCountersTable;
  request_counters: RequestCountersTable;
  reports: ReportsTable;
  report_profiles: ReportProfilesTable;
  profile_events: ProfileEventsTable;
  idempotency_records: IdempotencyRecordsTable;
  import_receipts: ImportReceiptsTable;
  scan_runs: ScanRunsTable;
  scan_items: ScanItemsTable;
  evidence_images: EvidenceImagesTable;
  maintenance_state: MaintenanceStateTable;
  profile_analyses: ProfileAnalysesTable;
  activity_events: ActivityEventsTable;
  activity_coverage: ActivityCoverageTable;
  company_context: CompanyContextTable;
  report_aggregates: ReportAggregatesTable;
  profile_contributions: ProfileContributionsTable;
  rollup_deltas: RollupDeltasTable;
  provider_call_slots: ProviderCallSlotsTable;
  provider_call_schedule: ProviderCallScheduleTable;
  provider_record_budget: ProviderRecordBudgetTable;
  brightdata_snapshots: BrightDataSnapshotsTable;
  brightdata_snapshot_workspaces: BrightDataSnapshotWorkspacesTable;
  provider_breakers: ProviderBreakersTable;
  brightdata_company_pages: BrightDataCompanyPagesTable;
  provider_usage: ProviderUsageTable;
  queue_workspaces: QueueWorkspacesTable;
  scan_workers: ScanWorkersTable;
  database_epochs: DatabaseEpochsTable;
  queue_reports: QueueReportsTable;
  report_refresh_schedules: ReportRefreshSchedulesTable;
  web_sessions: WebSessionsTable;
  access_links: AccessLinksTable;
  person_links: PersonLinksTable;
  blob_deletions: BlobDeletionsTable;
  audit_log: AuditLogTable;
  function_definitions: FunctionDefinitionsTable;
  person_scan_history: PersonScanHistoryTable;
  report_snapshots: ReportSnapshotsTable;
}

/** The text of each file of src/store/functions the database runs (migration 0050; store/migrator.ts). */
export interface FunctionDefinitionsTable {
  file: string;
  /** sha256 of the file's text, hex. */
  checksum: string;
  applied_at: Timestamp;
}

/** A person's analysis as it stood with one observation of their profile (migration 0054; store/history-repository.ts). */
export interface PersonScanHistoryTable {
  item_id: string;
  seq: GeneratedAlways<number>;
  report_id: string;
  profile_id: string;
  scanned_at: Timestamp;
  captured_at: Timestamp;
  updated_at: Timestamp;
  good: number;
  optimize: number;
  unknown: number;
  outcomes: Json<Record<string, 'good' | 'optimize' | 'unknown'>>;
  /** Whether since_previous was computed (migration 0058). */
  compared: Generated<boolean>;
  /** What changed since the person's previous scan; null for a first scan (or not compared yet). */
  since_previous: Json<StoredSincePrevious> | null;
  /** Whether score_pct was computed (migration 0059). */
  scored: Generated<boolean>;
  /** The scan's weighted score (domain/progress.ts, scanScorePct); null when no check was answered (or not scored yet). */
  score_pct: number | null;
}

/** What changed since a person's previous scan, as person_scan_history stores it (domain/progress.ts, SincePrevious). */
export interface StoredSincePrevious {
  fixed: string[];
  opened: string[];
  previous_score_pct: number | null;
  change_pct: number | null;
}

/** The team's picture when a round of scans completed (migration 0054; store/history-repository.ts). */
export interface ReportSnapshotsTable {
  id: GeneratedAlways<number>;
  report_id: string;
  run_id: string;
  completed_at: Timestamp;
  persons: number;
  analyzed: number;
  answered_persons: number;
  checks: Json<Record<string, CheckTotals>>;
  /** Whether the round's figures (domain/progress.ts, roundFigures) are stored (migration 0060). */
  pointed: Generated<boolean>;
  score_pct: number | null;
  top_gaps: string[] | null;
}

/** Web workspace sessions (migration 0020; store/session-repository.ts). */
export interface BlobDeletionsTable {
  sha256: string;
  enqueued_at: Timestamp;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_error: string | null;
}

export interface AuditLogTable {
  id: GeneratedAlways<number>;
  at: Timestamp;
  workspace_ref: string | null;
  actor_kind: 'user' | 'operator' | 'maintenance';
  actor_ref: string | null;
  action: string;
  object_kind: string;
  object_ref: string | null;
  count: number | null;
}

export interface WebSessionsTable {
  token_hash: Buffer;
  user_id: string;
  workspace_id: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
}

/** Private links to one person's page of a report (migration 0046; store/person-link-repository.ts). */
export interface PersonLinksTable {
  id: string;
  token_hash: Buffer;
  report_id: string;
  profile_id: string;
  created_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  last_opened_at: Timestamp | null;
}

/** One-time sign-in and invitation links (migration 0020; store/member-repository.ts). */
export interface AccessLinksTable {
  id: string;
  token_hash: Buffer;
  workspace_id: string;
  purpose: 'sign_in' | 'invitation';
  user_id: string | null;
  role: 'owner' | 'admin' | 'member' | 'viewer' | null;
  label: string | null;
  created_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

/** Profile scans admitted per workspace and UTC month (migration 0025; store/scan-allowance-repository.ts). */
export interface ScanAllowanceUsageTable {
  workspace_id: string;
  /** The month's first day ('YYYY-MM-01'), written as text and never read back (pg would parse a date in local time). */
  month: string;
  used: number;
}

/** Provider records reserved against the daily budget (migration 0024; store/provider-usage-repository.ts). */
export interface ProviderRecordBudgetTable {
  /** The UTC day ('YYYY-MM-DD'), computed by the database and never read back as a date. */
  day: string;
  provider: string;
  reserved: number;
  /** Reserved by calls whose answer is not in yet (migration 0043). */
  in_flight: Generated<number>;
}

/** Bright Data snapshots triggered and not abandoned (migration 0042; store/brightdata-repository.ts). */
export interface BrightDataSnapshotsTable {
  snapshot_id: string;
  provider: string;
  dataset_id: string;
  grp: 'profiles' | 'posts' | 'companies';
  url_keys: string[];
  /** 'YYYY-MM-DD', never read back as a date. */
  reserved_day: string | null;
  reserved: Generated<number>;
  billed: Generated<number>;
  created_at: Generated<Timestamp>;
  delivered_at: Timestamp | null;
}

/** The workspaces a snapshot was bought for: only their items join it (migration 0055). */
export interface BrightDataSnapshotWorkspacesTable {
  snapshot_id: string;
  workspace_id: string;
}

/** Circuit-breaker state per provider (migration 0043; store/brightdata-repository.ts). */
export interface ProviderBreakersTable {
  provider: string;
  state: 'closed' | 'open' | 'half_open';
  reason: string | null;
  since: Generated<Timestamp>;
  updated_at: Generated<Timestamp>;
}

/** Company-page records reused per workspace (migration 0043; store/brightdata-repository.ts). */
export interface BrightDataCompanyPagesTable {
  workspace_id: string;
  url_key: string;
  record: Json<Record<string, unknown>>;
  captured_at: Timestamp;
}

/** Provider records billed per workspace and UTC day (migration 0024; store/provider-usage-repository.ts). */
export interface ProviderUsageTable {
  workspace_id: string;
  day: string;
  provider: string;
  records: number;
}

/** Worker processes and their heartbeats (migration 0027; queue/heartbeat.ts). */
export interface ScanWorkersTable {
  id: string;
  started_at: Generated<Timestamp>;
  heartbeat_at: Generated<Timestamp>;
  host: string | null;
  pid: number | null;
}

/** Incarnations of the database server, and when a claim first met each (migration 0045; claim_scan_item). */
export interface DatabaseEpochsTable {
  started_at: Timestamp;
  timeline: number;
  seen_at: Generated<Timestamp>;
}

/** The queue's index of workspaces with pending work (migration 0026; kept by scan_items triggers and the claim). */
export interface QueueWorkspacesTable {
  workspace_id: string;
  /** Stride pass: claims served so far, from where the workspace joined. */
  pass: Generated<string>;
  ready: Generated<boolean>;
  /** A lower bound of its reports' ready_at (null: no pending work known). */
  ready_at: Timestamp | null;
  /** The lane (migration 0053): scheduled refreshes' work is claimed after every other. */
  background: Generated<boolean>;
}

/** The queue's index of reports with pending work (migration 0026). */
export interface QueueReportsTable {
  report_id: string;
  workspace_id: string;
  pass: Generated<string>;
  ready: Generated<boolean>;
  ready_at: Timestamp | null;
  /** The lane (migration 0053). */
  background: Generated<boolean>;
}

/** Leased provider concurrency slots (migration 0010; store/provider-quota-repository.ts). */
export interface ProviderCallSlotsTable {
  provider: string;
  slot: number;
  holder: string | null;
  expires_at: Timestamp | null;
}

/** Earliest start of the next provider call (migration 0010). */
export interface ProviderCallScheduleTable {
  provider: string;
  next_start_at: Timestamp;
}

/** A report's scheduled refresh (migration 0051; use-cases/refresh-schedule.ts); no row: off. */
export interface ReportRefreshSchedulesTable {
  report_id: string;
  workspace_id: string;
  cadence: 'weekly' | 'monthly';
  next_due_at: Timestamp;
  last_run_at: Timestamp | null;
  last_outcome: 'queued' | 'skipped_allowance' | 'skipped_archived' | 'skipped_empty' | null;
  updated_at: Timestamp;
}
