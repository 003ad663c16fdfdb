/**
 * GET /public/reports/:token, the page behind a report's `public_url`:
 * served without a session or key, limited per client address (429 with a
 * retry time), the token kept out of Referer headers. An unknown token, a
 * report made private again (its token is dropped) or an archived report is
 * 404. The page holds the aggregate picture only (use-cases/report-view.ts).
 *
 * GET /shared/people/:token, a private link: one person's page of one report
 * (use-cases/person-links.ts), without navigation or anything of the rest of
 * the workspace, and that person's evidence images under the same token
 * (/shared/people/:token/evidence/:image_id). Nothing else answers under it:
 * every other address is 404. Limited per client address like the public
 * page; the token is kept out of Referer headers and of the logs.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../domain/errors.js';
import { personLinkBuckets, publicViewBuckets } from '../../domain/web-limits.js';
import { throttle } from '../../use-cases/client-limits.js';
import { readPublicReport } from '../../use-cases/report-view.js';
import { openPersonLink, openPersonLinkEvidence } from '../../use-cases/person-links.js';
import { clientAddress } from '../forms.js';
import { PersonPage } from '../pages/person.js';
import { PublicReportPage } from '../pages/public-report.js';
import { paths } from '../paths.js';
import { sendPage } from '../render.js';
import { tokenImageParams, tokenParams } from '../route-params.js';

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

  /** Before validation, so a malformed token is counted too. */
  const personalHeaders = (what: 'page' | 'image') => async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Robots-Tag', 'noindex');
    reply.header('Cache-Control', 'private, no-store');
    await throttle(db, clock.now(), personLinkBuckets(clientAddress(request), what), 'Too many views of shared pages from your address.');
  };

  app.get<{ Params: { token: string } }>(
    '/shared/people/:token',
    { schema: { hide: true, params: tokenParams }, config: { stateless: true }, onRequest: personalHeaders('page') },
    async (request, reply) => {
      const person = await openPersonLink(
        { db, clock, cursors: app.cursors, publicBaseUrl: app.publicBaseUrl, imageUrl: paths.sharedEvidence },
        request.params.token,
      );
      return sendPage(reply, PersonPage({ ...person, shared: true }));
    },
  );

  app.get<{ Params: { token: string; image_id: string }; Querystring: { variant?: string } }>(
    '/shared/people/:token/evidence/:image_id',
    {
      schema: { hide: true, params: tokenImageParams },
      config: { stateless: true },
      onRequest: personalHeaders('image'),
    },
    async (request, reply) => {
      const variant = request.query.variant === 'preview' ? 'preview' : 'original';
      const image = await openPersonLinkEvidence(
        { db, clock, media: app.deps.media, log: request.log },
        request.params.token,
        request.params.image_id,
        variant,
      );
      return reply
        .type(image.type)
        .header('Content-Length', String(image.size))
        .header('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox")
        .send(image.stream());
    },
  );

  // Anything else under a private link is the link's own 404 page (not the API's "no such endpoint").
  app.get('/shared/people/:token/*', { schema: { hide: true }, config: { stateless: true }, onRequest: personalHeaders('page') }, async () => {
    throw notFound('page');
  });
}
