-- The end of a person's finishing statement (store/item-repository.ts, endPersonItem): raises (and so undoes every write of the
-- statement) unless the claim still held the item, no media collection ran
-- since the item stored its blobs, and the person is as the item read them.
-- Each failure has its own SQLSTATE, which the worker acts on.
create or replace function finish_person_item_check(ended boolean, media_kept boolean, current boolean) returns boolean
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
