-- The served findings template (profile_analyses.analysis_json, about
-- 17 kB per person: migration 0011) is stored compressed with lz4 when the
-- server has it. Migration 0011 stored it uncompressed (EXTERNAL) so that
-- reads would not decompress it, which is pglz's cost; lz4 decompresses at
-- memory speed. Measured on 4,000 real templates (docs/benchmarks.md,
-- "Compression of the findings template"): 5.1 kB stored instead of 16.7 kB,
-- writes and whole-text reads as fast as before; a person's database share
-- went from 49.2 to 35.5 kB. Values already stored keep their form until
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
