-- The claim's first steps no longer cost in proportion to the work in flight or to the tenants
-- (claim_scan_item of 0028, otherwise unchanged).
--
-- The search for a dead worker's items joined every running item (through scan_items_worker)
-- to scan_workers on every claim, most of the claim's cost under load, although no worker was
-- silent. Now the silent workers are found first (scan_workers holds one row per
-- live or recently retired worker process), and their items are looked for only when there are
-- some. The probe of a silent worker's liveness lock is unchanged.
--
-- The deferred rows whose time has come were found by a semi-join that the planner ran as a
-- sequential scan of queue_workspaces and queue_reports (growing with the tenants); the ids are now collected first (at most 16, from the indexes of deferred
-- rows) and the rows updated by their keys.

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
begin
  perform set_config('synchronous_commit', 'off', true);
  -- Items of a dead worker: silent, and its process gone (the lock its connection held is free),
  -- or silent far too long; a retired worker's heartbeat is -infinity. The lock probe runs only
  -- for silent workers, and a lock it takes is released when this claim commits.
  select array_agg(w.id) into v_dead
    from scan_workers w
   where w.heartbeat_at < now() - make_interval(secs => p_worker_dead_seconds)
     and (w.heartbeat_at < now() - make_interval(secs => p_worker_hung_seconds)
          or pg_try_advisory_xact_lock(1886615403, hashtext(w.id::text)));
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
    update queue_workspaces w
       set ready = true,
           pass = greatest(w.pass, coalesce((select min(q.pass) from queue_workspaces q where q.ready), 0))
     where w.workspace_id = any (array(select d.workspace_id from queue_workspaces d
                                        where not d.ready and d.ready_at <= now()
                                        order by d.ready_at limit 16 for update skip locked));
    update queue_reports r
       set ready = true,
           pass = greatest(r.pass, coalesce((select min(q.pass) from queue_reports q where q.workspace_id = r.workspace_id and q.ready), 0))
     where r.report_id = any (array(select d.report_id from queue_reports d
                                     where not d.ready and d.ready_at <= now()
                                     order by d.ready_at limit 16 for update skip locked));

    <<workspaces>>
    while v_id is null loop
      select w.workspace_id into v_ws from queue_workspaces w
       where w.ready and w.workspace_id <> all (v_skip_ws)
       order by w.pass, w.workspace_id limit 1;
      exit when v_ws is null;

      loop
        v_tries := v_tries + 1;
        exit workspaces when v_tries > 64;
        select r.report_id into v_report from queue_reports r
         where r.workspace_id = v_ws and r.ready and r.report_id <> all (v_skip_reports)
         order by r.pass, r.report_id limit 1;

        if v_report is null then
          -- No ready report: the workspace waits for its earliest one (or for new work).
          perform 1 from queue_workspaces where workspace_id = v_ws for update skip locked;
          if not found then
            -- An admission into it is in flight (it holds the row FOR KEY SHARE): leave it ready.
            v_skip_ws := v_skip_ws || v_ws;
            continue workspaces;
          end if;
          select min(r.ready_at) into v_next from queue_reports r where r.workspace_id = v_ws;
          if v_next is not null and v_next <= now() then
            -- Ready reports exist but this claim skipped them (their items were being claimed).
            v_skip_ws := v_skip_ws || v_ws;
          else
            update queue_workspaces set ready = false, ready_at = v_next where workspace_id = v_ws;
          end if;
          continue workspaces;
        end if;

        select i.id into v_id
          from scan_items i
         where i.report_id = v_report and i.status = 'pending' and i.ready_at <= now()
         order by i.ready_at, i.id
         limit 1
         for update skip locked;
        if v_id is not null then
          update queue_reports set pass = pass + 1
           where report_id = v_report
             and exists (select 1 from queue_reports q where q.workspace_id = v_ws and q.ready and q.report_id <> v_report);
          update queue_workspaces set pass = pass + 1
           where workspace_id = v_ws
             and exists (select 1 from queue_workspaces q where q.ready and q.workspace_id <> v_ws);
          exit workspaces;
        end if;

        -- No ready item: the report waits for its earliest pending one (or for new work).
        perform 1 from queue_reports where report_id = v_report for update skip locked;
        if not found then
          v_skip_reports := v_skip_reports || v_report;
          continue;
        end if;
        select i.ready_at into v_next from scan_items i
         where i.report_id = v_report and i.status = 'pending'
         order by i.ready_at limit 1;
        if v_next is not null and v_next <= now() then
          v_skip_reports := v_skip_reports || v_report;
        else
          update queue_reports set ready = false, ready_at = v_next where report_id = v_report;
        end if;
      end loop;
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

