-- The end of the company page's statement, as finish_person_item_check (migration 0035) ends a
-- person's: raises (and so undoes every write of the statement) unless the company page's
-- observation is still the version the item read, the claim still held the item, and no media
-- collection ran since the item stored its blobs. The version first: the item's end is
-- conditional on the version's bump (the report lock comes before the item's), so a changed
-- version leaves the item unended too.
create or replace function finish_company_item_check(current boolean, ended boolean, media_kept boolean) returns boolean
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
