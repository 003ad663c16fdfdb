/**
 * The refresh extension (beside the contract): `POST
 * /reports/{report_id}/refreshes` scans a report's people again
 * (use-cases/refresh-report.ts). A write like the contract's: the
 * Idempotency-Key is required and scoped to workspace, operation and report,
 * and the request counts against the write limits (the access plugin, kind
 * `write`).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { refreshReport } from '../../use-cases/refresh-report.js';
import { ErrorEnvelope, ReportIdParams } from '../../domain/schemas/common.js';
import { RefreshBody, RefreshResponse } from '../../domain/schemas/refresh.js';
import { idempotencyKey, rejectInvalidBody, requireJsonObject, sendWrite } from '../write-helpers.js';

const errors = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };

export async function refreshRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock, queue } = app.deps;

  api.post(
    '/reports/:report_id/refreshes',
    {
      config: { access: { kind: 'write', scopes: ['reports:read', 'profiles:add'] } },
      attachValidation: true,
      schema: {
        tags: ['extensions'],
        summary: "Scan a report's people again (extension)",
        params: ReportIdParams,
        body: RefreshBody,
        response: { 201: RefreshResponse, ...errors },
      },
    },
    async (request, reply) => {
      const validationError = request.validationError as (Error & { validationContext?: string }) | undefined;
      if (validationError && validationError.validationContext !== 'body') throw validationError;
      // The body is optional: none scans every active person.
      const hasBody = request.body !== undefined && request.body !== null;
      if (hasBody) {
        requireJsonObject(request);
        rejectInvalidBody(request, {
          code: 'validation_failed',
          rowsMember: 'profile_ids',
          retryable: false,
          message: 'The refresh was rejected: the body is invalid (see details). Nothing was queued.',
        });
      }
      const key = idempotencyKey(request);
      const profileIds = hasBody ? request.body.profile_ids : undefined;
      const result = await refreshReport({ db, clock, queue, workspaceId: request.auth.workspaceId, keyMode: request.auth.mode }, request.params.report_id, {
        target: profileIds ? { kind: 'people', profileIds } : { kind: 'report' },
        idempotencyKey: key,
      });
      return sendWrite(reply, request, result);
    },
  );
}
