/**
 * Report pages: the list, creating a report, a report's page (its
 * `workspace_url`), live progress, the people CSV, a person's page, evidence
 * images, adding people, archive/unarchive, share on/off, removing a person,
 * and the report's private links (made, listed, revoked).
 * Every read and write goes through the use-cases the API uses, scoped to the
 * signed-in user's workspace: another workspace's report is "not found".
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, notFound } from '../../domain/errors.js';
import type { MediaStore } from '../../scanning/media/media-store.js';
import { pageOfReports, reportScores } from '../../use-cases/list-reports.js';
import { removePerson, setReportArchived, setReportSharing } from '../../use-cases/manage-report.js';
import { readAttachment, readPerson, readProgress, readReportOverview, type ViewContext } from '../../use-cases/report-view.js';
import { groupColumnsOf, PEOPLE_SORTS, readReportPeople, reportTeamActions, selectPeople, STATUS_FILTERS, titlesOf } from '../../use-cases/report-people.js';
import { filteredGroupFigures } from '../../use-cases/report-groups.js';
import { runCountsLabel, runFinished, runStatusLabel, scansStatusText } from '../components/runs.js';
import { PersonPage } from '../pages/person.js';
import { ReportPage, type PeopleQuery } from '../pages/report.js';
import { ReportsListPage } from '../pages/reports-list.js';
import { paths } from '../paths.js';
import { peopleCsv, peopleXlsx, type PeopleExport } from '../people-csv.js';
import { readPeopleProgress, readPersonProgress, readReportProgress } from '../../use-cases/progress.js';
import { readCsvSeparator, rememberCsvSeparator, setCompanyDisplayName } from '../../use-cases/export-preferences.js';
import { reportCompanyDisplayName } from '../../domain/company-name.js';
import { sendPage } from '../render.js';
import { actorOf, field, fields, viewerOf } from '../forms.js';
import { openEvidence } from '../../use-cases/read-evidence.js';
import { idParams, linkIdParams } from '../route-params.js';
import { askFirst } from '../pages/confirm.js';
import { commonGaps } from '../../domain/fix-first.js';
import { peopleStatesOf } from '../components/plain-words.js';
import { requireReport } from '../../use-cases/require-report.js';
import { describePerson } from '../../use-cases/personal-data.js';
import { can } from '../../domain/permissions.js';
import { activeLinkTokens, createPersonLinks, linkDays, listReportPersonLinks, revokeReportPersonLinks } from '../../use-cases/person-links.js';
import { ReportLinksPage, type ReportLinksProps } from '../pages/report-links.js';
import { refreshReport, type RefreshTarget } from '../../use-cases/refresh-report.js';
import { readRefreshSchedule, setRefreshSchedule } from '../../use-cases/refresh-schedule.js';
import { CADENCE_TEXT, parseCadence } from '../../domain/refresh-schedule.js';
import { webWriteBuckets } from '../../domain/web-limits.js';
import { throttle } from '../../use-cases/client-limits.js';
import { readWorkspace } from '../../use-cases/workspace-settings.js';

export const PEOPLE_PAGE_SIZE = 50;

/** Gaps named per person in the people table (the person's page lists them all). */
const FIX_FIRST_IN_TABLE = 2;
/** The most common gaps the report page opens with. */
const COMMON_GAPS_SHOWN = 5;

/** The table's search, filters, order and page from the query string (anything unknown falls back to the default). */
function peopleQuery(query: Record<string, string | undefined>): PeopleQuery {
  const sort = PEOPLE_SORTS.find((s) => s === query.sort) ?? 'name';
  const outcome = query.outcome === 'good' || query.outcome === 'optimize' || query.outcome === 'unknown' ? query.outcome : '';
  const status = STATUS_FILTERS.find((s) => s === query.status) ?? '';
  const page = /^\d{1,6}$/.test(query.page ?? '') ? Math.max(1, Number(query.page)) : 1;
  return {
    search: (query.q ?? '').slice(0, 200),
    title: (query.title ?? '').slice(0, 500),
    group: (query.group ?? '').slice(0, 500),
    check: (query.check ?? '').slice(0, 100),
    outcome,
    status,
    sort,
    descending: query.dir === 'desc',
    page,
  };
}

export const LIST_PAGE_SIZE = 25;

export async function reportRoutes(app: FastifyInstance, options: { media: Pick<MediaStore, 'open'> }): Promise<void> {
  const { db, clock } = app.deps;
  const listCtx = (workspaceId: string) => ({ db, clock, cursors: app.cursors, workspaceId });
  const view = (request: FastifyRequest): ViewContext => ({
    db,
    clock,
    cursors: app.cursors,
    workspaceId: request.web.user!.workspaceId,
    publicBaseUrl: app.publicBaseUrl,
    imageUrl: (reportId, imageId, variant) => paths.evidence(reportId, imageId, variant),
  });
  const scope = (request: FastifyRequest) => ({ db, workspaceId: request.web.user!.workspaceId, now: clock.now(), userId: request.web.user!.userId });
  const linkScope = (request: FastifyRequest) => ({ db, clock, workspaceId: request.web.user!.workspaceId, userId: request.web.user!.userId });

  async function renderLinks(request: FastifyRequest, reply: FastifyReply, reportId: string, extra: Partial<ReportLinksProps> = {}, status = 200) {
    const ctx = linkScope(request);
    const report = await requireReport(db, ctx.workspaceId, reportId);
    const [people, links] = await Promise.all([readReportPeople(ctx, reportId), listReportPersonLinks(ctx, reportId)]);
    return sendPage(
      reply,
      ReportLinksPage({
        csrf: request.web.csrf(),
        viewer: viewerOf(request),
        report,
        people: people.map((p) => ({ profile_id: p.profile_id, display_name: p.display_name })),
        links,
        ...extra,
      }),
      status,
    );
  }

  const LINK_NOTICES: Record<string, string> = {
    revoked: 'The link was revoked: it no longer opens.',
    revoked_all: 'Every active link of the report was revoked.',
  };

  app.get<{ Params: { report_id: string }; Querystring: { done?: string } }>(
    '/reports/:report_id/links',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => renderLinks(request, reply, request.params.report_id, { notice: LINK_NOTICES[request.query.done ?? ''] }),
  );

  // The new links are shown in the answer itself, once: only their hashes are stored.
  app.post<{ Params: { report_id: string } }>(
    '/reports/:report_id/links',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      let created;
      try {
        created = await createPersonLinks(linkScope(request), request.params.report_id, field(request, 'person'), linkDays(field(request, 'days')));
      } catch (error) {
        if (error instanceof ApiError && error.status === 422) return renderLinks(request, reply, request.params.report_id, { error: error.message }, 422);
        throw error;
      }
      const base = app.publicBaseUrl.replace(/\/$/, '');
      return renderLinks(request, reply, request.params.report_id, {
        created: created.map((c) => ({ ...c, url: `${base}${paths.sharedPerson(c.token)}` })),
      });
    },
  );

  app.post<{ Params: { report_id: string; link_id: string } }>(
    '/reports/:report_id/links/:link_id/revoke',
    { schema: { hide: true, params: linkIdParams }, config: { signedIn: true } },
    async (request, reply) => {
      await revokeReportPersonLinks(linkScope(request), request.params.report_id, request.params.link_id);
      return reply.redirect(`${paths.reportLinks(request.params.report_id)}?done=revoked`, 303);
    },
  );

  app.post<{ Params: { report_id: string } }>(
    '/reports/:report_id/links/revoke-all',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      await revokeReportPersonLinks(linkScope(request), request.params.report_id, null);
      return reply.redirect(`${paths.reportLinks(request.params.report_id)}?done=revoked_all`, 303);
    },
  );

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
        ReportsListPage({
          csrf: request.web.csrf(),
          viewer: viewerOf(request),
          reports: page.rows,
          scores: await reportScores(
            { db },
            page.rows.map((r) => r.id),
          ),
          domain,
          includeArchived,
          nextUrl,
          isFirstPage: !cursor,
          error,
        }),
      );
    },
  );

  app.get<{ Params: { report_id: string }; Querystring: Record<string, string | undefined> }>(
    '/reports/:report_id',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const ctx = view(request);
      // The runs first, then the people: the rows then show at least the finished items the runs count
      // (data-finished), so live.js refreshes them whenever its first poll counts more.
      const overview = await readReportOverview(ctx, request.params.report_id);
      const everyone = await readReportPeople(ctx, request.params.report_id);
      const progress = await readReportProgress(ctx, request.params.report_id);
      const query = peopleQuery(request.query);
      const sorted = selectPeople(everyone, query);
      const pageCount = Math.max(1, Math.ceil(sorted.length / PEOPLE_PAGE_SIZE));
      query.page = Math.min(query.page, pageCount);
      const { report, summary, runs, waiting } = overview;
      // A group filter scopes the figures too (score, coverage, gaps, chart, trouble counts): summed from the same people as the rows.
      const groupFigures = filteredGroupFigures(everyone, query.group, COMMON_GAPS_SHOWN);
      const scoped = groupFigures ? selectPeople(everyone, { ...query, search: '', title: '', check: '', outcome: '', status: '' }) : everyone;
      const liveLinks = can(request.web.user!.role, 'share_report')
        ? (await listReportPersonLinks(linkScope(request), report.id)).filter((l) => l.state === 'active').length
        : 0;
      const notices: Record<string, string> = {
        shared: 'The report is shared: the public link shows its aggregate picture only.',
        unshared: 'The report is no longer shared; the old public link stopped working.',
        archived: 'The report is archived.',
        unarchived: 'The report is active again.',
        removed: 'The person was removed from the report.',
        separator: 'Your CSV exports now use the separator you chose.',
        company_name: "The company's name in advice was saved.",
        erased: 'The person was erased: nothing stored about them on this report is left.',
        created: 'The report was created; its scans are queued.',
        refreshed: `Scans queued for ${Number(request.query.queued) || 0} ${Number(request.query.queued) === 1 ? 'person' : 'people'}${
          Number(request.query.pending) > 0 ? `; ${Number(request.query.pending)} already waiting to be scanned` : ''
        }. The results below stay shown until the new scans finish.`,
        schedule: `Refresh schedule saved: ${CADENCE_TEXT[parseCadence(request.query.cadence) ?? 'off'].toLowerCase()}.`,
        imported:
          `People added: ${Number(request.query.added) || 0} added, ` +
          `${Number(request.query.restored) || 0} restored, ${Number(request.query.present) || 0} already on the report.`,
      };
      return sendPage(
        reply,
        ReportPage({
          csrf: request.web.csrf(),
          viewer: viewerOf(request),
          liveLinks,
          report: { ...report, public_url: summary.links.public_url },
          summary,
          gaps: groupFigures
            ? groupFigures.gaps
            : commonGaps(summary.optimization_summary.checks, summary.coverage.optimization.analyzed_profiles, COMMON_GAPS_SHOWN),
          groupFigures,
          teamActions: reportTeamActions(everyone.map((p) => p.outcomes)),
          companyDisplayName: reportCompanyDisplayName(report),
          csvSeparator: await readCsvSeparator(db, request.web.user!.userId),
          runs,
          collectionPaused: overview.collectionPaused,
          people: sorted.slice((query.page - 1) * PEOPLE_PAGE_SIZE, query.page * PEOPLE_PAGE_SIZE).map((p) => ({
            ...p,
            fix_first: p.fix_first.slice(0, FIX_FIRST_IN_TABLE),
          })),
          titles: titlesOf(everyone),
          columns: groupColumnsOf(everyone),
          states: peopleStatesOf(scoped),
          totalPeople: everyone.length,
          matchingPeople: sorted.length,
          query,
          pageCount,
          live: runs.some((r) => r.status === 'queued' || r.status === 'running'),
          waiting,
          notice: notices[request.query.done ?? ''],
          sharedNow: request.query.done === 'shared',
          schedule: await readRefreshSchedule(db, ctx.workspaceId, report.id),
          progress,
        }),
      );
    },
  );

  // Live progress for live.js (the page itself works without it).
  app.get<{ Params: { report_id: string } }>(
    '/reports/:report_id/progress',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const progress = await readProgress(view(request), request.params.report_id);
      return reply.type('application/json; charset=utf-8').send({
        done: progress.done,
        waiting: progress.waiting,
        status_text: scansStatusText(progress.waiting, progress.collectionPaused),
        runs: progress.runs.map((r) => ({
          id: r.id,
          status: r.status,
          status_label: runStatusLabel(r, progress.waiting, progress.collectionPaused !== null),
          counts_label: runCountsLabel(r),
          requested: r.requested,
          finished: runFinished(r),
        })),
      });
    },
  );

  /** The export's file name: the report's name in safe characters. */
  const exportName = (reportName: string, ext: 'csv' | 'xlsx') =>
    `${
      reportName
        .replace(/[^A-Za-z0-9._-]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 60) || 'report'
    }-people.${ext}`;

  async function sendExport(request: FastifyRequest, reply: FastifyReply, input: PeopleExport & { reportName: string }, format: 'csv' | 'xlsx') {
    const name = exportName(input.reportName, format);
    reply.header('Content-Disposition', `attachment; filename="${name}"`).header('Cache-Control', 'private, no-store');
    if (format === 'xlsx') {
      return reply.type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet').send(await peopleXlsx(input));
    }
    const separator = await readCsvSeparator(db, request.web.user!.userId);
    return reply.type('text/csv; charset=utf-8').send(peopleCsv(input, separator));
  }

  for (const format of ['csv', 'xlsx'] as const) {
    app.get<{ Params: { report_id: string }; Querystring: Record<string, string | undefined> }>(
      `/reports/:report_id/people.${format}`,
      { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
      async (request, reply) => {
        const ctx = view(request);
        const { report } = await readReportOverview(ctx, request.params.report_id);
        // The table's people in the table's order: the same search, filters and sort (not its page).
        const people = selectPeople(await readReportPeople(ctx, request.params.report_id), peopleQuery(request.query));
        const columns = request.query.columns === 'machine' ? 'machine' : 'human';
        const progress = await readPeopleProgress(ctx, request.params.report_id);
        return sendExport(request, reply, { reportName: report.name, people, companyName: reportCompanyDisplayName(report), columns, progress }, format);
      },
    );
  }

  // Right after making links, their addresses are on the page once; this export carries them in its "Private link" column.
  app.post<{ Params: { report_id: string } }>(
    '/reports/:report_id/links/people-export',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const ctx = view(request);
      const report = await requireReport(db, ctx.workspaceId, request.params.report_id);
      const tokensByPerson = await activeLinkTokens(linkScope(request), report.id, fields(request, 'token'));
      const base = app.publicBaseUrl.replace(/\/$/, '');
      const links = new Map([...tokensByPerson].map(([profileId, token]) => [profileId, `${base}${paths.sharedPerson(token)}`]));
      const people = (await readReportPeople(ctx, report.id)).filter((p) => links.has(p.profile_id));
      const format = field(request, 'format') === 'xlsx' ? 'xlsx' : 'csv';
      return sendExport(request, reply, { reportName: report.name, people, companyName: reportCompanyDisplayName(report), columns: 'human', links }, format);
    },
  );

  // Each user's separator, remembered for their next CSV (every role may choose its own).
  app.post<{ Params: { report_id: string } }>(
    '/reports/:report_id/csv-separator',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      await requireReport(db, request.web.user!.workspaceId, request.params.report_id);
      await rememberCsvSeparator(db, request.web.user!.userId, field(request, 'separator'));
      return reply.redirect(`${paths.report(request.params.report_id)}?done=separator#people-heading`, 303);
    },
  );

  app.post<{ Params: { report_id: string } }>(
    '/reports/:report_id/company-name',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      await setCompanyDisplayName(scope(request), request.params.report_id, field(request, 'display_company_name'));
      return reply.redirect(`${paths.report(request.params.report_id)}?done=company_name`, 303);
    },
  );

  app.get<{ Params: { report_id: string; profile_id: string } }>(
    '/reports/:report_id/people/:profile_id',
    { schema: { hide: true, params: idParams('report_id', 'profile_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const person = await readPerson(view(request), request.params.report_id, request.params.profile_id);
      const queued = Number((request.query as { queued?: string }).queued) || 0;
      const notice =
        (request.query as { done?: string }).done === 'refreshed'
          ? queued > 0
            ? 'A new scan is queued. The results above stay shown until it finishes.'
            : 'A scan of this person was already waiting; nothing more was queued.'
          : undefined;
      const progress = await readPersonProgress(view(request), request.params.report_id, request.params.profile_id);
      return sendPage(reply, PersonPage({ csrf: request.web.csrf(), viewer: viewerOf(request), ...person, notice, progress }));
    },
  );

  app.get<{ Params: { report_id: string; image_id: string }; Querystring: { variant?: string } }>(
    '/reports/:report_id/evidence/:image_id',
    { schema: { hide: true, params: idParams('report_id', 'image_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const variant = request.query.variant === 'preview' ? 'preview' : 'original';
      const { db, workspaceId } = view(request);
      const image = await openEvidence({ db, workspaceId, media: options.media, log: request.log }, request.params.report_id, request.params.image_id, variant);
      return (
        reply
          .type(image.type)
          .header('Cache-Control', 'private, no-store')
          .header('Content-Length', String(image.size))
          // Opened on its own, the browser shows the image in a viewer document of its own styling; it runs nothing.
          .header('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox")
          .send(image.stream())
      );
    },
  );

  app.post<{ Params: { report_id: string } }>(
    '/reports/:report_id/archive',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const archive = field(request, 'archived') === '1';
      if (archive) {
        const asked = await askFirst(request, reply, {
          precheck: () => requireReport(db, request.web.user!.workspaceId, request.params.report_id),
          title: (report) => `Archive the report “${report.name}”?`,
          consequence:
            'Archiving hides the report from the list, cancels its unfinished scans and refuses new people. Nothing is deleted: you can unarchive it later, and add people again to scan them.',
          confirm: 'Archive',
          back: paths.report(request.params.report_id),
        });
        if (asked) return reply;
      }
      const report = await setReportArchived(scope(request), request.params.report_id, archive);
      if (!report) throw notFound('report');
      return reply.redirect(`${paths.report(report.id)}?done=${archive ? 'archived' : 'unarchived'}`, 303);
    },
  );

  app.post<{ Params: { report_id: string } }>(
    '/reports/:report_id/share',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const share = field(request, 'public') === '1';
      const report = await setReportSharing(scope(request), request.params.report_id, share);
      if (!report) throw notFound('report');
      return reply.redirect(`${paths.report(report.id)}?done=${share ? 'shared' : 'unshared'}`, 303);
    },
  );

  app.post<{ Params: { report_id: string; profile_id: string } }>(
    '/reports/:report_id/people/:profile_id/remove',
    { schema: { hide: true, params: idParams('report_id', 'profile_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const asked = await askFirst(request, reply, {
        precheck: async () => {
          await readAttachment(scope(request), request.params.report_id, request.params.profile_id);
          const report = await requireReport(db, request.web.user!.workspaceId, request.params.report_id);
          return { person: await describePerson(db, request.web.user!.workspaceId, report.id, request.params.profile_id), report };
        },
        title: ({ person, report }) => `Remove ${person.name} from the report “${report.name}”?`,
        consequence: "They leave the report's people, scores and export. Their details and history are kept: adding the same profile again restores them.",
        confirm: 'Remove',
        back: paths.person(request.params.report_id, request.params.profile_id),
      });
      if (asked) return reply;
      const removed = await removePerson(scope(request), request.params.report_id, request.params.profile_id);
      if (!removed) throw notFound('person');
      return reply.redirect(`${paths.report(request.params.report_id)}?done=removed`, 303);
    },
  );

  /** A web write: counted against the signed-in user's write limit, as adding people is. */
  async function throttled(request: FastifyRequest) {
    const user = request.web.user!;
    const { limits } = await readWorkspace({ db, clock, readLimitMultiplier: app.deps.config.readLimitMultiplier }, actorOf(request));
    await throttle(db, clock.now(), webWriteBuckets(user.userId, limits.writes_per_minute_per_key), 'Too many changes in the last minute.');
  }

  async function startRefresh(request: FastifyRequest, reply: FastifyReply, reportId: string, target: RefreshTarget, back: string) {
    await throttled(request);
    const workspaceId = request.web.user!.workspaceId;
    const result = await refreshReport({ db, clock, queue: app.deps.queue, workspaceId }, reportId, { target });
    const { people_queued: queued, people_requested: requested } = result.data;
    return reply.redirect(`${back}?done=refreshed&queued=${queued}&pending=${requested - queued}`, 303);
  }

  // "Scan again" (every active person) and "Try these again" (those whose latest scan failed or was inaccessible).
  app.post<{ Params: { report_id: string } }>(
    '/reports/:report_id/refresh',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const reportId = request.params.report_id;
      const unsuccessful = field(request, 'people') === 'unsuccessful';
      const asked = await askFirst(request, reply, {
        precheck: () => requireReport(db, request.web.user!.workspaceId, reportId),
        title: (report) =>
          unsuccessful ? `Try the people of “${report.name}” who failed or were inaccessible again?` : `Scan every person of “${report.name}” again?`,
        consequence: unsuccessful
          ? 'Each person whose latest scan failed or whose profile was inaccessible is scanned again, and the company page with them. Each costs one scan of the monthly allowance.'
          : 'Every person on the report and the company page are scanned again. Each person costs one scan of the monthly allowance (people already waiting cost nothing). The current results stay shown until the new scans finish.',
        confirm: unsuccessful ? 'Try these again' : 'Scan again',
        back: paths.report(reportId),
      });
      if (asked) return reply;
      return startRefresh(request, reply, reportId, unsuccessful ? { kind: 'unsuccessful' } : { kind: 'report' }, paths.report(reportId));
    },
  );

  app.post<{ Params: { report_id: string; profile_id: string } }>(
    '/reports/:report_id/people/:profile_id/refresh',
    { schema: { hide: true, params: idParams('report_id', 'profile_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const { report_id: reportId, profile_id: profileId } = request.params;
      const asked = await askFirst(request, reply, {
        precheck: async () => {
          await readAttachment(scope(request), reportId, profileId);
          const report = await requireReport(db, request.web.user!.workspaceId, reportId);
          return { person: await describePerson(db, request.web.user!.workspaceId, report.id, profileId), report };
        },
        title: ({ person, report }) => `Scan ${person.name} of “${report.name}” again?`,
        consequence:
          'Their profile and activity are scanned again (one scan of the monthly allowance). Their current results stay shown until the new scan finishes.',
        confirm: 'Scan again',
        back: paths.person(reportId, profileId),
      });
      if (asked) return reply;
      return startRefresh(request, reply, reportId, { kind: 'people', profileIds: [profileId] }, paths.person(reportId, profileId));
    },
  );

  app.post<{ Params: { report_id: string } }>(
    '/reports/:report_id/refresh-schedule',
    { schema: { hide: true, params: idParams('report_id') }, config: { signedIn: true } },
    async (request, reply) => {
      const cadence = parseCadence(field(request, 'cadence'));
      if (!cadence) throw new ApiError('validation_failed', 'Choose off, every week or every month. Nothing was changed.');
      await throttled(request);
      await setRefreshSchedule({ db, clock, workspaceId: request.web.user!.workspaceId }, request.params.report_id, cadence);
      return reply.redirect(`${paths.report(request.params.report_id)}?done=schedule&cadence=${cadence}#refresh-heading`, 303);
    },
  );
}
