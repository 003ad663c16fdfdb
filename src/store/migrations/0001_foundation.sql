-- Foundation: settings, workspaces, users, API keys, rate-limit counters.

create table settings (
  key text primary key,
  value text not null
);

create table workspaces (
  id uuid primary key,
  name text not null,
  slug text not null unique,
  status text not null default 'active' check (status = 'active'),
  api_access boolean not null default true,
  -- Write limits are workspace settings (contract section 8); null = the default.
  writes_per_minute_per_key integer check (writes_per_minute_per_key > 0),
  writes_per_minute_per_workspace integer check (writes_per_minute_per_workspace > 0),
  submitted_profiles_per_minute_per_workspace integer check (submitted_profiles_per_minute_per_workspace > 0),
  created_at timestamptz not null,
  updated_at timestamptz not null
);

create table users (
  id uuid primary key,
  workspace_id uuid not null references workspaces(id),
  name text not null,
  role text not null check (role in ('owner', 'admin', 'member')),
  created_at timestamptz not null
);
create index users_workspace on users(workspace_id);

create table api_keys (
  id uuid primary key,
  workspace_id uuid not null references workspaces(id),
  user_id uuid not null references users(id),
  mode text not null check (mode in ('test', 'live')),
  scopes text[] not null,
  -- SHA-256 of the whole secret; the secret itself is never stored.
  secret_hash bytea not null unique,
  -- First characters of the secret, for operators to recognise a key.
  secret_prefix text not null,
  created_at timestamptz not null,
  revoked_at timestamptz
);
create index api_keys_workspace on api_keys(workspace_id);

-- Fixed-window counters, one row per bucket and UTC minute. Unlogged: losing
-- the current minute's counts in a crash is harmless and saves WAL writes.
create unlogged table rate_counters (
  bucket text not null,
  window_start timestamptz not null,
  count integer not null,
  primary key (bucket, window_start)
);

-- Admits a request when every bucket stays within its limit after adding its
-- amount; then adds all amounts. Otherwise adds nothing. Returns the index
-- (1-based) of the first bucket that would overflow (0 when admitted) and the
-- counts after the call. Buckets must be passed in a fixed (sorted) order so
-- that concurrent callers lock rows in the same order.
create function rate_take(p_window timestamptz, p_buckets text[], p_limits integer[], p_amounts integer[],
                          out exceeded integer, out counts integer[])
language plpgsql as $$
declare
  i integer;
  c integer;
begin
  exceeded := 0;
  counts := array[]::integer[];
  for i in 1 .. coalesce(array_length(p_buckets, 1), 0) loop
    insert into rate_counters (bucket, window_start, count) values (p_buckets[i], p_window, 0)
      on conflict do nothing;
    select rc.count into c from rate_counters rc
      where rc.bucket = p_buckets[i] and rc.window_start = p_window for update;
    if c + p_amounts[i] > p_limits[i] and exceeded = 0 then
      exceeded := i;
    end if;
    counts := counts || c;
  end loop;
  if exceeded = 0 then
    for i in 1 .. coalesce(array_length(p_buckets, 1), 0) loop
      update rate_counters set count = count + p_amounts[i]
        where bucket = p_buckets[i] and window_start = p_window;
      counts[i] := counts[i] + p_amounts[i];
    end loop;
  end if;
end $$;
