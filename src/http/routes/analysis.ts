/**
 * Analysis reads (4.10, 4.11, 4.11a): the summary, per-person findings and
 * activity events. Reads only: they never change a row or start a scan.
 * Errors on these routes carry `retryable` and `next_action` (section 7.1).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { pageOfActivity, pageOfFindingsText, readSummary, summaryPrefetch, type AnalysisContext } from '../../use-cases/read-analysis.js';
import { uuidParam } from '../plugins/authorize.js';
import { findingsPageBody } from '../findings-body.js';
import { evidenceUrl } from '../../use-cases/present.js';
import { ActivityPage, ActivityQuery, AnalysisSummaryResponse, FindingsPage, FindingsQuery } from '../../domain/schemas/analysis.js';
import { ErrorEnvelope, ReportIdParams } from '../../domain/schemas/common.js';

const errors = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };

export async function analysisRoutes(app: FastifyInstance): Promise<void> {
  // Request (params, querystring, body) and reply types are inferred from each route's TypeBox schemas.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock } = app.deps;
  const ctx = (workspaceId: string): AnalysisContext => ({
    db,
    clock,
    cursors: app.cursors,
    workspaceId,
    publicBaseUrl: app.publicBaseUrl,
    imageUrl: (reportId, imageId, variant) => evidenceUrl(app.publicBaseUrl, reportId, imageId, variant),
    evidenceBase: app.publicBaseUrl,
  });

  api.get(
    '/reports/:report_id/analysis',
    {
      config: {
        access: {
          kind: 'read',
          scopes: ['reports:read', 'analysis:read'],
          // One round trip: everything the summary shows is read by the authorization statement.
          fused: (request) => {
            const reportId = uuidParam(request, 'report_id');
            return reportId === null ? null : summaryPrefetch(reportId);
          },
        },
      },
      schema: {
        tags: ['analysis'],
        summary: 'Analysis summary: readiness, coverage, work, freshness, optimization totals, revisions',
        params: ReportIdParams,
        response: { 200: AnalysisSummaryResponse, ...errors },
      },
    },
    async (request) => ({ data: await readSummary(ctx(request.auth.workspaceId), request.params.report_id, request.fused), request_id: request.id }),
  );

  api.get(
    '/reports/:report_id/analysis/profiles',
    {
      config: { access: { kind: 'read', scopes: ['reports:read', 'analysis:read', 'profiles:read'] } },
      schema: {
        tags: ['analysis'],
        summary: 'Per-person findings, one record per active attachment, in a stable order',
        params: ReportIdParams,
        querystring: FindingsQuery,
        response: { 200: FindingsPage, ...errors },
      },
    },
    async (request, reply) => {
      // The records arrive as the bytes of their JSON (stored with the findings); the body is written around them.
      const page = await pageOfFindingsText(ctx(request.auth.workspaceId), request.params.report_id, request.query);
      const body = findingsPageBody(page, request.id);
      // Bytes written here, not by the serializer: sent through the untyped reply (the schema still documents them).
      const raw: FastifyReply = reply;
      return raw.type('application/json; charset=utf-8').send(body);
    },
  );

  api.get(
    '/reports/:report_id/analysis/activity',
    {
      config: { access: { kind: 'read', scopes: ['reports:read', 'analysis:read', 'profiles:read'] } },
      schema: {
        tags: ['analysis'],
        summary: 'Stored activity events, ordered by id',
        params: ReportIdParams,
        querystring: ActivityQuery,
        response: { 200: ActivityPage, ...errors },
      },
    },
    async (request) => ({ ...(await pageOfActivity(ctx(request.auth.workspaceId), request.params.report_id, request.query)), request_id: request.id }),
  );
}
