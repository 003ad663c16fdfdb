/**
 * Evidence image downloads (4.12, decisions "Evidence download"):
 * GET /reports/{report_id}/evidence/{image_id}[?variant=preview].
 *
 * A read (read limits) needing reports:read, analysis:read and
 * profiles:read. Every download rechecks access and key status (the
 * authorization plugin runs on each request). A foreign, unknown, obsolete
 * or removed reference is 404 not_found; media that is missing or no longer
 * hashes to the recorded SHA-256 is 404 evidence_unavailable (a store that
 * cannot be read is 503). The media store verifies the whole blob before the
 * status is sent and then streams it (never held whole in memory:
 * src/scanning/media/media-store.ts), so damaged evidence is never served as
 * genuine. `evidenceUrl` builds the address the
 * findings presenter emits.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { MediaIntegrityError, type VerifiedMedia } from '../../scanning/media/media-store.js';
import { findDownloadableEvidence } from '../../store/evidence-repository.js';
import { apiError, notFound } from '../../domain/errors.js';
import { ErrorEnvelope, Uuid } from '../schemas/common.js';

export type EvidenceVariant = 'original' | 'preview';

/** The download address of an evidence image (`evidence.images[].url`); the original unless `preview`. */
export function evidenceUrl(baseUrl: string, reportId: string, imageId: string, variant: EvidenceVariant = 'original'): string {
  const url = `${baseUrl}/api/v1/reports/${reportId}/evidence/${imageId}`;
  return variant === 'preview' ? `${url}?variant=preview` : url;
}

const EvidenceParams = Type.Object({ report_id: Uuid, image_id: Uuid }, { additionalProperties: false });
const EvidenceQuery = Type.Object(
  { variant: Type.Optional(Type.Union([Type.Literal('original'), Type.Literal('preview')], { default: 'original' })) },
  { additionalProperties: false },
);

const errors = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };

export async function evidenceRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.deps;
  const media = app.deps.media!;

  app.get<{ Params: { report_id: string; image_id: string }; Querystring: { variant?: EvidenceVariant } }>(
    '/reports/:report_id/evidence/:image_id',
    {
      config: { access: { kind: 'read', scopes: ['reports:read', 'analysis:read', 'profiles:read'] } },
      schema: {
        tags: ['analysis'],
        summary: 'Download an evidence image (the url of a findings evidence.images[] entry)',
        params: EvidenceParams,
        querystring: EvidenceQuery,
        response: errors,
      },
    },
    async (request, reply) => {
      const image = await findDownloadableEvidence(db, request.auth.workspaceId, request.params.report_id, request.params.image_id);
      if (!image) throw notFound('evidence image');
      const stored = request.query.variant === 'preview' ? image.preview : image.original;
      let opened: VerifiedMedia | null;
      try {
        // The store hashes the whole blob before handing out a stream of exactly those bytes.
        opened = await media.open(stored.sha256);
      } catch (error) {
        if (!(error instanceof MediaIntegrityError)) {
          request.log.error({ err: error, image_id: image.id }, 'evidence media store unavailable');
          throw apiError('unavailable', 503, 'The evidence store is unavailable; retry with bounded backoff.', { retryable: true });
        }
        request.log.warn({ err: error, image_id: image.id }, 'evidence media does not match its recorded hash');
        opened = null;
      }
      if (opened === null) {
        throw apiError('evidence_unavailable', 404, 'The media of this evidence image is no longer available.', { retryable: false });
      }
      return reply.type(stored.type).header('Content-Length', String(opened.size)).send(opened.stream());
    },
  );
}
