-- Operations: the maintenance task's state, and what retention needs.

-- One row: when maintenance last ran (so that, of all processes, one runs it
-- per interval) and the media collection generation. Every media collection
-- that deletes blobs bumps the generation under an exclusive advisory lock; a
-- worker that stored blobs before its finishing transaction checks, under the
-- shared lock, that no collection ran in between (else it stores them again).
create table maintenance_state (
  id boolean primary key default true check (id),
  media_gc_generation bigint not null default 0,
  last_run_at timestamptz
);
insert into maintenance_state default values;

-- When evidence became obsolete: media retention counts from here.
alter table evidence_images add column obsolete_at timestamptz;
update evidence_images set obsolete_at = now() where obsolete;
create index evidence_images_obsolete on evidence_images (obsolete_at) where obsolete;
-- Is a blob still used by any evidence? (content addressing: reports can share blobs)
create index evidence_images_original_sha256 on evidence_images (original_sha256);
create index evidence_images_preview_sha256 on evidence_images (preview_sha256);

-- An expired import receipt becomes a tombstone: its contents (people's URLs)
-- are removed; id, report, workspace and dates stay, so a read still answers
-- 410 receipt_expired and never 404.
alter table import_receipts alter column receipt drop not null;
alter table import_receipts add column tombstoned_at timestamptz;
create index import_receipts_to_tombstone on import_receipts (expires_at) where receipt is not null;
