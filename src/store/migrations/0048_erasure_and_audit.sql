-- Erasure of people and workspaces, and the audit log of what was done with personal data
-- (docs/privacy.md).
--
-- blob_deletions: the media blobs an erasure or a workspace deletion left without their rows,
-- written in the same transaction that deletes the rows, so a crash after the commit loses no
-- deletion. The blobs are content-addressed and may be shared: whoever processes a row (the
-- erasure itself right after its commit, else maintenance) deletes the blob only when no
-- evidence row refers to it any more, under the media collections' lock
-- (store/maintenance-repository.ts), and removes the row once the store confirmed the deletion.
-- A failed deletion keeps the row with its error and is tried again later.
create table blob_deletions (
  sha256 text primary key check (sha256 ~ '^[0-9a-f]{64}$'),
  enqueued_at timestamptz not null,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null,
  last_error text
);
create index blob_deletions_due on blob_deletions (next_attempt_at);

-- audit_log: who did what to which kind of object, and when; never a value of the object
-- (no URL, name or content). It outlives the objects it names, a deleted workspace included,
-- so it has no foreign keys: the ids it keeps are identifiers, not references.
create table audit_log (
  id bigint generated always as identity primary key,
  at timestamptz not null,
  workspace_ref uuid,
  actor_kind text not null check (actor_kind in ('user', 'operator', 'maintenance')),
  actor_ref uuid,
  action text not null check (action ~ '^[a-z_]{1,60}$'),
  object_kind text not null check (object_kind ~ '^[a-z_]{1,60}$'),
  object_ref uuid,
  count integer
);
create index audit_log_workspace on audit_log (workspace_ref, at desc);
create index audit_log_at on audit_log (at);

-- When a report was archived (null while it is active): the retention of archived reports'
-- people (RETENTION_ARCHIVED_REPORTS) counts from it. Reports archived before this column
-- existed count from their last change.
alter table reports add column archived_at timestamptz;
update reports set archived_at = updated_at where archived;
create index reports_archived_at on reports (archived_at) where archived;
create index report_profiles_removed_at on report_profiles (removed_at) where status = 'removed';
