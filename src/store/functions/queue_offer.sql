/*
 * Offers pending work of report p_report (workspace p_workspace), ready from
 * p_ready_at: lowers the bounds and makes the rows ready when the time has
 * come. Called by the triggers below, inside the writing transaction.
 */
create or replace function queue_offer(p_report uuid, p_workspace uuid, p_ready_at timestamptz, p_background boolean)
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
