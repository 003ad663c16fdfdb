-- Scheduled refreshes (use-cases/refresh-schedule.ts): a report scanned again every week
-- or every month. A report without a row is not scheduled ("off").
--
-- The row is the schedule's whole state, so it survives restarts: the worker that runs a due
-- refresh claims the row (FOR UPDATE SKIP LOCKED) and moves next_due_at one period on in the
-- same transaction as the refresh's admission, so N worker processes run it once, and a crash
-- before commit leaves it due. last_outcome says what the last due time did, for the report
-- page: queued, or skipped because the scan allowance was used up (or the report was archived,
-- or had nobody to scan).
create table report_refresh_schedules (
  report_id uuid primary key references reports (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  cadence text not null check (cadence in ('weekly', 'monthly')),
  next_due_at timestamptz not null,
  last_run_at timestamptz,
  last_outcome text check (last_outcome in ('queued', 'skipped_allowance', 'skipped_archived', 'skipped_empty')),
  updated_at timestamptz not null,
  check ((last_run_at is null) = (last_outcome is null))
);
-- The workers' probe for due schedules.
create index report_refresh_schedules_due on report_refresh_schedules (next_due_at);
