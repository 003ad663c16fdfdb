-- The other columns a CSV import from the web carried for each person
-- (department, office, team …), by header name: the web's people table
-- filters by them and its CSV export repeats them. The API neither accepts
-- nor shows them (docs/web.md, "Imported columns"). Empty for people added
-- through the API or before this migration.
alter table report_profiles
  add column imported_columns jsonb not null default '{}'::jsonb;
