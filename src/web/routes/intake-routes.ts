/**
 * Creating a report and adding people from the web: form → preview → commit.
 * The preview and the commit call the API's use-cases (create-report.ts,
 * import-profiles.ts previewImport / commitImport) with the API's schemas
 * and URL rules, an idempotency key fixed when the preview is shown (a
 * double click or a resubmitted page replays instead of adding twice), and
 * the workspace's limits. The preview carries the checked rows to the
 * commit in a hidden field, and the commit checks them all again.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { stringify } from 'csv-stringify/sync';
import { ApiError } from '../../domain/errors.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../domain/fingerprint.js';
import { IMPORTED_COLUMN_LIMITS, type SubmittedProfile } from '../../domain/roster-plan.js';
import { webWriteBuckets } from '../../domain/web-limits.js';
import { throttle } from '../../use-cases/client-limits.js';
import { createReport } from '../../use-cases/create-report.js';
import { commitImport, previewImport } from '../../use-cases/import-profiles.js';
import { previewNewReport } from '../../use-cases/preview-report.js';
import { readScanAllowance } from '../../use-cases/scan-allowance.js';
import { readWorkspace } from '../../use-cases/workspace-settings.js';
import { checkNewReport, checkPeople, describeDetails } from '../body-validation.js';
import { actorOf, field, upload, viewerOf } from '../forms.js';
import { ImportPage, ImportPreviewPage } from '../pages/report-import.js';
import { NewReportPage, NewReportPreviewPage, type NewReportValues } from '../pages/report-new.js';
import { paths } from '../paths.js';
import { parsePeople, PeopleInputError } from '../people-input.js';
import { sendPage } from '../render.js';
import { idParams } from '../route-params.js';
import { requireReport } from '../../use-cases/require-report.js';

const ReportParams = idParams('report_id');

/** The people back as the form's text: with a header when they carry imported columns, which it names. */
function asText(profiles: SubmittedProfile[]): string {
  const imported = [...new Set(profiles.flatMap((p) => Object.keys(p.columns ?? {})))];
  if (imported.length === 0)
    return stringify(
      profiles.map((p) => [p.pronet_url, p.name ?? '', p.title ?? '', p.headline ?? ''].filter((v, i, all) => i === 0 || all.slice(i).some((x) => x !== ''))),
    );
  return stringify([
    ['pronet_url', 'name', 'title', 'headline', ...imported],
    ...profiles.map((p) => [p.pronet_url, p.name ?? '', p.title ?? '', p.headline ?? '', ...imported.map((c) => p.columns?.[c] ?? '')]),
  ]);
}

function idempotencyKeyOf(request: FastifyRequest): string {
  const given = field(request, 'idempotency_key');
  return IDEMPOTENCY_KEY_PATTERN.test(given) ? given : `web-${randomUUID()}`;
}

function payloadOf<T>(request: FastifyRequest): T | null {
  try {
    const value = JSON.parse(field(request, 'payload')) as unknown;
    return value && typeof value === 'object' ? (value as T) : null;
  } catch {
    return null;
  }
}

/** Rows from the hidden payload, shaped like a submission (the four fields and the imported columns, strings, within their limits). */
function profilesFrom(value: unknown): SubmittedProfile[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, 101).map((row) => {
    const r = (row ?? {}) as Record<string, unknown>;
    const profile: SubmittedProfile = { pronet_url: typeof r.pronet_url === 'string' ? r.pronet_url : '' };
    for (const key of ['name', 'title', 'headline'] as const) if (typeof r[key] === 'string') profile[key] = r[key];
    const columns = Object.entries(r.columns && typeof r.columns === 'object' ? (r.columns as Record<string, unknown>) : {})
      .filter(([name, cell]) => typeof cell === 'string' && name.length <= IMPORTED_COLUMN_LIMITS.name && cell.length <= IMPORTED_COLUMN_LIMITS.value)
      .slice(0, IMPORTED_COLUMN_LIMITS.columns);
    if (columns.length > 0) profile.columns = Object.fromEntries(columns) as Record<string, string>;
    return profile;
  });
}

export async function intakeRoutes(app: FastifyInstance): Promise<void> {
  const { db, clock, config, queue } = app.deps;
  const liveConfigured = Boolean((config as { provider?: unknown }).provider);
  const defaultMode: 'test' | 'live' = liveConfigured ? 'live' : 'test';
  const options = { schema: { hide: true }, config: { signedIn: true } };
  const withReport = { schema: { hide: true, params: ReportParams }, config: { signedIn: true } };
  const modeOf = (value: unknown): 'test' | 'live' => (value === 'live' ? 'live' : value === 'test' ? 'test' : defaultMode);

  /** The signed-in user's write context: the workspace's limits, one web write counted per user. */
  async function writeContext(request: FastifyRequest, mode: 'test' | 'live') {
    const actor = actorOf(request);
    const { limits } = await readWorkspace({ db, clock, readLimitMultiplier: config.readLimitMultiplier }, actor);
    await throttle(db, clock.now(), webWriteBuckets(actor.userId, limits.writes_per_minute_per_key), 'Too many reports or imports in the last minute.');
    return { db, clock, queue, workspaceId: actor.workspaceId, keyMode: mode, limits };
  }

  // ------------------------------------------------------------ new report

  const blank: NewReportValues = { name: '', company_name: '', company_domain: '', company_page: '', mode: defaultMode, pasted: '' };
  const form = (request: FastifyRequest, reply: FastifyReply, values: NewReportValues, problems: string[] = [], status = 200) =>
    sendPage(reply, NewReportPage({ csrf: request.web.csrf(), viewer: viewerOf(request), values, problems, liveConfigured }), status);

  app.get('/reports/new', options, async (request, reply) => form(request, reply, blank));

  app.post('/reports/new', options, async (request, reply) => {
    const step = field(request, 'step');
    let values: NewReportValues;
    let profiles: SubmittedProfile[];
    if (step === 'commit' || step === 'edit') {
      const payload = payloadOf<{ values?: Partial<NewReportValues>; profiles?: unknown }>(request);
      if (!payload) return form(request, reply, blank, ['The form was incomplete; please fill it in again.'], 422);
      const v = payload.values ?? {};
      values = {
        name: String(v.name ?? ''),
        company_name: String(v.company_name ?? ''),
        company_domain: String(v.company_domain ?? ''),
        company_page: String(v.company_page ?? ''),
        mode: modeOf(v.mode),
        pasted: '',
      };
      profiles = profilesFrom(payload.profiles);
      if (step === 'edit') return form(request, reply, { ...values, pasted: asText(profiles) });
    } else {
      values = {
        name: field(request, 'name').trim(),
        company_name: field(request, 'company_name').trim(),
        company_domain: field(request, 'company_domain').trim(),
        company_page: field(request, 'company_page').trim(),
        mode: modeOf(field(request, 'mode')),
        pasted: field(request, 'people'),
      };
      try {
        profiles = parsePeople(values.pasted, upload(request, 'csv'));
      } catch (error) {
        if (error instanceof PeopleInputError) return form(request, reply, values, error.problems, 422);
        throw error;
      }
    }
    const body = {
      name: values.name,
      company: { name: values.company_name, domain: values.company_domain, pronet_company_url: values.company_page },
      profiles,
    };
    const checked = checkNewReport(body);
    if (checked.details.length > 0)
      return form(request, reply, { ...values, pasted: values.pasted || asText(profiles) }, describeDetails(checked.details), 422);

    if (step !== 'commit') {
      const payload = JSON.stringify({ values: { ...values, pasted: undefined }, profiles });
      return sendPage(
        reply,
        NewReportPreviewPage({
          csrf: request.web.csrf(),
          viewer: viewerOf(request),
          values,
          profiles,
          preview: previewNewReport(profiles, checked.urls),
          allowance: await readScanAllowance(db, request.web.user!.workspaceId, clock.now()),
          payload,
          idempotencyKey: `web-${randomUUID()}`,
        }),
      );
    }
    const ctx = await writeContext(request, values.mode);
    const result = await createReport({ ...ctx, cursors: app.cursors, publicBaseUrl: app.publicBaseUrl }, body, checked.urls, idempotencyKeyOf(request));
    const data = result.data as { outcome: string; report?: { id: string } };
    if (data.outcome !== 'created' || !data.report) throw new ApiError('internal_error', 500, 'The report was not created.');
    return reply.redirect(`${paths.report(data.report.id)}?done=created`, 303);
  });

  // ------------------------------------------------------------ add people

  app.get<{ Params: { report_id: string } }>('/reports/:report_id/import', withReport, async (request, reply) => {
    const report = await requireReport(db, request.web.user!.workspaceId, request.params.report_id);
    if (report.archived) throw new ApiError('report_archived', 409, 'The report is archived; unarchive it before adding people.');
    return sendPage(
      reply,
      ImportPage({
        csrf: request.web.csrf(),
        viewer: viewerOf(request),
        report,
        pasted: '',
        problems: [],
        mode: defaultMode,
        liveConfigured,
      }),
    );
  });

  app.post<{ Params: { report_id: string } }>('/reports/:report_id/import', withReport, async (request, reply) => {
    const workspaceId = request.web.user!.workspaceId;
    const report = await requireReport(db, workspaceId, request.params.report_id);
    const step = field(request, 'step');
    const page = (pasted: string, problems: string[], mode: 'test' | 'live', status = 422) =>
      sendPage(reply, ImportPage({ csrf: request.web.csrf(), viewer: viewerOf(request), report, pasted, problems, mode, liveConfigured }), status);
    let profiles: SubmittedProfile[];
    let mode: 'test' | 'live';
    let pasted = '';
    if (step === 'commit' || step === 'edit') {
      const payload = payloadOf<{ mode?: string; profiles?: unknown }>(request);
      if (!payload) return page('', ['The form was incomplete; please fill it in again.'], defaultMode);
      profiles = profilesFrom(payload.profiles);
      mode = modeOf(payload.mode);
      if (step === 'edit') return page(asText(profiles), [], mode, 200);
    } else {
      pasted = field(request, 'people');
      mode = modeOf(field(request, 'mode'));
      try {
        profiles = parsePeople(pasted, upload(request, 'csv'));
      } catch (error) {
        if (error instanceof PeopleInputError) return page(pasted, error.problems, mode);
        throw error;
      }
    }
    const checked = checkPeople(profiles);
    if (checked.details.length > 0) return page(pasted || asText(profiles), describeDetails(checked.details), mode);

    if (step !== 'commit') {
      // The API's preview (4.8 validation_only): plans against the roster as it is, changes nothing.
      const preview = await previewImport({ db, clock, queue, workspaceId, keyMode: mode, limits: undefined as never }, report.id, profiles, checked.urls);
      return sendPage(
        reply,
        ImportPreviewPage({
          csrf: request.web.csrf(),
          viewer: viewerOf(request),
          report,
          profiles,
          preview,
          allowance: await readScanAllowance(db, workspaceId, clock.now()),
          payload: JSON.stringify({ mode, profiles }),
          idempotencyKey: `web-${randomUUID()}`,
          mode,
        }),
      );
    }
    const ctx = await writeContext(request, mode);
    const result = await commitImport(ctx, report.id, profiles, checked.urls, idempotencyKeyOf(request));
    const c = (result.data as { counts: { added: number; restored: number; already_present: number; duplicate_in_input: number } }).counts;
    return reply.redirect(`${paths.report(report.id)}?done=imported&added=${c.added}&restored=${c.restored}&present=${c.already_present}`, 303);
  });
}
