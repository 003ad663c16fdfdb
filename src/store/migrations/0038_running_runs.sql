-- A report's running runs found by an index, as its queued runs already are (scan_runs_queued).
--
-- A report's analysis_state needs to know whether it has runs, and whether one of them is running
-- or queued (decisions "Report.analysis_state"). The fold and the API's writes read every run of
-- the report for that, so a report with a long history of runs paid for all of them on every fold,
-- a cost growing with the history (bench:queue folds with a long one). Each test
-- is now an index probe that stops at the first row (rollup-repository.ts, runStatesSql). A run's
-- status is already in the predicate of scan_runs_queued, so its updates were not HOT before either.
create index scan_runs_running on scan_runs (report_id) where status = 'running';
