-- The served findings template (profile_analyses.analysis_json, most of a
-- person's analysis row: migration 0011) is stored compressed with lz4 when the
-- server has it. Migration 0011 stored it uncompressed (EXTERNAL) so that
-- reads would not decompress it, which is pglz's cost; lz4 decompresses at
-- memory speed: the template takes a fraction of the space, and writes and
-- whole-text reads cost what they did uncompressed. Values already stored keep their form until
-- their person is scanned again. A server built without lz4 (the embedded
-- one) keeps EXTERNAL.
do $$
begin
  if exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any (enumvals)) then
    alter table profile_analyses
      alter column analysis_json set storage extended,
      alter column analysis_json set compression lz4;
  end if;
end
$$;
