-- The exact path of a take. `exceeded` is 0 (admitted and counted), 1 (the
-- key's limit) or 2 (the workspace's); the counts are the bucket totals after
-- the take when admitted, else as found.
create or replace function request_take(p_workspace uuid, p_kind text, p_window timestamptz, p_key uuid,
                             p_key_limit integer, p_ws_limit integer,
                             out exceeded integer, out key_count integer, out ws_count integer)
language plpgsql as $$
declare
  slots constant integer := 8;
  key_share integer := p_key_limit / slots;
  ws_share integer := p_ws_limit / slots;
  key_slot integer;
  ws_slot integer;
begin
  insert into request_counters (workspace_id, kind, window_start, slot, total, per_key)
    select p_workspace, p_kind, p_window, s, 0, '{}' from generate_series(0, slots) s
    on conflict do nothing;
  perform 1 from request_counters rc
   where rc.workspace_id = p_workspace and rc.kind = p_kind and rc.window_start = p_window
   order by rc.slot
     for update;
  -- A new statement: its snapshot sees every count, as all rows are locked.
  select sum(coalesce((rc.per_key ->> p_key::text)::integer, 0)), sum(rc.total),
         coalesce(min(rc.slot) filter (where rc.slot < slots and coalesce((rc.per_key ->> p_key::text)::integer, 0) < key_share), slots),
         coalesce(min(rc.slot) filter (where rc.slot < slots and rc.total < ws_share), slots)
    into key_count, ws_count, key_slot, ws_slot
    from request_counters rc
   where rc.workspace_id = p_workspace and rc.kind = p_kind and rc.window_start = p_window;
  exceeded := case when key_count + 1 > p_key_limit then 1 when ws_count + 1 > p_ws_limit then 2 else 0 end;
  if exceeded = 0 then
    update request_counters rc
       set per_key = rc.per_key || jsonb_build_object(p_key, coalesce((rc.per_key ->> p_key::text)::integer, 0) + 1)
     where rc.workspace_id = p_workspace and rc.kind = p_kind and rc.window_start = p_window and rc.slot = key_slot;
    update request_counters rc
       set total = rc.total + 1
     where rc.workspace_id = p_workspace and rc.kind = p_kind and rc.window_start = p_window and rc.slot = ws_slot;
    key_count := key_count + 1;
    ws_count := ws_count + 1;
  end if;
end $$;
