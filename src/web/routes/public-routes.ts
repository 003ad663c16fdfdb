/**
 * GET /public/reports/:token, the page behind a report's `public_url`:
 * served without a session or key, limited per client address (429 with a
 * retry time), the token kept out of Referer headers. An unknown token, a
 * report made private again (its token is dropped) or an archived report is
 * 404. The page holds the aggregate picture only (use-cases/report-view.ts).
 */
import type { FastifyInstance } from 'fastify';
import { publicViewBuckets } from '../../domain/web-limits.js';
import { throttle } from '../../use-cases/client-limits.js';
import { readPublicReport } from '../../use-cases/report-view.js';
import { clientAddress } from '../forms.js';
import { PublicReportPage } from '../pages/public-report.js';
import { sendPage } from '../render.js';
import { tokenParams } from '../route-params.js';

export async function publicRoutes(app: FastifyInstance): Promise<void> {
  const { db, clock } = app.deps;

  app.get<{ Params: { token: string } }>(
    '/public/reports/:token',
    {
      schema: { hide: true, params: tokenParams },
      config: { stateless: true },
      // Before validation, so a malformed token is counted too.
      onRequest: async (request, reply) => {
        reply.header('Referrer-Policy', 'no-referrer');
        reply.header('X-Robots-Tag', 'noindex');
        await throttle(db, clock.now(), publicViewBuckets(clientAddress(request)), 'Too many views of shared reports from your address.');
      },
    },
    async (request, reply) => {
      const view = await readPublicReport(
        {
          db,
          clock,
          cursors: app.cursors,
          publicBaseUrl: app.publicBaseUrl,
        },
        request.params.token,
      );
      return sendPage(reply, PublicReportPage({ view }));
    },
  );
}
