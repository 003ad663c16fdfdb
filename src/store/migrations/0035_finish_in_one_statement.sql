-- A person's finishing item ends in one statement, without a transaction
-- around it (store/item-repository.ts, endPersonItem): a transaction of several
-- statements waits for the worker's busy event loop between them while it holds
-- its locks (docs/decisions/0003-begin-without-a-lock.md).
--
-- The item reads what is stored of the person first, on its own, decides
-- its writes and the person's roll-up delta from that read, then sends one
-- statement that ends the item, locks the attachment and writes. The read is
-- still current when that statement locks the attachment if no one changed
-- the person in between: every transaction that changes a person's facts
-- under the attachment lock bumps `facts_version` (the lock is taken by the
-- bump, src/store/locks.ts), and the statement's own bump is conditional on
-- the version its read saw. A statement's snapshot predates the locks it
-- waits for, but an UPDATE rechecks its condition on the newest version of
-- the row it locked, so the comparison sees every bump committed before it.
alter table report_profiles add column facts_version bigint not null default 0;

-- Takes the media collections' lock (shared, maintenance-repository.ts) and
-- reads the collection generation after it: a function, so that the read
-- has a snapshot of its own, taken once the lock is held (the calling
-- statement's predates the lock).
create function hold_media_collections_generation() returns bigint
language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock_shared(7305113013);
  return coalesce((select media_gc_generation from maintenance_state), 0);
end
$$;

-- The end of that statement: raises (and so undoes every write of the
-- statement) unless the claim still held the item, no media collection ran
-- since the item stored its blobs, and the person is as the item read them.
-- Each failure has its own SQLSTATE, which the worker acts on.
create function finish_person_item_check(ended boolean, media_kept boolean, current boolean) returns boolean
language plpgsql volatile as $$
begin
  if not ended then
    raise exception 'the claim no longer holds the item' using errcode = 'PS001';
  end if;
  if not media_kept then
    raise exception 'a media collection ran since the item stored its evidence' using errcode = 'PS003';
  end if;
  if not current then
    raise exception 'the person changed since the item read them' using errcode = 'PS002';
  end if;
  return true;
end
$$;
