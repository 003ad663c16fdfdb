-- The displayed size of each evidence image and of its preview, so that pages
-- reserve their space before the image loads (no layout shift) and show the
-- original at its size. Known when the image is stored (the pipeline decoded
-- its header); images stored before this migration have none (null), and the
-- pages then fall back to CSS sizing.
alter table evidence_images
  add column original_width integer,
  add column original_height integer,
  add column preview_width integer,
  add column preview_height integer;
