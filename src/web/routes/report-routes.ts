/**
 * Report pages: the list, creating a report, a report's page (its
 * `workspace_url`), live progress, the people CSV, a person's page, evidence
 * images, adding people, archive/unarchive, share on/off, removing a person.
 * Every read and write goes through the use-cases the API uses, scoped to the
 * signed-in user's workspace: another workspace's report is "not found".
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { pageOfReports } from '../../use-cases/list-reports.js';
import { ReportsListPage } from '../pages/reports-list.js';
import { paths } from '../paths.js';
import { sendPage } from '../render.js';
import { viewerOf } from '../forms.js';

export const LIST_PAGE_SIZE = 25;

export async function reportRoutes(app: FastifyInstance): Promise<void> {
  const { db, clock } = app.deps;
  const listCtx = (workspaceId: string) => ({ db, clock, cursors: app.cursors, workspaceId });

  app.get<{ Querystring: { domain?: string; archived?: string; cursor?: string } }>(
    '/reports',
    { schema: { hide: true }, config: { signedIn: true } },
    async (request, reply) => {
      const user = request.web.user!;
      const domain = (request.query.domain ?? '').trim().slice(0, 2048);
      const includeArchived = request.query.archived === '1';
      const cursor = typeof request.query.cursor === 'string' && request.query.cursor.length <= 2048 ? request.query.cursor : undefined;
      let page;
      let error: string | undefined;
      try {
        page = await pageOfReports(listCtx(user.workspaceId), {
          limit: LIST_PAGE_SIZE,
          cursor,
          company_root_domain: domain === '' ? undefined : domain,
          include_archived: includeArchived,
        });
      } catch (failure) {
        if (!(failure instanceof ApiError) || failure.status !== 400) throw failure;
        error = cursor ? 'That page link is no longer valid; showing the first page.' : 'Enter a company domain such as acme.com or https://www.acme.com.';
        page = await pageOfReports(listCtx(user.workspaceId), {
          limit: LIST_PAGE_SIZE,
          company_root_domain: cursor && domain !== '' ? domain : undefined,
          include_archived: includeArchived,
        }).catch(() => ({ rows: [], nextCursor: null }));
      }
      let nextUrl: string | null = null;
      if (page.nextCursor) {
        const query = new URLSearchParams();
        if (domain) query.set('domain', domain);
        if (includeArchived) query.set('archived', '1');
        query.set('cursor', page.nextCursor);
        nextUrl = `${paths.reports}?${query.toString()}`;
      }
      return sendPage(
        reply,
        ReportsListPage({ csrf: request.web.csrf(), viewer: viewerOf(request), reports: page.rows, domain, includeArchived, nextUrl, isFirstPage: !cursor, error }),
      );
    },
  );
}
