-- Every row that belongs to a workspace, a report, a person or a scan item references it with a
-- foreign key, with the ON DELETE action that erasing a person or deleting a workspace needs:
-- deleting the parent removes everything that belongs to it, in the same statement, so no
-- deletion has to find the children by hand and no table added later can be forgotten by one.
-- test/http/foreign-keys.test.ts walks the catalog and holds every such column to its key and
-- action.
--
-- The actions, and why:
-- - CASCADE from a workspace, a report or a person: its rows are its data and go with it
--   (users, keys, web sign-ins, links, reports, people, runs, items, receipts, usage, counters,
--   idempotency records; a person's events, evidence, analysis, coverage, contribution and
--   history).
-- - NO ACTION on the scan item the results came from (evidence_images, profile_analyses,
--   activity_coverage, company_context .item_id): an item goes only with its person or report,
--   whose cascades remove the results in the same statement. Deleting an item alone (a history
--   retention) while its results are current would silently remove a person's analysis: the key
--   refuses it, so such a deletion has to decide about those rows first.
-- - NO ACTION on users (api_keys, web_sessions, access_links .user_id / .created_by): accounts
--   are removed by a status, never deleted, except with their workspace, which cascades to the
--   referencing rows in the same statement.
-- - SET NULL on references that only point back: rollup_deltas.run_id and
--   .recompute_profile_id (a pending delta still carries the report's totals and is folded
--   without its run or person), profile_events.import_id (the person's history outlives a
--   receipt). A SET NULL of one column of a composite key names that column only.
-- - Nothing here deletes an import receipt or a run when a person goes: what the contract keeps
--   of a person (a receipt's rows, a run's counts) lives in their JSON and counters, not in a
--   reference, and an erasure replaces those values with tombstones itself.
--
-- A person's rows reference (report_id, profile_id) → report_profiles (report_id, id), and an
-- item's (report_id, run_id) → scan_runs (report_id, id): one key proves the parent exists and
-- belongs to the same report, which single-column keys did not. A composite key with a null
-- column is not checked (MATCH SIMPLE), so the company page's rows (no person) keep their own
-- key on the report. The item of the results is checked alone: a key naming its report and
-- person too would need one more unique index on scan_items, whose every update (never HOT)
-- writes an entry in each index. profile_events.import_id is deferred to commit: an import writes the
-- people's events before the receipt that names them.
--
-- Existing databases: since migration 0040 dropped the scan rows' keys, a row could name a
-- missing report, person or item, or a person of another report, only through a defect (every
-- statement that writes them proves its parents, and the tests checked that they did). Such a
-- row is corrupt and the person's next scan writes it again, so it is deleted here rather than
-- block the start of every process; a notice counts them (the blobs of a deleted evidence row
-- stay in the media store). A reference that only points back is set to
-- null instead. The tables that kept their keys hold no orphan, and no workspace was ever
-- deleted; what is new to them, an item's run and person of the item's own report, holds by
-- construction (an item is written from its run's row), and a violation stops the migration
-- with PostgreSQL's own error naming the row.
--
-- Indexes: every deletion of a parent looks its children up by the referencing columns; those
-- not led by an existing index get one (item_id of the analysis, the coverage and the company
-- context; workspace_id of people, runs, receipts and web sign-ins; the users of keys and links;
-- the import of profile events).

do $$
declare
  n bigint;
  total bigint := 0;
begin
  delete from evidence_images e
   where not exists (select 1 from reports r where r.id = e.report_id)
      or (e.profile_id is not null and not exists (select 1 from report_profiles p where p.id = e.profile_id and p.report_id = e.report_id))
      or not exists (select 1 from scan_items i where i.id = e.item_id);
  get diagnostics n = row_count; total := total + n;
  delete from activity_events a
   where not exists (select 1 from reports r where r.id = a.report_id)
      or (a.profile_id is not null and not exists (select 1 from report_profiles p where p.id = a.profile_id and p.report_id = a.report_id));
  get diagnostics n = row_count; total := total + n;
  delete from profile_analyses a
   where not exists (select 1 from report_profiles p where p.id = a.profile_id and p.report_id = a.report_id)
      or not exists (select 1 from scan_items i where i.id = a.item_id);
  get diagnostics n = row_count; total := total + n;
  delete from activity_coverage c
   where not exists (select 1 from report_profiles p where p.id = c.profile_id and p.report_id = c.report_id)
      or not exists (select 1 from scan_items i where i.id = c.item_id);
  get diagnostics n = row_count; total := total + n;
  delete from profile_contributions c
   where not exists (select 1 from report_profiles p where p.id = c.profile_id and p.report_id = c.report_id);
  get diagnostics n = row_count; total := total + n;
  delete from rollup_deltas d where not exists (select 1 from reports r where r.id = d.report_id);
  get diagnostics n = row_count; total := total + n;
  update rollup_deltas d set run_id = null
   where d.run_id is not null and not exists (select 1 from scan_runs s where s.id = d.run_id and s.report_id = d.report_id);
  update rollup_deltas d set recompute_profile_id = null
   where d.recompute_profile_id is not null
     and not exists (select 1 from report_profiles p where p.id = d.recompute_profile_id and p.report_id = d.report_id);
  update profile_events e set import_id = null
   where e.import_id is not null and not exists (select 1 from import_receipts r where r.id = e.import_id);
  delete from idempotency_records x where not exists (select 1 from workspaces w where w.id = x.workspace_id);
  get diagnostics n = row_count; total := total + n;
  delete from request_counters x where not exists (select 1 from workspaces w where w.id = x.workspace_id);
  if total > 0 then
    raise notice 'foreign keys: % rows without their report, person or item deleted', total;
  end if;
end
$$;

-- The parents' keys the composite references need.
alter table report_profiles add constraint report_profiles_report_person unique (report_id, id);
alter table scan_runs add constraint scan_runs_report_run unique (report_id, id);

-- Workspaces.
alter table users
  drop constraint users_workspace_id_fkey,
  add foreign key (workspace_id) references workspaces (id) on delete cascade;
alter table api_keys
  drop constraint api_keys_workspace_id_fkey,
  add foreign key (workspace_id) references workspaces (id) on delete cascade;
alter table web_sessions
  drop constraint web_sessions_workspace_id_fkey,
  add foreign key (workspace_id) references workspaces (id) on delete cascade;
alter table access_links
  drop constraint access_links_workspace_id_fkey,
  add foreign key (workspace_id) references workspaces (id) on delete cascade;
alter table reports
  drop constraint reports_workspace_id_fkey,
  add foreign key (workspace_id) references workspaces (id) on delete cascade;
alter table report_profiles
  drop constraint report_profiles_workspace_id_fkey,
  add foreign key (workspace_id) references workspaces (id) on delete cascade;
alter table provider_usage
  drop constraint provider_usage_workspace_id_fkey,
  add foreign key (workspace_id) references workspaces (id) on delete cascade;
alter table scan_allowance_usage
  drop constraint scan_allowance_usage_workspace_id_fkey,
  add foreign key (workspace_id) references workspaces (id) on delete cascade;
alter table scan_runs add foreign key (workspace_id) references workspaces (id) on delete cascade;
alter table import_receipts add foreign key (workspace_id) references workspaces (id) on delete cascade;
alter table idempotency_records add foreign key (workspace_id) references workspaces (id) on delete cascade;
alter table request_counters add foreign key (workspace_id) references workspaces (id) on delete cascade;

-- Reports.
alter table report_profiles
  drop constraint report_profiles_report_id_fkey,
  add foreign key (report_id) references reports (id) on delete cascade;
alter table scan_runs
  drop constraint scan_runs_report_id_fkey,
  add foreign key (report_id) references reports (id) on delete cascade;
alter table import_receipts
  drop constraint import_receipts_report_id_fkey,
  add foreign key (report_id) references reports (id) on delete cascade;
alter table report_aggregates
  drop constraint report_aggregates_report_id_fkey,
  add foreign key (report_id) references reports (id) on delete cascade;
alter table company_context
  drop constraint company_context_report_id_fkey,
  add foreign key (report_id) references reports (id) on delete cascade;
alter table rollup_deltas
  add foreign key (report_id) references reports (id) on delete cascade,
  add foreign key (report_id, run_id) references scan_runs (report_id, id) on delete set null (run_id),
  add foreign key (report_id, recompute_profile_id) references report_profiles (report_id, id) on delete set null (recompute_profile_id);

-- Scan items: their run and their person, of their own report.
alter table scan_items
  drop constraint scan_items_run_id_fkey,
  drop constraint scan_items_profile_id_fkey,
  add foreign key (report_id, run_id) references scan_runs (report_id, id) on delete cascade,
  add foreign key (report_id, profile_id) references report_profiles (report_id, id) on delete cascade;

-- People.
alter table profile_events
  drop constraint profile_events_profile_id_fkey,
  add foreign key (profile_id) references report_profiles (id) on delete cascade,
  add foreign key (import_id) references import_receipts (id) on delete set null deferrable initially deferred;

-- The rows a scan writes per person.
alter table evidence_images
  add foreign key (report_id) references reports (id) on delete cascade,
  add foreign key (report_id, profile_id) references report_profiles (report_id, id) on delete cascade,
  add foreign key (item_id) references scan_items (id);
alter table activity_events
  add foreign key (report_id) references reports (id) on delete cascade,
  add foreign key (report_id, profile_id) references report_profiles (report_id, id) on delete cascade;
alter table profile_analyses
  add foreign key (report_id, profile_id) references report_profiles (report_id, id) on delete cascade,
  add foreign key (item_id) references scan_items (id);
alter table activity_coverage
  add foreign key (report_id, profile_id) references report_profiles (report_id, id) on delete cascade,
  add foreign key (item_id) references scan_items (id);
alter table profile_contributions
  add foreign key (report_id, profile_id) references report_profiles (report_id, id) on delete cascade;

-- Children looked up by a parent's deletion with no index led by their columns.
create index profile_analyses_item on profile_analyses (item_id);
create index activity_coverage_item on activity_coverage (item_id);
create index company_context_item on company_context (item_id);
create index report_profiles_workspace on report_profiles (workspace_id);
create index scan_runs_workspace on scan_runs (workspace_id);
create index import_receipts_workspace on import_receipts (workspace_id);
create index web_sessions_workspace on web_sessions (workspace_id);
create index api_keys_user on api_keys (user_id);
create index profile_events_import on profile_events (import_id) where import_id is not null;
create index access_links_user on access_links (user_id) where user_id is not null;
create index access_links_created_by on access_links (created_by) where created_by is not null;
