-- One database round trip per request for authentication and the request
-- rate limits (a separate key lookup and rate_take are a large share of a
-- hot read's latency). Looks the key up by its secret
-- hash; only when the key is valid and the workspace has API access does it
-- take the request's two buckets (kind:key:<key id>, kind:ws:<workspace id>,
-- the order and ids of domain/rate-limits.ts requestBuckets, which the caller
-- checks against `bucket_ids`). No row when the secret is unknown.
create function authorize_take(p_secret_hash bytea, p_window timestamptz, p_kind text,
                               p_read_key_limit integer, p_read_ws_limit integer,
                               p_write_key_default integer, p_write_ws_default integer)
returns table (key_id uuid, user_id uuid, workspace_id uuid, mode text, scopes text[], revoked boolean,
               api_access boolean, writes_per_minute_per_key integer, writes_per_minute_per_workspace integer,
               submitted_profiles_per_minute_per_workspace integer, bucket_ids text[], exceeded integer, counts integer[])
language plpgsql as $$
declare
  k record;
  limits integer[];
begin
  select ak.id, ak.user_id, ak.workspace_id, ak.mode, ak.scopes, ak.revoked_at is not null as is_revoked,
         w.api_access as has_access, w.writes_per_minute_per_key as wk, w.writes_per_minute_per_workspace as ww,
         w.submitted_profiles_per_minute_per_workspace as wr
    into k
    from api_keys ak join workspaces w on w.id = ak.workspace_id
   where ak.secret_hash = p_secret_hash;
  if not found then
    return;
  end if;
  key_id := k.id; user_id := k.user_id; workspace_id := k.workspace_id; mode := k.mode; scopes := k.scopes;
  revoked := k.is_revoked; api_access := k.has_access;
  writes_per_minute_per_key := k.wk; writes_per_minute_per_workspace := k.ww;
  submitted_profiles_per_minute_per_workspace := k.wr;
  if not k.is_revoked and k.has_access then
    bucket_ids := array[p_kind || ':key:' || k.id, p_kind || ':ws:' || k.workspace_id];
    if p_kind = 'read' then
      limits := array[p_read_key_limit, p_read_ws_limit];
    else
      limits := array[coalesce(k.wk, p_write_key_default), coalesce(k.ww, p_write_ws_default)];
    end if;
    select rt.exceeded, rt.counts into exceeded, counts from rate_take(p_window, bucket_ids, limits, array[1, 1]) rt;
  end if;
  return next;
end $$;
