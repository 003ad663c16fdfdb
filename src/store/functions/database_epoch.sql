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
