-- The text follows the findings: an update that changes what the record
-- shows (findings, observation times, catalog version) without writing a new
-- text drops the old one, whoever wrote it (an older process, an operator's
-- SQL), and reads build that record from the findings until it is rendered
-- again. Rows stored before this migration have no text yet: the same.
create or replace function profile_analyses_text_follows() returns trigger language plpgsql as $$
begin
  if new.analysis_json is not distinct from old.analysis_json
     and (new.findings is distinct from old.findings
          or new.captured_at is distinct from old.captured_at
          or new.available_at is distinct from old.available_at
          or new.catalog_version is distinct from old.catalog_version
          or new.report_id is distinct from old.report_id) then
    new.analysis_json := null;
    new.analysis_format := null;
  end if;
  return new;
end $$;

-- Called by the trigger profile_analyses_text_follows (before update on profile_analyses, migration 0011).
