-- Fewer index entries written per scan item.
--
-- As bench:pipeline's "rows written per item by table" shows:
-- scan_items is updated several times per item, never HOT (its status is in the predicates of its
-- partial indexes), so each update wrote an entry in every index whose predicate it matched;
-- rollup_deltas took 2 inserts and 2 deletes per item in two indexes.
--
-- 1. scan_items_run (run_id) repeats the first column of scan_items_one_per_run
--    (run_id, coalesce(profile_id, …)), which serves every lookup by run as well.
-- 2. scan_items_lease keeps only the items held by their lease: those without a worker
--    (claim_scan_item looks for expired leases with worker_id is null; an item of a live
--    worker has no lease, its lease_expires_at is null). A claim by a worker no longer
--    writes an entry there.
-- 3. rollup_deltas is keyed by (report_id, id): every reader and the fold's delete name
--    the report, and the identity column keeps id unique on its own. One index instead
--    of two.
-- 4. evidence_images_profile (report_id, profile_id) where not obsolete repeats the first
--    columns of evidence_images_subject (report_id, profile_id, section); the superseded
--    rows it leaves out are few (a person's earlier evidence, until it is collected).
--
-- Tried and not kept: report_aggregates' totals in the row (a larger toast_tuple_target, with
-- or without a lower fillfactor) to spare each fold a TOAST row. The row's updates were then
-- rarely HOT (a large version seldom fits beside the last one), and the dead versions grew
-- the database per person scanned.
drop index scan_items_run;

drop index scan_items_lease;
create index scan_items_lease on scan_items (lease_expires_at) where status = 'running' and worker_id is null;

alter table rollup_deltas drop constraint rollup_deltas_pkey;
drop index rollup_deltas_report;
alter table rollup_deltas add primary key (report_id, id);

drop index evidence_images_profile;

