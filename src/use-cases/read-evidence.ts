/**
 * One evidence image for download (4.12, decisions "Evidence download"),
 * shared by the API (`GET /api/v1/reports/{id}/evidence/{image_id}`) and the
 * web workspace's screenshots. The reference must be downloadable for the
 * workspace (a foreign, unknown, obsolete or removed one is not found); the
 * media store hashes the whole blob before it hands out a stream of exactly
 * those bytes, so damaged evidence is never served as genuine (404
 * evidence_unavailable); a store that cannot be read is 503.
 */
import type { Readable } from 'node:stream';
import { apiError, notFound } from '../domain/errors.js';
import { MediaIntegrityError, type MediaStore } from '../scanning/media/media-store.js';
import type { Db } from '../store/database.js';
import { findDownloadableEvidence } from '../store/evidence-repository.js';

export type EvidenceVariant = 'original' | 'preview';

export interface EvidenceContext {
  db: Db;
  workspaceId: string;
  media: Pick<MediaStore, 'open'>;
  /** Where damaged or unreadable media is reported (the request's logger). */
  log: { warn(details: object, message: string): void; error(details: object, message: string): void };
}

export interface OpenedEvidence {
  type: string;
  size: number;
  stream(): Readable;
}

export async function openEvidence(
  ctx: EvidenceContext,
  reportId: string,
  imageId: string,
  variant: EvidenceVariant,
  /** Only this person's images (a private link: use-cases/person-links.ts). */
  profileId?: string,
): Promise<OpenedEvidence> {
  const image = await findDownloadableEvidence(ctx.db, ctx.workspaceId, reportId, imageId, profileId);
  if (!image) throw notFound('evidence image');
  const stored = variant === 'preview' ? image.preview : image.original;
  let opened;
  try {
    opened = await ctx.media.open(stored.sha256);
  } catch (error) {
    if (!(error instanceof MediaIntegrityError)) {
      ctx.log.error({ err: error, image_id: image.id }, 'evidence media store unavailable');
      throw apiError('unavailable', 'The evidence store is unavailable; retry with bounded backoff.', { retryable: true });
    }
    ctx.log.warn({ err: error, image_id: image.id }, 'evidence media does not match its recorded hash');
    opened = null;
  }
  if (opened === null) throw apiError('evidence_unavailable', undefined, { retryable: false });
  const media = opened;
  return { type: stored.type, size: media.size, stream: () => media.stream() };
}
