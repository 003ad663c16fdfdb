-- A run's item counts are maintained by each transition (O(1)) instead of
-- recounted from its items (O(run size)) under the run lock at every item
-- transition (docs/scanning.md). `unfinished` = pending + running (a claim
-- does not change it, so claims never touch the run row); `failed` (the
-- contract's count) stays failed + inaccessible.
alter table scan_runs
  add column unfinished integer not null default 0,
  add column inaccessible integer not null default 0,
  add column cancelled integer not null default 0;

update scan_runs r set
  unfinished = c.unfinished,
  inaccessible = c.inaccessible,
  cancelled = c.cancelled
from (
  select run_id,
    count(*) filter (where status in ('pending', 'running'))::int as unfinished,
    count(*) filter (where status = 'inaccessible')::int as inaccessible,
    count(*) filter (where status = 'cancelled')::int as cancelled
  from scan_items group by run_id
) c
where c.run_id = r.id;
