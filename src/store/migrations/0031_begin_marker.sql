-- A person's item begins without a transaction of its own (store/item-repository.ts, beginItem):
-- the one statement that reads the begun item's inputs appends a delta that names the person
-- (`recompute_profile_id`) and carries the run's `started`, with no totals. The fold recomputes
-- that person's contribution under the person's lock (queued -> processing), or leaves it to the
-- person's next transition when another transaction holds the person: exact either way, because
-- a contribution's difference is always computed against the stored contribution under that lock.
alter table rollup_deltas add column recompute_profile_id uuid;
