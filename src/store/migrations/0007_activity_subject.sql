-- An activity event is one subject's observation: the same source event seen
-- through two people's activity (or the company page) is two records. With
-- (report_id, external_id) alone, the second observation took the first
-- one's row over, and the roll-up counted the event for both subjects.
alter table activity_events
  add column subject uuid generated always as (coalesce(profile_id, '00000000-0000-0000-0000-000000000000'::uuid)) stored;
alter table activity_events drop constraint activity_events_report_id_external_id_key;
alter table activity_events add constraint activity_events_subject_key unique (report_id, subject, external_id);
