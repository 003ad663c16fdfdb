/**
 * Groups of a report's people (docs/web.md, "Groups"): the compare view of
 * two to five groups of one imported column and the CSV of its figures.
 * Reads only, through use-cases/report-groups.ts, scoped to the signed-in
 * user's workspace: another workspace's report is "not found".
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readComparison } from '../../use-cases/report-groups.js';
import { readCsvSeparator } from '../../use-cases/export-preferences.js';
import { ComparePage } from '../pages/report-compare.js';
import { groupsCsv } from '../groups-csv.js';
import { sendPage } from '../render.js';
import { viewerOf } from '../forms.js';
import { idParams } from '../route-params.js';

type CompareQuery = { by?: string; value?: string | string[] };

/** The column and the values asked for (bounded: a value is at most an imported column's 200 characters). */
function choice(query: CompareQuery): { column: string; values: string[] } {
  const values = query.value === undefined ? [] : Array.isArray(query.value) ? query.value : [query.value];
  return { column: (query.by ?? '').slice(0, 100), values: values.slice(0, 50).map((v) => v.slice(0, 200)) };
}

export async function groupRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.deps;
  const scope = (request: FastifyRequest) => ({ db, workspaceId: request.web.user!.workspaceId });

  app.get<{ Params: { report_id: string }; Querystring: CompareQuery }>(
    '/reports/:report_id/compare',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const { column, values } = choice(request.query);
      const comparison = await readComparison(scope(request), request.params.report_id, column, values);
      return sendPage(reply, ComparePage({ csrf: request.web.csrf(), viewer: viewerOf(request), ...comparison }));
    },
  );

  app.get<{ Params: { report_id: string }; Querystring: CompareQuery }>(
    '/reports/:report_id/groups.csv',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const { column, values } = choice(request.query);
      const comparison = await readComparison(scope(request), request.params.report_id, column, values);
      const name = `${
        comparison.report.name
          .replace(/[^A-Za-z0-9._-]+/g, '-')
          .replace(/^-+|-+$/g, '')
          .slice(0, 60) || 'report'
      }-groups.csv`;
      reply.header('Content-Disposition', `attachment; filename="${name}"`).header('Cache-Control', 'private, no-store');
      const separator = await readCsvSeparator(db, request.web.user!.userId);
      return reply.type('text/csv; charset=utf-8').send(groupsCsv(comparison, separator));
    },
  );
}
