/*
 * Re-reads the bounds of a report and its workspace from their pending work
 * (a pending item's ready time moved later by hand: its report's bound may
 * now be early). Waits for admissions in flight (FOR UPDATE), then reads in a
 * new snapshot, so none is missed.
 */
create or replace function queue_recheck(p_report uuid, p_background boolean)
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
