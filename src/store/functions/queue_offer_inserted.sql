-- New pending items (an admission inserts many in one statement: one offer per report).
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
-- Called by the trigger scan_items_queue_insert (after insert on scan_items, migration 0026).
