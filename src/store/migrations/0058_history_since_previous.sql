-- A person's scan keeps what changed since their previous scan (domain/progress.ts, sincePrevious),
-- computed when the row is written (store/history-repository.ts, historyWrite), so a team's
-- progress reads one row per person whatever the depth of their history.
--
-- compared: whether since_previous was computed. Rows written before this migration, or by a
-- process of an earlier version while a new one starts, are not: the migration runner and the
-- maintenance task compare them in batches (store/history-repository.ts, compareHistory).
-- since_previous: null when the row is the person's first scan; else the gaps fixed and opened,
-- the previous weighted score and the change.
alter table person_scan_history
  add column compared boolean not null default false,
  add column since_previous jsonb check (since_previous is null or jsonb_typeof(since_previous) = 'object'),
  add constraint person_scan_history_compared check (compared or since_previous is null);

-- The rows still to compare, found without reading the others.
create index person_scan_history_uncompared on person_scan_history (seq) where not compared;
