-- Whether an evidence image was captured (bytes that came from the source:
-- a collector's screenshot, or an image the record links to, downloaded by
-- the safe fetcher) or rendered (an evidence card the service drew from the
-- observed data at capture time). Readers of the web page are told which.
alter table evidence_images add column origin text;

-- Before this migration, test-key items were always collected by the
-- simulator, whose screenshots were drawn from synthetic data: rendered.
-- Live-key images came from the configured provider as screenshots: captured
-- (the service cannot tell the few live items that ran on the simulator).
update evidence_images e
   set origin = case when r.key_mode = 'test' then 'rendered' else 'captured' end
  from scan_items i
  join scan_runs r on r.id = i.run_id
 where i.id = e.item_id;
update evidence_images set origin = 'captured' where origin is null;

alter table evidence_images
  alter column origin set not null,
  add constraint evidence_images_origin check (origin in ('captured', 'rendered'));

-- One section of an item may now hold several images: its rendered card and
-- the images the record links to (a photo and a banner are both 'top_card').
-- The same bytes twice in one section are stored once.
alter table evidence_images
  drop constraint evidence_images_item_id_section_key,
  add constraint evidence_images_item_section_image unique (item_id, section, original_sha256);
