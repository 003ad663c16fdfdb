-- The background lane (issue 52, "Background work yields"; docs/scanning.md): scheduled refreshes
-- are served after every new report and import, in any workspace, and stay fair among themselves.
--
-- The queue's index (0026) gets a lane: each workspace and each report has a row per lane with pending
-- work (its own pass and ready flag), and items carry their run's lane (0052). The claim looks in
-- the foreground lane first, exactly as before (stride scheduling over workspaces, then over a
-- workspace's reports), and only when no foreground item is ready does it look in the background
-- lane, with the same fairness there. So a new report waits at most for the items already running
-- (one item's time per worker slot), whatever the background backlog; and a workspace's scheduled
-- refresh takes its equal share of the background claims, never all of them.
-- The triggers offer each item in its own lane; claim_scan_item is that of 0045 with the lanes.

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
/* Offers pending work of report p_report (workspace p_workspace) in lane p_background (0026's, per lane). */
create function queue_offer(p_report uuid, p_workspace uuid, p_ready_at timestamptz, p_background boolean)
returns void
language plpgsql security definer set search_path from current as $$
declare
  v_ready boolean;
  v_at timestamptz;
  v_due boolean := p_ready_at <= now();
begin
  insert into queue_workspaces (workspace_id, background) values (p_workspace, p_background) on conflict do nothing;
  select ready, ready_at into v_ready, v_at from queue_workspaces
   where workspace_id = p_workspace and background = p_background for key share;
  if not v_ready and (v_due or v_at is null or p_ready_at < v_at) then
    update queue_workspaces
       set ready_at = least(ready_at, p_ready_at),
           ready = ready or v_due,
           pass = case when not ready and v_due
                       then greatest(pass, coalesce((select min(q.pass) from queue_workspaces q where q.ready and q.background = p_background), 0))
                       else pass end
     where workspace_id = p_workspace and background = p_background;
  end if;

  insert into queue_reports (report_id, workspace_id, background) values (p_report, p_workspace, p_background) on conflict do nothing;
  select ready, ready_at into v_ready, v_at from queue_reports
   where report_id = p_report and background = p_background for key share;
  if not v_ready and (v_due or v_at is null or p_ready_at < v_at) then
    update queue_reports
       set ready_at = least(ready_at, p_ready_at),
           ready = ready or v_due,
           pass = case when not ready and v_due
                       then greatest(pass, coalesce((select min(q.pass) from queue_reports q
                                                      where q.workspace_id = p_workspace and q.background = p_background and q.ready), 0))
                       else pass end
     where report_id = p_report and background = p_background;
  end if;
end;
$$;

create or replace function queue_offer_inserted() returns trigger
language plpgsql security definer set search_path from current as $$
declare
  v record;
begin
  for v in
    select n.report_id, r.workspace_id, n.background, min(n.ready_at) as ready_at
      from new_items n join reports r on r.id = n.report_id
     where n.status = 'pending'
     group by n.report_id, r.workspace_id, n.background
     order by r.workspace_id, n.background, n.report_id
  loop
    perform queue_offer(v.report_id, v.workspace_id, v.ready_at, v.background);
  end loop;
  return null;
end;
$$;

drop function queue_recheck(uuid);
/* Re-reads the bounds of a report's lane and its workspace's lane from their pending work (0026's, per lane). */
create function queue_recheck(p_report uuid, p_background boolean)
returns void
language plpgsql security definer set search_path from current as $$
declare
  v_ws uuid;
  v_next timestamptz;
begin
  select workspace_id into v_ws from queue_reports where report_id = p_report and background = p_background;
  if v_ws is null then
    return;
  end if;
  perform 1 from queue_workspaces where workspace_id = v_ws and background = p_background for update;
  perform 1 from queue_reports where report_id = p_report and background = p_background for update;
  select i.ready_at into v_next from scan_items i
   where i.report_id = p_report and i.background = p_background and i.status = 'pending' order by i.ready_at limit 1;
  update queue_reports set ready = coalesce(v_next <= now(), false), ready_at = v_next where report_id = p_report and background = p_background;
  select min(r.ready_at) into v_next from queue_reports r where r.workspace_id = v_ws and r.background = p_background;
  update queue_workspaces set ready = coalesce(v_next <= now(), false), ready_at = v_next where workspace_id = v_ws and background = p_background;
end;
$$;

create or replace function queue_offer_updated() returns trigger
language plpgsql security definer set search_path from current as $$
begin
  if old.status = 'pending' and new.ready_at > old.ready_at then
    perform queue_recheck(new.report_id, new.background);
  else
    perform queue_offer(new.report_id, (select workspace_id from reports where id = new.report_id), new.ready_at, new.background);
  end if;
  return null;
end;
$$;

create or replace function claim_scan_item(p_lease_seconds integer, p_worker uuid, p_worker_dead_seconds integer default 10,
                                p_worker_hung_seconds integer default 60)
returns table (item_id uuid, claim_id uuid, attempts integer)
language plpgsql as $$
declare
  v_id uuid;
  v_ws uuid;
  v_report uuid;
  v_next timestamptz;
  v_skip_ws uuid[] := '{}';
  v_skip_reports uuid[] := '{}';
  v_tries integer := 0;
  v_dead uuid[];
  v_epoch timestamptz;
  v_lane boolean;
begin
  perform set_config('synchronous_commit', 'off', true);
  -- Items of a dead worker: silent, and its process gone (the lock its connection held is free),
  -- or silent far too long; a retired worker's heartbeat is -infinity. Silence is counted from the
  -- server's epoch at the earliest (database_epoch): a worker cannot have beaten while the server
  -- was away, and its lock went with the server. The lock probe runs only for silent workers, and
  -- a lock it takes is released when this claim commits.
  if exists (select 1 from scan_workers w where w.heartbeat_at < now() - make_interval(secs => p_worker_dead_seconds)) then
    v_epoch := database_epoch();
    select array_agg(w.id) into v_dead
      from scan_workers w
     where w.heartbeat_at < now() - make_interval(secs => p_worker_dead_seconds)
       and (w.heartbeat_at = '-infinity'
            or (greatest(w.heartbeat_at, v_epoch) < now() - make_interval(secs => p_worker_dead_seconds)
                and (greatest(w.heartbeat_at, v_epoch) < now() - make_interval(secs => p_worker_hung_seconds)
                     or pg_try_advisory_xact_lock(1886615403, hashtext(w.id::text)))));
  end if;
  if v_dead is not null then
    select i.id into v_id
      from scan_items i
     where i.worker_id = any (v_dead) and i.status = 'running'
     limit 1
     for update skip locked;
  end if;

  if v_id is null then
    -- Items claimed without a worker (older workers, or handed to their lease): their lease.
    select i.id into v_id
    from scan_items i
    where i.status = 'running' and i.lease_expires_at < now() and i.worker_id is null
    order by i.lease_expires_at
    limit 1
    for update skip locked;
  end if;

  if v_id is null then
    -- Deferred work whose time has come (a few per claim; the next claims take the rest).
    if exists (select 1 from queue_workspaces d where not d.ready and d.ready_at <= now()) then
      update queue_workspaces w
         set ready = true,
             pass = greatest(w.pass, coalesce((select min(q.pass) from queue_workspaces q where q.ready and q.background = w.background), 0))
       where (w.workspace_id, w.background) in (select d.workspace_id, d.background from queue_workspaces d
                                                  where not d.ready and d.ready_at <= now()
                                                  order by d.ready_at limit 16 for update skip locked);
    end if;
    if exists (select 1 from queue_reports d where not d.ready and d.ready_at <= now()) then
      update queue_reports r
         set ready = true,
             pass = greatest(r.pass, coalesce((select min(q.pass) from queue_reports q
                                               where q.workspace_id = r.workspace_id and q.background = r.background and q.ready), 0))
       where (r.report_id, r.background) in (select d.report_id, d.background from queue_reports d
                                               where not d.ready and d.ready_at <= now()
                                               order by d.ready_at limit 16 for update skip locked);
    end if;

    -- The foreground lane first: background work (scheduled refreshes) is claimed only when no
    -- foreground item is ready. Each lane is fair on its own (its own passes).
    <<lanes>>
    foreach v_lane in array array[false, true] loop
      v_skip_ws := '{}';
      v_skip_reports := '{}';
      <<workspaces>>
      while v_id is null loop
        select w.workspace_id into v_ws from queue_workspaces w
         where w.background = v_lane and w.ready and w.workspace_id <> all (v_skip_ws)
         order by w.pass, w.workspace_id limit 1;
        exit when v_ws is null;

        loop
          v_tries := v_tries + 1;
          exit lanes when v_tries > 64;
          select r.report_id into v_report from queue_reports r
           where r.workspace_id = v_ws and r.background = v_lane and r.ready and r.report_id <> all (v_skip_reports)
           order by r.pass, r.report_id limit 1;

          if v_report is null then
            -- No ready report: the workspace waits for its earliest one (or for new work).
            perform 1 from queue_workspaces where workspace_id = v_ws and background = v_lane for update skip locked;
            if not found then
              -- An admission into it is in flight (it holds the row FOR KEY SHARE): leave it ready.
              v_skip_ws := v_skip_ws || v_ws;
              continue workspaces;
            end if;
            select min(r.ready_at) into v_next from queue_reports r where r.workspace_id = v_ws and r.background = v_lane;
            if v_next is not null and v_next <= now() then
              -- Ready reports exist but this claim skipped them (their items were being claimed).
              v_skip_ws := v_skip_ws || v_ws;
            else
              update queue_workspaces set ready = false, ready_at = v_next where workspace_id = v_ws and background = v_lane;
            end if;
            continue workspaces;
          end if;

          select i.id into v_id
            from scan_items i
           where i.report_id = v_report and i.background = v_lane and i.status = 'pending' and i.ready_at <= now()
           order by i.ready_at, i.id
           limit 1
           for update skip locked;
          if v_id is not null then
            -- Alone, there is nobody to be fair to: no update (a hot row that would serialize the claims).
            if exists (select 1 from queue_reports q where q.workspace_id = v_ws and q.background = v_lane and q.ready and q.report_id <> v_report) then
              update queue_reports set pass = pass + 1 where report_id = v_report and background = v_lane;
            end if;
            if exists (select 1 from queue_workspaces q where q.background = v_lane and q.ready and q.workspace_id <> v_ws) then
              update queue_workspaces set pass = pass + 1 where workspace_id = v_ws and background = v_lane;
            end if;
            exit workspaces;
          end if;

          -- No ready item: the report waits for its earliest pending one (or for new work).
          perform 1 from queue_reports where report_id = v_report and background = v_lane for update skip locked;
          if not found then
            v_skip_reports := v_skip_reports || v_report;
            continue;
          end if;
          select i.ready_at into v_next from scan_items i
           where i.report_id = v_report and i.background = v_lane and i.status = 'pending'
           order by i.ready_at limit 1;
          if v_next is not null and v_next <= now() then
            v_skip_reports := v_skip_reports || v_report;
          else
            update queue_reports set ready = false, ready_at = v_next where report_id = v_report and background = v_lane;
          end if;
        end loop;
      end loop;
      exit lanes when v_id is not null;
    end loop;
  end if;

  if v_id is null then
    return;
  end if;

  return query
  update scan_items i
  set status = 'running',
      attempts = i.attempts + 1,
      claim_id = gen_random_uuid(),
      -- A worker's item is held by its heartbeat; only an item without one has a lease.
      lease_expires_at = case when p_worker is null then now() + make_interval(secs => p_lease_seconds) end,
      started_at = coalesce(i.started_at, now()),
      worker_id = p_worker
  where i.id = v_id
  returning i.id, i.claim_id, i.attempts;
end;
$$;

