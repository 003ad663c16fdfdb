-- Reports, roster, idempotency, import receipts, scan runs and their items.

create table reports (
  id uuid primary key,
  workspace_id uuid not null references workspaces(id),
  name text not null,
  company_name text not null,
  supplied_domain text not null,
  root_domain text,
  pronet_company_url text not null,
  visibility text not null check (visibility in ('private', 'public')),
  public_token text unique,
  archived boolean not null default false,
  -- Roll-ups maintained on every write that changes them (never computed on read).
  profile_count integer not null default 0,
  analyzed_profile_count integer not null default 0,
  analysis_state text not null default 'not_requested'
    check (analysis_state in ('not_requested', 'queued', 'running', 'available', 'failed')),
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- Keyset pagination, newest first.
create index reports_list on reports(workspace_id, created_at desc, id desc);
create index reports_root_domain on reports(workspace_id, root_domain);

create table report_profiles (
  id uuid primary key,
  report_id uuid not null references reports(id),
  workspace_id uuid not null references workspaces(id),
  -- Normalized URL; the identity of the person within a report.
  pronet_url text not null,
  name text,
  title text,
  headline text,
  source text not null check (source in ('urls', 'finder', 'ops', 'migration', 'api_import')),
  status text not null check (status in ('active', 'removed')),
  analysis_available boolean not null default false,
  added_at timestamptz not null,
  removed_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (report_id, pronet_url)
);
create index report_profiles_roster on report_profiles(report_id, added_at desc, id desc) where status = 'active';

-- History of an attachment: added, removed, restored.
create table profile_events (
  id bigint generated always as identity primary key,
  profile_id uuid not null references report_profiles(id),
  event text not null check (event in ('added', 'removed', 'restored')),
  source text,
  import_id uuid,
  at timestamptz not null
);
create index profile_events_profile on profile_events(profile_id);

create table idempotency_records (
  workspace_id uuid not null,
  operation text not null,
  -- The report id for imports, '' for report creation.
  scope text not null,
  key text not null,
  fingerprint text not null,
  status_code integer not null,
  response jsonb not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  primary key (workspace_id, operation, scope, key)
);
create index idempotency_records_expiry on idempotency_records(expires_at);

create table import_receipts (
  id uuid primary key,
  report_id uuid not null references reports(id),
  workspace_id uuid not null,
  receipt jsonb not null,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index import_receipts_report on import_receipts(report_id);

create table scan_runs (
  id uuid primary key,
  report_id uuid not null references reports(id),
  workspace_id uuid not null,
  mode text not null check (mode in ('full_profile', 'activity')),
  -- Which collector runs the items: the key mode that admitted the work.
  key_mode text not null check (key_mode in ('test', 'live')),
  status text not null check (status in ('queued', 'running', 'completed', 'partial', 'failed', 'inaccessible', 'cancelled')),
  requested integer not null default 0,
  completed integer not null default 0,
  warnings integer not null default 0,
  failed integer not null default 0,
  created_at timestamptz not null,
  started_at timestamptz,
  completed_at timestamptz,
  terminal_reason text check (terminal_reason in ('failed', 'inaccessible', 'cancelled'))
);
create index scan_runs_report on scan_runs(report_id, mode, created_at desc);
-- Coalescing looks for the report's queued run of a mode.
create index scan_runs_queued on scan_runs(report_id, mode) where status = 'queued';

create table scan_items (
  id uuid primary key,
  run_id uuid not null references scan_runs(id),
  report_id uuid not null,
  -- null for the company-page item of an activity run.
  profile_id uuid references report_profiles(id),
  kind text not null check (kind in ('person', 'company_page')),
  status text not null check (status in ('pending', 'running', 'succeeded', 'failed', 'inaccessible', 'cancelled')),
  attempts integer not null default 0,
  warning boolean not null default false,
  reason text,
  created_at timestamptz not null,
  started_at timestamptz,
  finished_at timestamptz
);
create index scan_items_run on scan_items(run_id);
create index scan_items_profile on scan_items(report_id, profile_id, created_at desc);
create unique index scan_items_one_per_run on scan_items(run_id, coalesce(profile_id, '00000000-0000-0000-0000-000000000000'::uuid));
