-- The company page's item begins and ends as a person's does: without a transaction of its own.
--
-- Before, the company page's begin and end each ran a transaction of several statements under
-- the report lock (the end: evidence, events, context, the run's counts and the report's
-- roll-up), and such a session sat idle in a transaction, holding the report lock, while the
-- worker's event loop was busy with other items (docs/decisions/0003-begin-without-a-lock.md).
--
-- 1. `recompute_company`: a delta that asks the fold to recompute the company page's
--    contribution (its latest item, its context, its events) from what is stored, as
--    `recompute_profile_id` asks for a person. The begin (the claim's own statement) and the end
--    (one statement with the item's writes) append one, with the run's change; readers count
--    the company page as it stands while one is pending (store/rollup-repository.ts).
-- 2. `reports.company_version`: the version of the company page's stored observation (its
--    evidence, events and context). The statement that ends the company page's item bumps it,
--    which takes the report lock, and writes only if it is still the version its read saw
--    (another company page item of the report may have ended in between: its evidence and events
--    would not be in this statement's snapshot).
alter table rollup_deltas add column recompute_company boolean not null default false;
alter table reports add column company_version bigint not null default 0;

-- The end of the company page's statement, as finish_person_item_check (migration 0035) ends a
-- person's: raises (and so undoes every write of the statement) unless the company page's
-- observation is still the version the item read, the claim still held the item, and no media
-- collection ran since the item stored its blobs. The version first: the item's end is
-- conditional on the version's bump (the report lock comes before the item's), so a changed
-- version leaves the item unended too.
create function finish_company_item_check(current boolean, ended boolean, media_kept boolean) returns boolean
language plpgsql volatile as $$
begin
  if not current then
    raise exception 'the company page''s observation changed since the item read it' using errcode = 'PS002';
  end if;
  if not ended then
    raise exception 'the claim no longer holds the item' using errcode = 'PS001';
  end if;
  if not media_kept then
    raise exception 'a media collection ran since the item stored its evidence' using errcode = 'PS003';
  end if;
  return true;
end
$$;
