-- Roll-up deltas (docs/scanning.md "Roll-ups without a
-- report lock"). A worker's transition of a person's item no longer takes the
-- report and run row locks: under the person's attachment lock it writes the
-- person's new contribution (profile_contributions) and appends here what that
-- changed in the report's totals (`totals`, a Totals-shaped difference) and in
-- its run's counts (`run_id`, `started`, `finished`, `warning`). A fold, under
-- the report lock, deletes a report's deltas and adds them to
-- report_aggregates, the runs and the report row: additions commute, so the
-- folded values are exact whatever the order. Logged (not UNLOGGED): a delta
-- is the only record of a committed change until it is folded.
create table rollup_deltas (
  id bigint generated always as identity primary key,
  report_id uuid not null,
  run_id uuid,
  started boolean not null default false,
  finished text check (finished in ('succeeded', 'failed', 'inaccessible', 'cancelled')),
  warning boolean not null default false,
  totals jsonb,
  -- The service clock of the transition (a run's started_at / completed_at).
  at timestamptz not null,
  created_at timestamptz not null default now()
);

create index rollup_deltas_report on rollup_deltas (report_id, id);
