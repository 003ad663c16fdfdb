-- A worker whose event loop is starved is not dead (docs/scanning.md, "Leases and worker heartbeats").
--
-- Trade: with heartbeats alone (0027), a worker process whose beats came late
-- (its event loop busy for several seconds on a loaded machine) looked dead, and its healthy items were
-- claimed a second time: their provider calls made and billed twice. Now each
-- worker's heartbeat connection holds a session advisory lock (two-key form,
-- namespace 1886615403 = 'pswk', key hashtext(worker id)) for as long as the
-- process lives: the kernel closes a dead process's socket, PostgreSQL ends
-- its session and frees the lock at once. A silent worker is taken for dead
-- only when its lock is free too, or after p_worker_hung_seconds (60 s, the
-- per-item lease this design replaced) of silence whatever the lock says (a
-- hung process, a host cut off from the network whose session lingers).
-- Costs nothing while workers beat: the probe runs only for silent workers.
-- Two workers whose ids hash alike (1 in 4 billion a pair) could make a dead
-- one look alive until its hung limit: its items would wait 60 s, as before 0027.

/*
 * Claims one scan item for worker p_worker, or returns nothing.
 *
 * 1. An item of a dead worker: silent for p_worker_dead_seconds and its
 *    liveness lock free (its process is gone), or silent for
 *    p_worker_hung_seconds whatever the lock says (a hung process, a host cut
 *    off). Then one whose lease expired without a worker. Their attempts
 *    count on.
 * 2. Otherwise (migration 0026, docs/scanning.md "Fair claims"): rows whose
 *    deferral ran out become ready; the ready workspace with the smallest
 *    pass, its ready report with the smallest pass, that report's oldest
 *    ready item (FOR UPDATE SKIP LOCKED: concurrent claimers never wait on
 *    each other's items). The workspace's and the report's passes go up by
 *    one when another one is ready beside them (alone, there is nobody to be
 *    fair to, and a hot row updated by every claim would serialize the
 *    claims). A report (workspace) found without ready work is corrected (see
 *    0026) and the next one is tried.
 *
 * The claim commits asynchronously, like every item transition
 * (store/item-repository.ts): a claim lost in a database crash leaves its
 * item pending, and the worker's first transition finds the claim gone.
 * Queue times (ready_at, leases, heartbeats) are the database server's clock.
 *
 * The one-argument form (no worker: the lease rule) stays for older workers
 * during a rolling upgrade.
 */
drop function claim_scan_item(integer, uuid, integer);
create function claim_scan_item(p_lease_seconds integer, p_worker uuid, p_worker_dead_seconds integer default 10,
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
begin
  perform set_config('synchronous_commit', 'off', true);
  -- Items of a dead worker: silent, and its process gone (the lock its connection held is free),
  -- or silent far too long; a retired worker's heartbeat is -infinity. The lock probe runs only
  -- for silent workers, and a lock it takes is released when this claim commits.
  select i.id into v_id
    from scan_workers w join scan_items i on i.worker_id = w.id and i.status = 'running'
   where w.heartbeat_at < now() - make_interval(secs => p_worker_dead_seconds)
     and (w.heartbeat_at < now() - make_interval(secs => p_worker_hung_seconds)
          or pg_try_advisory_xact_lock(1886615403, hashtext(w.id::text)))
   limit 1
   for update of i skip locked;

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
     where w.workspace_id in (select d.workspace_id from queue_workspaces d
                               where not d.ready and d.ready_at <= now()
                               order by d.ready_at limit 16 for update skip locked);
    update queue_reports r
       set ready = true,
           pass = greatest(r.pass, coalesce((select min(q.pass) from queue_reports q where q.workspace_id = r.workspace_id and q.ready), 0))
     where r.report_id in (select d.report_id from queue_reports d
                            where not d.ready and d.ready_at <= now()
                            order by d.ready_at limit 16 for update skip locked);

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

