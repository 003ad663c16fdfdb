-- A person's latest item of a mode (the findings record's reason, a person's
-- facts) is ordered by its run's creation: the item carries its run's mode and
-- created_at, so that order is one index walk of the person's items instead of
-- a join to every run of theirs and a sort. The copy cannot disagree with the
-- run: the item's reference to its run includes both columns (and follows
-- them should a run's created_at ever be rewritten).
alter table scan_items add column run_mode text, add column run_created_at timestamptz;

update scan_items i set run_mode = r.mode, run_created_at = r.created_at
  from scan_runs r where r.id = i.run_id and r.report_id = i.report_id;

alter table scan_items alter column run_mode set not null, alter column run_created_at set not null;

alter table scan_runs add constraint scan_runs_report_run_order unique (report_id, id, mode, created_at);

alter table scan_items
  drop constraint scan_items_report_id_run_id_fkey,
  add constraint scan_items_run_fkey foreign key (report_id, run_id, run_mode, run_created_at)
    references scan_runs (report_id, id, mode, created_at) on delete cascade on update cascade;

-- Replaces the person's items by creation alone: every reader of a person's
-- items also wants them by run.
drop index scan_items_profile;
create index scan_items_profile_latest on scan_items (report_id, profile_id, run_mode, run_created_at desc, created_at desc);
