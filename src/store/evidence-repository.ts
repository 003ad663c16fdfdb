/**
 * Evidence image lookups for downloads (4.12, decisions "Evidence download").
 *
 * One query decides whether a reference is downloadable at all: the image
 * belongs to the report, the report to the caller's workspace, the image is
 * not obsolete, and its attachment (when it has one; company-page evidence
 * has none) is still active on the roster. Anything else is "not found" to
 * the caller, whatever the reason. The media bytes are not read here.
 * Also: where each of a person's images comes from (captured or rendered),
 * for the pages that label them.
 */
import type { Kysely } from 'kysely';
import type { EvidenceOrigin } from '../domain/collected.js';
import type { Database } from './schema.js';

export interface EvidenceMedia {
  sha256: string;
  size: number;
  type: string;
}

export interface DownloadableEvidence {
  id: string;
  original: EvidenceMedia;
  preview: EvidenceMedia;
}

export async function findDownloadableEvidence(
  db: Kysely<Database>,
  workspaceId: string,
  reportId: string,
  imageId: string,
): Promise<DownloadableEvidence | null> {
  const row = await db
    .selectFrom('evidence_images as e')
    .innerJoin('reports as r', 'r.id', 'e.report_id')
    .leftJoin('report_profiles as p', 'p.id', 'e.profile_id')
    .select(['e.id', 'e.original_sha256', 'e.original_size', 'e.original_type', 'e.preview_sha256', 'e.preview_size', 'e.preview_type'])
    .where('e.id', '=', imageId)
    .where('e.report_id', '=', reportId)
    .where('r.workspace_id', '=', workspaceId)
    .where('e.obsolete', '=', false)
    .where((eb) => eb.or([eb('e.profile_id', 'is', null), eb('p.status', '=', 'active')]))
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    original: { sha256: row.original_sha256, size: row.original_size, type: row.original_type },
    preview: { sha256: row.preview_sha256, size: row.preview_size, type: row.preview_type },
  };
}

/** The origin of every evidence image of one person on a report (obsolete ones too: a stored finding may still name them). */
export async function evidenceOrigins(db: Kysely<Database>, reportId: string, profileId: string): Promise<Array<{ id: string; origin: EvidenceOrigin }>> {
  return db.selectFrom('evidence_images').select(['id', 'origin']).where('report_id', '=', reportId).where('profile_id', '=', profileId).execute();
}
