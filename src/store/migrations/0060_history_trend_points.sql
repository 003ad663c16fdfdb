-- A person's trend reads the time and the score of their newest scans (store/history-repository.ts,
-- readPersonScans) from the index alone: the index of a person's scans, newest first, carries both,
-- so the read does not visit one table page per scan. Every other reader of a person's newest
-- rows (the roll-up's facts, the progress of the exports, the finish's round) uses the same key.
create index person_scan_history_trend on person_scan_history (profile_id, seq desc) include (scanned_at, score_pct);
drop index person_scan_history_person;

-- A completed round keeps its point of the team's trend (domain/progress.ts, roundFigures): the team
-- score and the top gaps, computed when the round is recorded (store/history-repository.ts,
-- recordCompletedRound), so the report page's trend reads two values per round instead of every
-- check's counts of every round. pointed: whether they were computed (score_pct is null when no
-- check was answered). Rounds recorded before this migration, or whose point a crash left out, get
-- it from the migration runner and the maintenance task (pointRounds).
alter table report_snapshots
  add column pointed boolean not null default false,
  add column score_pct double precision check (score_pct between 0 and 100),
  add column top_gaps text[],
  add constraint report_snapshots_pointed check (pointed = (top_gaps is not null) and (pointed or score_pct is null));

create index report_snapshots_unpointed on report_snapshots (id) where not pointed;
