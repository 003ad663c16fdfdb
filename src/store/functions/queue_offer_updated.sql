-- An item put back to pending (a retry, a deferral, a worker handing it back) or made ready
-- earlier is offered; a pending item made ready later (by hand) has its report re-read.
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
-- Called by the trigger scan_items_queue_update (after update of status, ready_at on scan_items, migration 0026).
