-- storeEvidence marks older evidence of the same subject and section
-- obsolete; without this index that update scanned every image of the
-- report (seen in `npm run bench:pipeline`: ~3,700 rows read per item).
create index evidence_images_subject on evidence_images(report_id, profile_id, section);
