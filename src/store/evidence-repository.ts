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
  /** Only an image of this person (a private link's): another person's, or the report's own, is not found. */
  profileId?: string,
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
    .$if(profileId !== undefined, (qb) => qb.where('e.profile_id', '=', profileId!))
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    original: { sha256: row.original_sha256, size: row.original_size, type: row.original_type },
    preview: { sha256: row.preview_sha256, size: row.preview_size, type: row.preview_type },
  };
}

export interface EvidenceDetails {
  id: string;
  section: string;
  origin: EvidenceOrigin;
  /** Null for images stored before migration 0029. */
  original: { width: number; height: number } | null;
  preview: { width: number; height: number } | null;
}

/** Where every evidence image of one person on a report comes from, and its sizes (obsolete ones too: a stored finding may still name them). */
export async function evidenceDetails(db: Kysely<Database>, reportId: string, profileId: string): Promise<EvidenceDetails[]> {
  const rows = await db
    .selectFrom('evidence_images')
    .select(['id', 'section', 'origin', 'original_width', 'original_height', 'preview_width', 'preview_height'])
    .where('report_id', '=', reportId)
    .where('profile_id', '=', profileId)
    .execute();
  const size = (width: number | null, height: number | null) => (width !== null && height !== null ? { width, height } : null);
  return rows.map((r) => ({
    id: r.id,
    section: r.section,
    origin: r.origin,
    original: size(r.original_width, r.original_height),
    preview: size(r.preview_width, r.preview_height),
  }));
}
