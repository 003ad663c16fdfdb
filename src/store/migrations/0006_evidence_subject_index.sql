-- storeEvidence marks older evidence of the same subject and section
-- obsolete; without this index that update scanned every image of the
-- report (bench:pipeline's rows read per item show it).
create index evidence_images_subject on evidence_images(report_id, profile_id, section);
