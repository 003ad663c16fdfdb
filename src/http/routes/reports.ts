/** Reports (4.3-4.7): list, create, read, roster and scan runs. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createReport, createReportProblems } from '../../use-cases/create-report.js';
import { pageOfProfiles, pageOfReports } from '../../use-cases/list-reports.js';
import { requireScopes, uuidParam } from '../plugins/authorize.js';
import { presentProfile, presentReport, presentScan, reportUrl } from '../../use-cases/present.js';
import { ErrorEnvelope, ReportIdParams, Uuid } from '../../domain/schemas/common.js';
import {
  CreateReport,
  CreateReportResponse,
  ListQuery,
  ProfileList,
  ReportList,
  ReportListQuery,
  ReportResponse,
  ScanResponse,
} from '../../domain/schemas/report.js';
import { idempotencyKey, rejectInvalidBody, requireJsonObject, sendWrite } from '../write-helpers.js';
import { reportPrefetch, requireReport, requireScanRun } from '../../use-cases/require-report.js';

const errors = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };

/**
 * A query as the handler sees it: the query validator (useDefaults, src/http/server.ts) has filled each member
 * whose schema declares a default, which the schema's static type (optional members) cannot say.
 */
type Defaulted<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> };

export async function reportRoutes(app: FastifyInstance): Promise<void> {
  // Request (params, querystring, body) and reply types are inferred from each route's TypeBox schemas.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock, queue } = app.deps;
  const ctx = (workspaceId: string) => ({ db, clock, cursors: app.cursors, workspaceId });

  api.get(
    '/reports',
    {
      config: { access: { kind: 'read', scopes: ['reports:read'] } },
      schema: {
        tags: ['reports'],
        summary: 'List reports, newest first',
        querystring: ReportListQuery,
        response: { 200: ReportList, ...errors },
      },
    },
    async (request) => {
      const page = await pageOfReports(ctx(request.auth.workspaceId), request.query as Defaulted<typeof request.query, 'limit' | 'include_archived'>);
      return {
        data: page.rows.map((r) => presentReport(r, app.publicBaseUrl)),
        page: { next_cursor: page.nextCursor },
        request_id: request.id,
      };
    },
  );

  api.post(
    '/reports',
    {
      config: { access: { kind: 'write', scopes: ['reports:create', 'reports:read'] } },
      attachValidation: true,
      schema: {
        tags: ['reports'],
        summary: 'Create a report (idempotent; Idempotency-Key required)',
        body: CreateReport,
        response: { 200: CreateReportResponse, 201: CreateReportResponse, ...errors },
      },
    },
    async (request, reply) => {
      requireJsonObject(request);
      const body = request.body as CreateReport & Record<string, unknown>;
      // 4: profiles:add is needed only when people are supplied.
      if (Array.isArray(body.profiles) && body.profiles.length > 0) requireScopes(request, ['profiles:add']);
      const key = idempotencyKey(request);
      const problems = createReportProblems(body);
      rejectInvalidBody(request, {
        code: 'validation_failed',
        rowsMember: 'profiles',
        extra: problems.details,
        message: 'The report could not be created: the body is invalid (see details). Nothing was changed.',
      });
      const result = await createReport(
        {
          db,
          clock,
          queue,
          cursors: app.cursors,
          publicBaseUrl: app.publicBaseUrl,
          workspaceId: request.auth.workspaceId,
          keyMode: request.auth.mode,
          limits: request.auth.limits,
        },
        body,
        problems.urls,
        key,
      );
      const location = result.data.outcome === 'created' ? reportUrl(app.publicBaseUrl, result.data.report.id) : undefined;
      return sendWrite(reply, request, result, location);
    },
  );

  api.get(
    '/reports/:report_id',
    {
      config: {
        access: {
          kind: 'read',
          scopes: ['reports:read'],
          // One round trip: the report is read by the authorization statement.
          fused: (request) => {
            const reportId = uuidParam(request, 'report_id');
            return reportId === null ? null : reportPrefetch(reportId);
          },
        },
      },
      schema: { tags: ['reports'], summary: 'Read a report', params: ReportIdParams, response: { 200: ReportResponse, ...errors } },
    },
    async (request) => {
      const report = await requireReport(db, request.auth.workspaceId, request.params.report_id, { prefetched: request.fused });
      return { data: presentReport(report, app.publicBaseUrl), request_id: request.id };
    },
  );

  api.get(
    '/reports/:report_id/profiles',
    {
      config: { access: { kind: 'read', scopes: ['profiles:read'] } },
      schema: {
        tags: ['reports'],
        summary: "The report's active roster, newest first",
        params: ReportIdParams,
        querystring: ListQuery,
        response: { 200: ProfileList, ...errors },
      },
    },
    async (request) => {
      const report = await requireReport(db, request.auth.workspaceId, request.params.report_id);
      const page = await pageOfProfiles(ctx(request.auth.workspaceId), report.id, request.query as Defaulted<typeof request.query, 'limit'>);
      return { data: page.rows.map(presentProfile), page: { next_cursor: page.nextCursor }, request_id: request.id };
    },
  );

  api.get(
    '/reports/:report_id/scans/:scan_run_id',
    {
      config: { access: { kind: 'read', scopes: ['reports:read'] } },
      schema: {
        tags: ['scans'],
        summary: 'Read one scan run (does not start a scan)',
        params: Type.Object({ report_id: Uuid, scan_run_id: Uuid }, { additionalProperties: false }),
        response: { 200: ScanResponse, ...errors },
      },
    },
    async (request) => {
      const run = await requireScanRun(db, request.auth.workspaceId, request.params.report_id, request.params.scan_run_id);
      return { data: presentScan(run), request_id: request.id };
    },
  );
}
