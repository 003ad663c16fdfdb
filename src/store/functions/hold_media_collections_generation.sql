-- Takes the media collections' lock (shared, maintenance-repository.ts) and
-- reads the collection generation after it: a function, so that the read
-- has a snapshot of its own, taken once the lock is held (the calling
-- statement's predates the lock).
create or replace function hold_media_collections_generation() returns bigint
language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock_shared(7305113013);
  return coalesce((select media_gc_generation from maintenance_state), 0);
end
$$;

