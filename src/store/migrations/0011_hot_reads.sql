-- Hot reads: cheaper authorization, one-statement reads,
-- findings records stored as the JSON the API serves.

-- Request rate counters, taken with the key lookup in one statement
-- (src/store/rate-limit-repository.ts, authorizeAndTake). A request counts in
-- two buckets, per key and per workspace; both are kept in the same rows:
-- `total` (the workspace's count) and `per_key` (key id -> that key's count).
--
-- Each workspace, request kind and UTC minute has 9 rows: 8 slots (0-7) and
-- the remainder slot (8). A connection counts its requests in slot
-- pg_backend_pid() % 8, and only while that slot stays under its share of each
-- limit (floor(limit / 8)): one UPDATE of one row whose condition PostgreSQL
-- re-checks on the row's latest version under its lock, so the share is never
-- exceeded, and concurrent requests rarely wait for the same row. With one
-- row per bucket, every request of a busy workspace locked the same two rows
-- and queued behind the others' locks.
--
-- When the slot's share is used up, or the minute's rows do not exist yet,
-- `request_take` below decides exactly: it locks all 9 rows (in slot order,
-- so concurrent callers cannot deadlock), sums them, refuses when a limit
-- would be exceeded, and otherwise counts the request in a slot that still
-- has room under its share, or else in the remainder slot. The sum of all
-- slots therefore never exceeds a limit: the 8 slots hold at most 8 shares,
-- and the remainder is used only when every slot's share is full, by the
-- exact path, up to the limit. (Lowering or raising a workspace's limit
-- within a minute changes the shares mid-minute; that minute may then admit
-- up to the previous remainder more.)
--
-- Unlogged, like rate_counters: its changes write no WAL, so a request's
-- commit never waits for a WAL flush. A crash of PostgreSQL empties it
-- (crash recovery truncates unlogged tables): the counts of the current
-- minute are lost, and its requests may be admitted again. That is accepted;
-- nothing else lives here (idempotency records and imports are logged
-- tables, and their transactions commit synchronously).
create unlogged table request_counters (
  workspace_id uuid not null,
  kind text not null check (kind in ('read', 'write')),
  window_start timestamptz not null,
  slot smallint not null check (slot between 0 and 8),
  total integer not null,
  per_key jsonb not null,
  primary key (workspace_id, kind, window_start, slot)
) with (fillfactor = 50); -- room on the page for the rows' many updates (HOT)

-- The exact path of a take. `exceeded` is 0 (admitted and counted), 1 (the
-- key's limit) or 2 (the workspace's); the counts are the bucket totals after
-- the take when admitted, else as found.
create function request_take(p_workspace uuid, p_kind text, p_window timestamptz, p_key uuid,
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

-- Replaced by the statement in rate-limit-repository.ts (authorizeAndTake).
drop function authorize_take(bytea, timestamptz, text, integer, integer, integer, integer);

-- Each person's findings record is served from text rendered when the
-- findings are stored (refreshFindings, src/domain/findings-text.ts): the
-- record's `analysis` member (most of the record) as a JSON template, and
-- the version of that template. A findings page concatenates these texts
-- instead of rebuilding and serializing every record. Stored uncompressed
-- (EXTERNAL): it is read far more often than written, and every read would
-- otherwise decompress it.
alter table profile_analyses
  add column analysis_json text,
  add column analysis_format text;
alter table profile_analyses alter column analysis_json set storage external;

-- The text follows the findings: an update that changes what the record
-- shows (findings, observation times, catalog version) without writing a new
-- text drops the old one, whoever wrote it (an older process, an operator's
-- SQL), and reads build that record from the findings until it is rendered
-- again. Rows stored before this migration have no text yet: the same.
create function profile_analyses_text_follows() returns trigger language plpgsql as $$
begin
  if new.analysis_json is not distinct from old.analysis_json
     and (new.findings is distinct from old.findings
          or new.captured_at is distinct from old.captured_at
          or new.available_at is distinct from old.available_at
          or new.catalog_version is distinct from old.catalog_version
          or new.report_id is distinct from old.report_id) then
    new.analysis_json := null;
    new.analysis_format := null;
  end if;
  return new;
end $$;

create trigger profile_analyses_text_follows before update on profile_analyses
  for each row execute function profile_analyses_text_follows();
