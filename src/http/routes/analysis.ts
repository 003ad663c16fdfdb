/**
 * Analysis reads (4.10, 4.11, 4.11a): the summary, per-person findings and
 * activity events. Reads only: they never change a row or start a scan.
 * Errors on these routes carry `retryable` and `next_action` (section 7.1).
 */
import type { FastifyInstance } from 'fastify';
import { pageOfActivity, pageOfFindings, readSummary, type AnalysisContext } from '../../use-cases/read-analysis.js';
import { presentReport } from '../present.js';
import { ActivityPage, ActivityQuery, AnalysisSummaryResponse, FindingsPage, FindingsQuery } from '../schemas/analysis.js';
import { ErrorEnvelope, ReportIdParams } from '../schemas/common.js';
import { evidenceUrl } from './evidence.js';

const errors = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };

export async function analysisRoutes(app: FastifyInstance): Promise<void> {
  const { db, clock, config } = app.deps;
  const ctx = (workspaceId: string): AnalysisContext => ({
    db,
    clock,
    cursors: app.cursors,
    workspaceId,
    links: (report) => {
      const shown = presentReport(report, config.publicBaseUrl);
      return { workspace_url: shown.workspace_url, public_url: shown.public_url };
    },
    imageUrl: (reportId, imageId, variant) => evidenceUrl(config.publicBaseUrl, reportId, imageId, variant),
  });

  app.get<{ Params: { report_id: string } }>(
    '/reports/:report_id/analysis',
    {
      config: { access: { kind: 'read', scopes: ['reports:read', 'analysis:read'] } },
      schema: {
        tags: ['analysis'],
        summary: 'Analysis summary: readiness, coverage, work, freshness, optimization totals, revisions',
        params: ReportIdParams,
        response: { 200: AnalysisSummaryResponse, ...errors },
      },
    },
    async (request) => ({ data: await readSummary(ctx(request.auth.workspaceId), request.params.report_id), request_id: request.id }),
  );

  app.get<{ Params: { report_id: string }; Querystring: { limit: number; cursor?: string; expected_revision?: string; profile_id?: string } }>(
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
    async (request) => ({ ...(await pageOfFindings(ctx(request.auth.workspaceId), request.params.report_id, request.query)), request_id: request.id }),
  );

  app.get<{
    Params: { report_id: string };
    Querystring: { limit: number; cursor?: string; expected_revision?: string; profile_id?: string; event_type?: string; occurred_from?: string; occurred_to?: string };
  }>(
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
