/** Profile imports (4.8) and saved receipts (4.9). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { normalizeRows } from '../../domain/roster-plan.js';
import { commitImport, previewImport, readReceipt } from '../../use-cases/import-profiles.js';
import { allowanceHeaders, readScanAllowance } from '../../use-cases/scan-allowance.js';
import { ErrorEnvelope, ReportIdParams } from '../../domain/schemas/common.js';
import { ImportCommitResponse, ImportParams, ImportQuery, ImportReceiptResponse, ProfileImport } from '../../domain/schemas/import.js';
import { idempotencyKey, rejectInvalidBody, requireJsonObject, sendWrite } from '../write-helpers.js';

const errors = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };

export async function importRoutes(app: FastifyInstance): Promise<void> {
  // Request (params, querystring, body) and reply types are inferred from each route's TypeBox schemas.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock, queue } = app.deps;

  api.post(
    '/reports/:report_id/profile-imports',
    {
      config: { access: { kind: 'write', scopes: ['reports:read', 'profiles:add'] } },
      attachValidation: true,
      schema: {
        tags: ['imports'],
        summary: 'Import people into a report (preview with validation_only=true)',
        params: ReportIdParams,
        querystring: ImportQuery,
        body: ProfileImport,
        response: { 200: ImportCommitResponse, 201: ImportCommitResponse, ...errors },
      },
    },
    async (request, reply) => {
      // attachValidation also collects query/param errors: surface those as 400/404.
      const validationError = request.validationError as (Error & { validationContext?: string }) | undefined;
      if (validationError && validationError.validationContext !== 'body') throw validationError;
      requireJsonObject(request);
      // When the body fails its schema, Fastify stops before coercing the query: `validation_only` is still the raw string.
      const rawValidationOnly: unknown = request.query.validation_only;
      const validationOnly = rawValidationOnly === true || rawValidationOnly === 'true';
      const key = validationOnly ? null : idempotencyKey(request);
      const body = request.body;
      const { urls, problems } = normalizeRows(Array.isArray(body.profiles) ? body.profiles.slice(0, 100) : []);
      rejectInvalidBody(request, {
        code: 'import_validation_failed',
        rowsMember: 'profiles',
        extra: problems,
        retryable: false,
        message: 'The import was rejected: some rows are invalid (see details). Nothing was changed.',
      });
      const ctx = { db, clock, queue, workspaceId: request.auth.workspaceId, keyMode: request.auth.mode, limits: request.auth.limits };
      if (validationOnly) {
        const preview = await previewImport(ctx, request.params.report_id, body.profiles, urls);
        // What the commit would use is `would_queue_profiles` (at most); what is left, in headers: the body's members are the contract's.
        reply.headers(allowanceHeaders(await readScanAllowance(db, request.auth.workspaceId, clock.now())));
        return reply.status(200).send({ data: preview, request_id: request.id });
      }
      const result = await commitImport(ctx, request.params.report_id, body.profiles, urls, key!);
      const location = `${app.publicBaseUrl}/api/v1/reports/${request.params.report_id}/profile-imports/${result.data.id}`;
      if (result.replayed) reply.header('Location', location);
      return sendWrite(reply, request, result, location);
    },
  );

  api.get(
    '/reports/:report_id/profile-imports/:import_id',
    {
      config: { access: { kind: 'read', scopes: ['imports:read'] } },
      schema: {
        tags: ['imports'],
        summary: 'Read a saved import receipt',
        params: ImportParams,
        response: { 200: ImportReceiptResponse, ...errors },
      },
    },
    async (request) => {
      const receipt = await readReceipt({ db, clock, workspaceId: request.auth.workspaceId }, request.params.report_id, request.params.import_id);
      return { data: receipt, request_id: request.id };
    },
  );
}
