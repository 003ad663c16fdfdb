-- Cost control per workspace (docs/operations.md, "Scan allowance"): profile
-- scans a workspace may admit per calendar month (UTC), set by the operator.
-- null: unlimited (the default, so existing installations keep their behaviour).
alter table workspaces add column scan_allowance integer check (scan_allowance >= 0);

-- Profile scans admitted per workspace and month (its first day, UTC). The
-- admitting write adds to its month's row inside its own transaction; the
-- row lock it takes serializes the writes of one workspace from there to
-- their commit, so two writes can never both take the last of an allowance.
create table scan_allowance_usage (
  workspace_id uuid not null references workspaces(id),
  month date not null check (extract(day from month) = 1),
  used integer not null check (used >= 0),
  primary key (workspace_id, month)
);
