-- A person's activity events are looked up by the person alone (the
-- attachment id implies its report), in an index that starts with it.
--
-- Every index of activity_events started with report_id, and the per-person
-- lookups of a finishing item (the events it observed again, the person's
-- events, their roll-up facts) named the report and the person. Where the
-- statistics had nothing on the report (a report newer than the last
-- ANALYZE, every report of a young database), the planner estimated one row
-- for the report, so every index looked alike, and it often took
-- activity_events_report (report_id, id) and filtered: the whole report's
-- events for each person, a finish's cost growing with its report's size.
-- Without report_id in those lookups, no report-wide index
-- applies. This index replaces activity_events_profile (report_id,
-- profile_id, id): a person's page of events (activityPage with a person)
-- reads it in id order just as well. Company-page events (no profile) are
-- looked up by (report_id, subject) in activity_events_subject_key.
create index activity_events_person on activity_events (profile_id, id) where profile_id is not null;
drop index activity_events_profile;
