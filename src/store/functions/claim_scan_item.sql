-- The claim (queue/claim.ts claimItem; docs/scanning.md): takes one item, in this order:
-- a running item of a dead worker, then a running item whose lease expired (claimed without a
-- worker), then the next pending item, fairly across workspaces and then across the reports of a
-- workspace (stride passes kept in queue_workspaces and queue_reports, docs/decisions/0002-stride-claim.md).
-- A worker's item is held by its heartbeat (scan_workers, queue/heartbeat.ts); an item
-- claimed without a worker, by a lease of p_lease_seconds. Pending work is taken from the foreground
-- lane (new reports, imports, refreshes asked for) first; the background lane (scheduled refreshes)
-- only when no foreground item is ready, with the same fairness within it (docs/scanning.md).

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

-- The one-argument claim of older workers: the same claim, without a worker (the lease rule).
create or replace function claim_scan_item(p_lease_seconds integer)
returns table (item_id uuid, claim_id uuid, attempts integer)
language sql as $$
  select * from claim_scan_item(p_lease_seconds, null::uuid)
$$;
