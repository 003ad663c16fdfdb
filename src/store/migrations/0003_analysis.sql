-- Stored analysis: per-person findings, activity events, company context and
-- evidence images. Written by scan workers; read by the analysis endpoints.

create table evidence_images (
  id uuid primary key,
  report_id uuid not null references reports(id),
  -- null for company-page evidence.
  profile_id uuid references report_profiles(id),
  item_id uuid not null references scan_items(id),
  section text not null,
  original_sha256 text not null,
  original_size integer not null,
  original_type text not null,
  preview_sha256 text not null,
  preview_size integer not null,
  preview_type text not null,
  -- Evidence of an older observation is obsolete once a newer one replaces it.
  obsolete boolean not null default false,
  created_at timestamptz not null,
  unique (item_id, section)
);
create index evidence_images_profile on evidence_images(report_id, profile_id) where not obsolete;

-- The latest finalized analysis of one attachment (full_profile mode).
create table profile_analyses (
  profile_id uuid primary key references report_profiles(id),
  report_id uuid not null references reports(id),
  item_id uuid not null references scan_items(id),
  catalog_version text not null,
  -- What the collector observed (input of the checks); never served as is.
  profile_data jsonb not null,
  findings jsonb not null,
  good integer not null,
  optimize integer not null,
  unknown integer not null,
  captured_at timestamptz not null,
  available_at timestamptz not null,
  revision text not null
);
create index profile_analyses_report on profile_analyses(report_id);

create table activity_events (
  id uuid primary key,
  report_id uuid not null references reports(id),
  -- The attachment whose scan observed it; null for the company page.
  profile_id uuid references report_profiles(id),
  external_id text not null,
  event_type text not null check (event_type in ('post', 'repost', 'comment', 'reaction', 'unknown')),
  actor_kind text not null check (actor_kind in ('person', 'company_page')),
  actor jsonb not null,
  source_url text,
  text text,
  occurred_at timestamptz,
  counts jsonb not null,
  provenance text not null check (provenance in ('scanner', 'legacy', 'unknown')),
  captured_at timestamptz,
  available_at timestamptz,
  updated_at timestamptz,
  revision text not null,
  unique (report_id, external_id)
);
create index activity_events_report on activity_events(report_id, id);

-- Per attachment: whether its latest activity collection verified the list
-- (possibly empty). Absent = never collected.
create table activity_coverage (
  profile_id uuid primary key references report_profiles(id),
  report_id uuid not null references reports(id),
  item_id uuid not null references scan_items(id),
  event_count integer not null,
  captured_at timestamptz not null,
  available_at timestamptz not null
);

create table company_context (
  report_id uuid primary key references reports(id),
  item_id uuid not null references scan_items(id),
  name text,
  tagline text,
  industry text,
  follower_count integer,
  website text,
  captured_at timestamptz not null,
  available_at timestamptz not null
);
