-- Why a succeeded person's item did not observe the activity it was asked for
-- (domain/activity-observation.ts): the source delivered nothing for the
-- person, delivered records that could not be attributed to them, or the call
-- for them failed. Null when the activity was observed, or not asked for. The
-- person's latest activity item carries it into their roll-up contribution,
-- and the report summary's limitations say why activity is unknown.
alter table scan_items
  add column activity_gap text
    constraint scan_items_activity_gap_check check (activity_gap in ('not_delivered', 'unattributable', 'failed'));
