-- A worker is not taken for dead for the silence of the database's own absence (docs/scanning.md,
-- "Leases and worker heartbeats"; claim_scan_item of 0039, otherwise unchanged).
--
-- While the server restarts or fails over, no worker can beat, and every liveness lock goes with the
-- server's sessions. Counted from its last beat, every living worker then looked dead to the first
-- claim after the return, before its heartbeat had come back with its lock: a worker that started
-- meanwhile (and never saw the outage) took their items, whose attempts were then made twice. Now a
-- worker's silence counts from the server's epoch at the earliest: when a worker's beat (or a claim)
-- first met this incarnation of the server (its start, and its timeline, which a promotion changes).
-- So a living worker has the dead limit, from the server's return, to beat and lock again, and the
-- items of a worker that died while the server was away wait that much longer, once per restart or
-- failover. A retired worker (-infinity) handed its items back and is not waited for.

/*
 * The server's incarnation (its postmaster start and its WAL timeline) and
 * when a beat or a claim first met it (store/worker-repository.ts beatWorker). A promoted standby keeps its start time but
 * moves to a new timeline. Rows are few (one per restart or failover).
 */
create table database_epochs (
  started_at timestamptz not null,
  timeline integer not null,
  seen_at timestamptz not null default now(),
  primary key (started_at, timeline)
);

/* When this incarnation of the server was first met (recorded by the first to ask). */
create or replace function database_epoch() returns timestamptz
language plpgsql as $$
declare
  v_started timestamptz := pg_postmaster_start_time();
  v_timeline integer := ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::integer;
  v_seen timestamptz;
begin
  select e.seen_at into v_seen from database_epochs e where e.started_at = v_started and e.timeline = v_timeline;
  if v_seen is null then
    insert into database_epochs (started_at, timeline) values (v_started, v_timeline)
      on conflict (started_at, timeline) do nothing;
    select e.seen_at into v_seen from database_epochs e where e.started_at = v_started and e.timeline = v_timeline;
  end if;
  return v_seen;
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
             pass = greatest(w.pass, coalesce((select min(q.pass) from queue_workspaces q where q.ready), 0))
       where w.workspace_id = any (array(select d.workspace_id from queue_workspaces d
                                          where not d.ready and d.ready_at <= now()
                                          order by d.ready_at limit 16 for update skip locked));
    end if;
    if exists (select 1 from queue_reports d where not d.ready and d.ready_at <= now()) then
      update queue_reports r
         set ready = true,
             pass = greatest(r.pass, coalesce((select min(q.pass) from queue_reports q where q.workspace_id = r.workspace_id and q.ready), 0))
       where r.report_id = any (array(select d.report_id from queue_reports d
                                       where not d.ready and d.ready_at <= now()
                                       order by d.ready_at limit 16 for update skip locked));
    end if;

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
          -- Alone, there is nobody to be fair to: no update (a hot row that would serialize the claims).
          if exists (select 1 from queue_reports q where q.workspace_id = v_ws and q.ready and q.report_id <> v_report) then
            update queue_reports set pass = pass + 1 where report_id = v_report;
          end if;
          if exists (select 1 from queue_workspaces q where q.ready and q.workspace_id <> v_ws) then
            update queue_workspaces set pass = pass + 1 where workspace_id = v_ws;
          end if;
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

