-- The background lane ("Background work yields"; docs/scanning.md): scheduled refreshes
-- are served after every new report and import, in any workspace, and stay fair among themselves.
--
-- The queue's index (0026) gets a lane: each workspace and each report has a row per lane with pending
-- work (its own pass and ready flag), and items carry their run's lane (0052). The claim looks in
-- the foreground lane first, exactly as before (stride scheduling over workspaces, then over a
-- workspace's reports), and only when no foreground item is ready does it look in the background
-- lane, with the same fairness there. So a new report waits at most for the items already running
-- (one item's time per worker slot), whatever the background backlog; and a workspace's scheduled
-- refresh takes its equal share of the background claims, never all of them.
-- The functions with the lanes (the triggers' queue_offer and queue_recheck, claim_scan_item) are
-- defined in store/functions/; the old signatures are dropped here.

alter table queue_workspaces drop constraint queue_workspaces_pkey;
alter table queue_workspaces add column background boolean not null default false;
alter table queue_workspaces add primary key (workspace_id, background);
drop index queue_workspaces_pick;
create index queue_workspaces_pick on queue_workspaces (background, pass, workspace_id) where ready;

alter table queue_reports drop constraint queue_reports_pkey;
alter table queue_reports add column background boolean not null default false;
alter table queue_reports add primary key (report_id, background);
drop index queue_reports_pick;
create index queue_reports_pick on queue_reports (workspace_id, background, pass, report_id) where ready;
drop index queue_reports_workspace;
create index queue_reports_workspace on queue_reports (workspace_id, background, ready_at);

-- The claim's probe of a report's ready items, per lane.
drop index scan_items_pending;
create index scan_items_pending on scan_items (report_id, background, ready_at, id) where status = 'pending';

drop function queue_offer(uuid, uuid, timestamptz);

drop function queue_recheck(uuid);
