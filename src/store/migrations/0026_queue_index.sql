-- The queue's index of tenants (docs/scanning.md, "The claim at scale").
--
-- Trade: the claim of 0009 ranked every report with pending work at every
-- claim (its cost grew with the number of tenants, until it limited the
-- whole service: docs/decisions/0002-stride-claim.md). Here each workspace, and each report inside one, carries
-- a *pass* (stride scheduling with equal weights: a claim adds 1 to the pass
-- of the workspace and of the report it served) and a *ready* flag; the
-- claim takes the ready workspace with the smallest pass, then its ready
-- report with the smallest pass, from two partial indexes: a handful of index
-- probes whatever the number of tenants. In exchange the queue keeps these two
-- small tables in step with scan_items, and fairness becomes "equal shares of
-- the claims" (among workspaces, then among a workspace's reports) instead of
-- "equal shares of the running items" of 0009; with items of similar length
-- the two are the same.
--
-- How they stay in step (every path, including plain SQL on scan_items):
-- * scan_items is the truth. queue_reports.ready_at is a lower bound of the
--   ready_at of the report's pending items (null: none known), and
--   queue_workspaces.ready_at one of its reports' (null: none).
-- * Triggers on scan_items offer new and re-queued pending items: the
--   report's and the workspace's ready_at are lowered to the item's, and a row
--   that was not ready becomes ready when that time has come. A row already
--   ready is only locked FOR KEY SHARE (compatible with the claims' pass
--   updates), so busy tenants' admissions and claims never wait on each other.
-- * A claim promotes rows whose ready_at has come (a deferral ran out).
-- * A claim that finds a ready report without a ready item corrects it
--   (lazily: a bound only ever errs early): it locks the row FOR UPDATE SKIP
--   LOCKED, which fails while an admission into it is in flight (it holds
--   FOR KEY SHARE; the row is then left ready), then reads the report's
--   earliest pending item in a new snapshot, so an admission is never missed
--   and a claim never waits on one. The same for a workspace without ready
--   reports.
--   Each correction follows a claim or a removal that left the bound early,
--   so their cost is amortized over the items.
-- * A newcomer (a row becoming ready) starts at the smallest pass among the
--   ready ones (the virtual time), so an idle tenant returns with no credit
--   and no debt.

create table queue_workspaces (
  workspace_id uuid primary key references workspaces (id) on delete cascade,
  pass bigint not null default 0,
  ready boolean not null default false,
  ready_at timestamptz
);
-- The claim's pick, and the virtual time (smallest pass among the ready).
create index queue_workspaces_pick on queue_workspaces (pass, workspace_id) where ready;
-- Rows waiting for their time (deferred work), for the promotion.
create index queue_workspaces_due on queue_workspaces (ready_at) where not ready and ready_at is not null;

create table queue_reports (
  report_id uuid primary key references reports (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  pass bigint not null default 0,
  ready boolean not null default false,
  ready_at timestamptz
);
create index queue_reports_pick on queue_reports (workspace_id, pass, report_id) where ready;
create index queue_reports_due on queue_reports (ready_at) where not ready and ready_at is not null;
create index queue_reports_workspace on queue_reports (workspace_id, ready_at);

-- Today's pending work.
insert into queue_reports (report_id, workspace_id, ready, ready_at)
select i.report_id, r.workspace_id, min(i.ready_at) <= now(), min(i.ready_at)
  from scan_items i join reports r on r.id = i.report_id
 where i.status = 'pending'
 group by i.report_id, r.workspace_id;
insert into queue_workspaces (workspace_id, ready, ready_at)
select workspace_id, bool_or(ready), min(ready_at) from queue_reports group by workspace_id;

/*
 * Offers pending work of report p_report (workspace p_workspace), ready from
 * p_ready_at: lowers the bounds and makes the rows ready when the time has
 * come. Called by the triggers below, inside the writing transaction.
 */
create function queue_offer(p_report uuid, p_workspace uuid, p_ready_at timestamptz)
returns void
-- The queue's index is kept by its owner, whoever changed scan_items (an operator's role, a
-- read-mostly role allowed to update ready_at): the triggers need no grants of their own.
language plpgsql security definer set search_path from current as $$
declare
  v_ready boolean;
  v_at timestamptz;
  v_due boolean := p_ready_at <= now();
begin
  -- The workspace first, then the report: the claim's order.
  insert into queue_workspaces (workspace_id) values (p_workspace) on conflict do nothing;
  select ready, ready_at into v_ready, v_at from queue_workspaces where workspace_id = p_workspace for key share;
  -- A ready row needs nothing; a waiting one is lowered, and made ready when the time has come.
  if not v_ready and (v_due or v_at is null or p_ready_at < v_at) then
    update queue_workspaces
       set ready_at = least(ready_at, p_ready_at),
           ready = ready or v_due,
           pass = case when not ready and v_due
                       then greatest(pass, coalesce((select min(q.pass) from queue_workspaces q where q.ready), 0))
                       else pass end
     where workspace_id = p_workspace;
  end if;

  insert into queue_reports (report_id, workspace_id) values (p_report, p_workspace) on conflict do nothing;
  select ready, ready_at into v_ready, v_at from queue_reports where report_id = p_report for key share;
  -- A ready row needs nothing; a waiting one is lowered, and made ready when the time has come.
  if not v_ready and (v_due or v_at is null or p_ready_at < v_at) then
    update queue_reports
       set ready_at = least(ready_at, p_ready_at),
           ready = ready or v_due,
           pass = case when not ready and v_due
                       then greatest(pass, coalesce((select min(q.pass) from queue_reports q where q.workspace_id = p_workspace and q.ready), 0))
                       else pass end
     where report_id = p_report;
  end if;
end;
$$;

-- New pending items (an admission inserts many in one statement: one offer per report).
create function queue_offer_inserted() returns trigger
language plpgsql security definer set search_path from current as $$
declare
  v record;
begin
  for v in
    select n.report_id, r.workspace_id, min(n.ready_at) as ready_at
      from new_items n join reports r on r.id = n.report_id
     where n.status = 'pending'
     group by n.report_id, r.workspace_id
     order by r.workspace_id, n.report_id
  loop
    perform queue_offer(v.report_id, v.workspace_id, v.ready_at);
  end loop;
  return null;
end;
$$;
create trigger scan_items_queue_insert after insert on scan_items
  referencing new table as new_items
  for each statement execute function queue_offer_inserted();

/*
 * Re-reads the bounds of a report and its workspace from their pending work
 * (a pending item's ready time moved later by hand: its report's bound may
 * now be early). Waits for admissions in flight (FOR UPDATE), then reads in a
 * new snapshot, so none is missed.
 */
create function queue_recheck(p_report uuid)
returns void
language plpgsql security definer set search_path from current as $$
declare
  v_ws uuid;
  v_next timestamptz;
begin
  select workspace_id into v_ws from queue_reports where report_id = p_report;
  if v_ws is null then
    return;
  end if;
  perform 1 from queue_workspaces where workspace_id = v_ws for update;
  perform 1 from queue_reports where report_id = p_report for update;
  select i.ready_at into v_next from scan_items i where i.report_id = p_report and i.status = 'pending' order by i.ready_at limit 1;
  update queue_reports set ready = coalesce(v_next <= now(), false), ready_at = v_next where report_id = p_report;
  select min(r.ready_at) into v_next from queue_reports r where r.workspace_id = v_ws;
  update queue_workspaces set ready = coalesce(v_next <= now(), false), ready_at = v_next where workspace_id = v_ws;
end;
$$;

-- An item put back to pending (a retry, a deferral, a worker handing it back) or made ready
-- earlier is offered; a pending item made ready later (by hand) has its report re-read.
create function queue_offer_updated() returns trigger
language plpgsql security definer set search_path from current as $$
begin
  if old.status = 'pending' and new.ready_at > old.ready_at then
    perform queue_recheck(new.report_id);
  else
    perform queue_offer(new.report_id, (select workspace_id from reports where id = new.report_id), new.ready_at);
  end if;
  return null;
end;
$$;
create trigger scan_items_queue_update after update of status, ready_at on scan_items
  for each row when (new.status = 'pending' and (old.status <> 'pending' or new.ready_at <> old.ready_at))
  execute function queue_offer_updated();

-- The claim that reads these tables is claim_scan_item of migration 0027 (which also adds the
-- worker heartbeats it needs).
