-- The lane of scan work ("Background work yields"): a scheduled refresh is background
-- work, served after every new report and import of any workspace (the claim of 0053).
--
-- A run is of one lane: admission joins only a queued run of its own lane, so an import never
-- joins a scheduled refresh's run (its items would wait behind the background) and a schedule
-- never joins an import's (it would jump the queue). The item carries its run's lane, so the
-- claim's probes need no join.
alter table scan_runs add column background boolean not null default false;
alter table scan_items add column background boolean not null default false;
