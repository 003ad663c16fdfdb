-- The rows a scan writes per person carry no foreign keys.
--
-- evidence_images, activity_events, profile_analyses, activity_coverage and
-- profile_contributions are written only by statements that prove their parents in the same
-- statement: a person's finish ends the item only if its claim still holds and bumps the
-- attachment's version only if it is the one read, and raises unless both happened
-- (item-repository.ts, endPersonItem; the company page's end likewise, migration 0037); a
-- contribution's other writers hold the attachment's lock and bump it (store/locks.ts). The
-- parents (reports, report_profiles, scan_items) are never deleted and their keys never
-- change: reports are archived, people removed by a status, items kept for the record.
--
-- What the constraints cost: every inserted row's check ran a query that locked its parent row
-- FOR KEY SHARE, several per item, and the report's row, locked by every item of the report in
-- flight, took a new multixact on nearly every check: a fraction of a millisecond of PostgreSQL
-- CPU per item. (Migration 0041 restores the constraints: integrity comes first,
-- docs/decisions/0004-foreign-keys-on-scan-rows.md.)
--
-- What replaces them: the statements' own proofs above, and the tests' check that every such
-- row names an existing report, person and item of the same report
-- (test/support/rollups.ts, assertScanRowsReferenceTheirParents), which a foreign key did not:
-- it checked each column alone. Nothing else changes: the FKs had no ON DELETE action.
alter table evidence_images
  drop constraint evidence_images_report_id_fkey,
  drop constraint evidence_images_profile_id_fkey,
  drop constraint evidence_images_item_id_fkey;

alter table activity_events
  drop constraint activity_events_report_id_fkey,
  drop constraint activity_events_profile_id_fkey;

alter table profile_analyses
  drop constraint profile_analyses_report_id_fkey,
  drop constraint profile_analyses_profile_id_fkey,
  drop constraint profile_analyses_item_id_fkey;

alter table activity_coverage
  drop constraint activity_coverage_report_id_fkey,
  drop constraint activity_coverage_profile_id_fkey,
  drop constraint activity_coverage_item_id_fkey;

alter table profile_contributions
  drop constraint profile_contributions_report_id_fkey,
  drop constraint profile_contributions_profile_id_fkey;
