-- The history of what was shown (docs/analysis.md, "History and progress"), kept for
-- HISTORY_RETENTION_MONTHS and pruned by maintenance in batches.
--
-- person_scan_history: one row per observation of a person's profile (the full-profile item that
-- observed it, `item_id`), with the person's analysis as it stood with that observation: the
-- score's counts and each check's outcome by check key. A later activity item of the same
-- observation updates its row, as it updates the shown analysis. Written in the statement that ends
-- the item (scanning/finish-item.ts), also when the analysis is unchanged: a scan that changed
-- nothing is a scan, and "unchanged" is a progress of its own.
create table person_scan_history (
  item_id uuid primary key references scan_items (id),
  -- The order the rows were written in: a person's newest scan is their highest (scanned_at may tie
  -- under a clock that stands still).
  seq bigint generated always as identity unique,
  report_id uuid not null references reports (id) on delete cascade,
  profile_id uuid not null,
  scanned_at timestamptz not null,
  captured_at timestamptz not null,
  updated_at timestamptz not null,
  good integer not null check (good >= 0),
  optimize integer not null check (optimize >= 0),
  unknown integer not null check (unknown >= 0),
  outcomes jsonb not null check (jsonb_typeof(outcomes) = 'object'),
  foreign key (report_id, profile_id) references report_profiles (report_id, id) on delete cascade
);
-- A person's newest rows first (progress and the person's trend read one person at a time).
create index person_scan_history_person on person_scan_history (profile_id, seq desc);
-- Retention finds the oldest rows without reading every person.
create index person_scan_history_scanned on person_scan_history (scanned_at);

-- report_snapshots: the team's picture when a round of scans completed (no run of the report
-- queued or running, every roll-up folded): the totals' counts and each check's counts, from
-- report_aggregates. One per last completed run (`run_id`), written after the fold that completed
-- it (store/rollup-folds.ts).
create table report_snapshots (
  id bigint generated always as identity primary key,
  report_id uuid not null references reports (id) on delete cascade,
  run_id uuid not null,
  completed_at timestamptz not null,
  persons integer not null check (persons >= 0),
  analyzed integer not null check (analyzed >= 0),
  answered_persons integer not null check (answered_persons >= 0),
  checks jsonb not null check (jsonb_typeof(checks) = 'object'),
  unique (report_id, run_id),
  foreign key (report_id, run_id) references scan_runs (report_id, id) on delete cascade
);
create index report_snapshots_report on report_snapshots (report_id, completed_at desc);
create index report_snapshots_completed on report_snapshots (completed_at);
