/**
 * Evidence image downloads (4.12, decisions "Evidence download"):
 * GET /reports/{report_id}/evidence/{image_id}[?variant=preview].
 *
 * A read (read limits) needing reports:read, analysis:read and
 * profiles:read. Every download rechecks access and key status (the
 * authorization plugin runs on each request). A foreign, unknown, obsolete
 * or removed reference is 404 not_found; media that is missing or no longer
 * hashes to the recorded SHA-256 is 404 evidence_unavailable. The bytes are
 * read and verified before the status is sent (at most 10 MiB), so damaged
 * evidence is never served as genuine. `evidenceUrl` builds the address the
 * findings presenter emits.
 */
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { FileMediaStore } from '../../scanning/media/media-store.js';
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
  const { db, config } = app.deps;
  const media = new FileMediaStore(path.join(config.dataDir, 'media'));

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
      let bytes: Buffer | null;
      try {
        // FileMediaStore.get re-hashes the bytes and throws when they no longer match.
        bytes = await media.get(stored.sha256);
      } catch (error) {
        request.log.warn({ err: error, image_id: image.id }, 'evidence media does not match its recorded hash');
        bytes = null;
      }
      if (bytes === null) {
        throw apiError('evidence_unavailable', 404, 'The media of this evidence image is no longer available.', { retryable: false });
      }
      return reply.type(stored.type).header('Content-Length', String(bytes.length)).send(bytes);
    },
  );
}
