-- Report aggregates maintained on write (decisions
-- "Analysis"): every attachment stores the contribution it last made to its
-- report's totals; a write that changes an attachment recomputes only that
-- contribution and applies the difference to report_aggregates, under the
-- report row lock. Summary reads then cost the same at any report size.

alter table report_profiles add column contribution jsonb;

create table report_aggregates (
  report_id uuid primary key references reports(id),
  -- domain/analysis-aggregate.ts `Totals`.
  totals jsonb not null,
  -- The company page's contribution (its latest item, events, context).
  company jsonb,
  updated_at timestamptz not null
);

-- Visible = the attachment is active; kept in step by the roll-up so that
-- freshness bounds are index lookups.
alter table profile_analyses add column visible boolean not null default true;
create index profile_analyses_captured on profile_analyses(report_id, captured_at) where visible;
alter table activity_coverage add column visible boolean not null default true;
create index activity_coverage_captured on activity_coverage(report_id, captured_at) where visible;

-- The content hash decides `updated_at` (visible change time); `revision`
-- covers every visible field of the event, timestamps included.
alter table activity_events add column content_hash text;
update activity_events set content_hash = revision;
alter table activity_events alter column content_hash set not null;
create index activity_events_profile on activity_events(report_id, profile_id, id);

-- Findings pages walk the active roster by id.
create index report_profiles_by_id on report_profiles(report_id, id) where status = 'active';
