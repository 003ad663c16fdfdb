-- Bright Data snapshots (docs/collectors.md, "Bright Data: snapshots"): a
-- job that was triggered (and will be billed) is never abandoned. Its id is
-- stored with the inputs waiting on it before anything else happens, so a
-- poll or download that fails, an outage or a worker restart resumes the
-- download instead of triggering (and paying) again.
--
-- url_keys: the profile identities (domain/profile-url.ts) of the inputs the
-- snapshot answers; a worker claiming an item of one of them joins it.
-- reserved_day / reserved: the daily-budget reservation the trigger took,
-- settled (what was not billed given back) by whoever downloads it first.
-- delivered_at: when its records were downloaded; a delivered snapshot is
-- downloaded again (free) for an item whose result was not stored yet.
create table brightdata_snapshots (
  snapshot_id text primary key,
  provider text not null,
  dataset_id text not null,
  grp text not null check (grp in ('profiles', 'posts', 'companies')),
  url_keys text[] not null check (cardinality(url_keys) > 0),
  reserved_day date,
  reserved integer not null default 0 check (reserved >= 0),
  billed integer not null default 0 check (billed >= 0),
  created_at timestamptz not null default now(),
  delivered_at timestamptz
);

create index brightdata_snapshots_urls on brightdata_snapshots using gin (url_keys);
