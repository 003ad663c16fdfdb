-- Admits a request when every bucket stays within its limit after adding its
-- amount; then adds all amounts. Otherwise adds nothing. Returns the index
-- (1-based) of the first bucket that would overflow (0 when admitted) and the
-- counts after the call. Buckets must be passed in a fixed (sorted) order so
-- that concurrent callers lock rows in the same order.
create or replace function rate_take(p_window timestamptz, p_buckets text[], p_limits integer[], p_amounts integer[],
                          out exceeded integer, out counts integer[])
language plpgsql as $$
declare
  i integer;
  c integer;
begin
  exceeded := 0;
  counts := array[]::integer[];
  for i in 1 .. coalesce(array_length(p_buckets, 1), 0) loop
    insert into rate_counters (bucket, window_start, count) values (p_buckets[i], p_window, 0)
      on conflict do nothing;
    select rc.count into c from rate_counters rc
      where rc.bucket = p_buckets[i] and rc.window_start = p_window for update;
    if c + p_amounts[i] > p_limits[i] and exceeded = 0 then
      exceeded := i;
    end if;
    counts := counts || c;
  end loop;
  if exceeded = 0 then
    for i in 1 .. coalesce(array_length(p_buckets, 1), 0) loop
      update rate_counters set count = count + p_amounts[i]
        where bucket = p_buckets[i] and window_start = p_window;
      counts[i] := counts[i] + p_amounts[i];
    end loop;
  end if;
end $$;
