-- The database functions are defined in src/store/functions/, one file per function (its overloads
-- together), and applied by the migration runner after the numbered migrations whenever a file's
-- text changes (src/store/migrator.ts, applyFunctionDefinitions): the current definition of each is
-- read in one place, and the numbered migrations that first created them stay as they shipped.
-- This table records which text of each file the database runs.
create table function_definitions (
  file text primary key check (file ~ '^[a-z0-9_]+\.sql$'),
  checksum text not null check (checksum ~ '^[0-9a-f]{64}$'),
  applied_at timestamptz not null default now()
);
