-- brightdata_snapshot_workspaces: the workspaces whose items a snapshot was
-- bought for. Only their items join it later (resume a pending download, or
-- download a delivered one again): a workspace never receives records another
-- workspace paid for, with nothing billed to it, nor learns from an instant
-- answer that someone else scanned the same person (docs/collectors.md,
-- "Snapshots"). A snapshot stored before this table has no rows here and stays
-- joinable as before, so no pending download is abandoned by the upgrade.
create table brightdata_snapshot_workspaces (
  snapshot_id text not null references brightdata_snapshots (snapshot_id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  primary key (snapshot_id, workspace_id)
);

create index brightdata_snapshot_workspaces_workspace on brightdata_snapshot_workspaces (workspace_id);
