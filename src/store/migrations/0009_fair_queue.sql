-- The scan queue moves from pg-boss into scan_items itself (docs/scanning.md).
--
-- A pending item is claimable from `ready_at` on (its admission time, or a
-- retry's backoff, or a provider's Retry-After). A running item holds a lease
-- (`lease_expires_at`, extended by its worker's heartbeat) under a claim id;
-- once the lease has expired, any worker may claim it again. Claims are fair:
-- see claim_scan_item below.
alter table scan_items
  add column ready_at timestamptz,
  add column claim_id uuid,
  add column lease_expires_at timestamptz;

update scan_items set ready_at = created_at where ready_at is null;
-- Items running under pg-boss have no lease we know of: offer them again at once.
update scan_items set claim_id = gen_random_uuid(), lease_expires_at = now() where status = 'running';
alter table scan_items alter column ready_at set not null;

-- Which reports have pending work (a loose index scan walks it), and the
-- oldest claimable item of one report.
create index scan_items_pending on scan_items (report_id, ready_at, id) where status = 'pending';
-- What is running, per report (fairness counts) and by lease (recovery).
create index scan_items_running on scan_items (report_id) where status = 'running';
create index scan_items_lease on scan_items (lease_expires_at) where status = 'running';

-- Workers wait on this channel; admissions notify it at commit.
-- (pg_notify is called by the application inside the admitting transaction.)

/*
 * Claims one scan item for a worker, or returns nothing.
 *
 * 1. A running item whose lease expired (its worker died or stalled) is taken
 *    first, oldest lease first: it is old work, and its attempts count on.
 * 2. Otherwise the reports with pending work are ranked: the workspace with
 *    the fewest running items first, then, inside it, the report with the
 *    fewest running items; ties are broken at random (per workspace, then per
 *    report), so equal tenants take turns. The oldest ready item of the first
 *    report that has one is taken (FOR UPDATE SKIP LOCKED: concurrent
 *    claimers never wait on each other).
 *
 * Queue times (ready_at, leases) are the database server's clock, shared by
 * every process whatever their own clocks say.
 *
 * This gives every contending workspace, and every report inside one, an
 * equal share of the running slots of all workers together (the counts live
 * in the table), while a lone report takes every slot (work-conserving).
 */
create function claim_scan_item(p_lease_seconds integer)
returns table (item_id uuid, claim_id uuid, attempts integer)
language plpgsql as $$
declare
  v_id uuid;
  v_report uuid;
begin
  select i.id into v_id
  from scan_items i
  where i.status = 'running' and i.lease_expires_at < now()
  order by i.lease_expires_at
  limit 1
  for update skip locked;

  if v_id is null then
    for v_report in
      with recursive pending_reports as (
        (select s.report_id from scan_items s where s.status = 'pending' order by s.report_id limit 1)
        union all
        select (select s.report_id from scan_items s
                where s.status = 'pending' and s.report_id > p.report_id
                order by s.report_id limit 1)
        from pending_reports p
        where p.report_id is not null
      ),
      running as (
        select s.report_id, count(*) as n from scan_items s where s.status = 'running' group by s.report_id
      ),
      workspace_running as (
        select r.workspace_id, sum(running.n) as n from running join reports r on r.id = running.report_id group by r.workspace_id
      ),
      salt as (select random()::text as v)
      select p.report_id
      from pending_reports p
      join reports r on r.id = p.report_id
      left join running on running.report_id = p.report_id
      left join workspace_running w on w.workspace_id = r.workspace_id
      cross join salt
      where p.report_id is not null
      order by coalesce(w.n, 0), md5(r.workspace_id::text || salt.v), coalesce(running.n, 0), md5(p.report_id::text || salt.v)
    loop
      select i.id into v_id
      from scan_items i
      where i.report_id = v_report and i.status = 'pending' and i.ready_at <= now()
      order by i.ready_at, i.id
      limit 1
      for update skip locked;
      exit when v_id is not null;
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
      lease_expires_at = now() + make_interval(secs => p_lease_seconds),
      started_at = coalesce(i.started_at, now())
  where i.id = v_id
  returning i.id, i.claim_id, i.attempts;
end;
$$;

-- pg-boss is no longer used.
drop schema if exists pgboss cascade;
