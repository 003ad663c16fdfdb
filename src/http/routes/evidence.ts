/**
 * Evidence image downloads (4.12, decisions "Evidence download"):
 * GET /reports/{report_id}/evidence/{image_id}[?variant=preview].
 *
 * A read (read limits) needing reports:read, analysis:read and
 * profiles:read. Every download rechecks access and key status (the
 * authorization plugin runs on each request); what may be downloaded, and
 * the hash check before a byte is sent, are the use-case's
 * (src/use-cases/read-evidence.ts), shared with the web workspace.
 * The address the findings records name is built by `evidenceUrl`
 * (use-cases/present.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { openEvidence } from '../../use-cases/read-evidence.js';
import { ErrorEnvelope, Uuid } from '../../domain/schemas/common.js';

const EvidenceParams = Type.Object({ report_id: Uuid, image_id: Uuid }, { additionalProperties: false });
const EvidenceQuery = Type.Object(
  { variant: Type.Optional(Type.Union([Type.Literal('original'), Type.Literal('preview')], { default: 'original' })) },
  { additionalProperties: false },
);

const errors = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };

export async function evidenceRoutes(app: FastifyInstance): Promise<void> {
  // Request (params, querystring, body) and reply types are inferred from each route's TypeBox schemas.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.deps;
  const media = app.deps.media;

  api.get(
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
      const ctx = { db, workspaceId: request.auth.workspaceId, media, log: request.log };
      const image = await openEvidence(ctx, request.params.report_id, request.params.image_id, request.query.variant ?? 'original');
      // A byte stream, not a serialized schema (the route declares only its error answers): the untyped reply.
      const raw: FastifyReply = reply;
      return raw.type(image.type).header('Content-Length', String(image.size)).send(image.stream());
    },
  );
}
