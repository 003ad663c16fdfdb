-- A person's scan keeps its weighted score (domain/progress.ts, scanScorePct), computed when the
-- row is written (store/history-repository.ts, historyWrite), so a person's trend reads one number
-- per scan instead of every check's outcome of every scan.
--
-- scored: whether score_pct was computed; score_pct is null when no check was answered. Rows
-- written before this migration, or by a process of an earlier version while a new one starts,
-- are not scored: the migration runner and the maintenance task score them, with the comparison
-- of 0058, in batches (compareHistory).
alter table person_scan_history
  add column scored boolean not null default false,
  add column score_pct double precision check (score_pct between 0 and 100),
  add constraint person_scan_history_scored check (scored or score_pct is null);

-- The rows still to compare or score, found without reading the others.
drop index person_scan_history_uncompared;
create index person_scan_history_underived on person_scan_history (seq) where not (compared and scored);
