/**
 * Creating a report and adding people from the web: form → preview → commit.
 * The preview and the commit call the API's use-cases (create-report.ts,
 * import-profiles.ts previewImport / commitImport) with the API's schemas
 * and URL rules, an idempotency key fixed when the preview is shown (a
 * double click or a resubmitted page replays instead of adding twice), and
 * the workspace's limits. The preview carries the checked rows to the
 * commit in a hidden field, and the commit checks them all again.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { stringify } from 'csv-stringify/sync';
import { ApiError } from '../../domain/errors.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../domain/fingerprint.js';
import { batchesOf, batchKey } from '../../domain/people-sheet.js';
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
import type { LeaveOut } from '../components/people-form.js';
import { MAX_PEOPLE, parsePeople, PEOPLE_PER_IMPORT, PeopleInputError, type PeopleInput } from '../people-input.js';
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

function payloadOf<T>(request: FastifyRequest, name = 'payload'): T | null {
  try {
    const value = JSON.parse(field(request, name)) as unknown;
    return value && typeof value === 'object' ? (value as T) : null;
  } catch {
    return null;
  }
}

/** Rows from the hidden payload, shaped like a submission (the four fields and the imported columns, strings, within their limits). */
function profilesFrom(value: unknown): SubmittedProfile[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, MAX_PEOPLE + 1).map((row) => {
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

/** Where each row came from, from the hidden payload ("Row 7"); "Person N" when absent. */
function originsFrom(value: unknown, count: number): string[] {
  const given = Array.isArray(value) ? value : [];
  return Array.from({ length: count }, (_, i) => {
    const origin: unknown = given[i];
    return typeof origin === 'string' && /^(Row|Line) \d{1,7}( of the pasted list)?$/u.test(origin) ? origin : `Person ${i + 1}`;
  });
}

/**
 * What the preview's "use this column" form sends back: the text pasted and
 * the file's text, so that the people can be read again with the URL column
 * the user chose.
 */
interface SheetSource {
  pasted: string;
  file: string;
}

function sheetSourceOf(request: FastifyRequest): (SheetSource & { urlColumn: string }) | null {
  const value = payloadOf<Partial<SheetSource>>(request, 'sheet');
  if (!value || typeof value.pasted !== 'string' || typeof value.file !== 'string') return null;
  return { pasted: value.pasted, file: value.file, urlColumn: field(request, 'url_column') };
}

/**
 * The offer to leave out the rows that cannot be imported and preview the
 * rest: the same text is sent again (a file input cannot be refilled), with
 * the column chosen and the form's other fields.
 */
function leaveOutOf(error: PeopleInputError, sheet: SheetSource, urlColumn: string | undefined, resend: Record<string, string>): LeaveOut | null {
  if (error.leavable === 0) return null;
  return { rows: error.leavable, sheet: JSON.stringify(sheet), resend: { ...resend, ...(urlColumn ? { url_column: urlColumn } : {}) } };
}

/**
 * The idempotency-key prefix of an import into a report: derived from the
 * report, the data source and the people, so that sending the same list
 * again (the preview resubmitted, or the file uploaded again after the page
 * was closed) replays the imports already committed and commits the rest,
 * and never adds anyone twice.
 */
function importKeyPrefix(reportId: string, mode: string, profiles: SubmittedProfile[]): string {
  return `web-import-${createHash('sha256')
    .update(JSON.stringify([reportId, mode, profiles]))
    .digest('hex')
    .slice(0, 40)}`;
}

type ImportCounts = { added: number; restored: number; already_present: number; duplicate_in_input: number };

/** The people as several imports of at most PEOPLE_PER_IMPORT, in order, each with its own idempotency key. */
async function commitInBatches(
  ctx: Parameters<typeof commitImport>[0],
  reportId: string,
  profiles: SubmittedProfile[],
  urls: string[],
  keyOf: (index: number, count: number) => string,
): Promise<ImportCounts> {
  const totals: ImportCounts = { added: 0, restored: 0, already_present: 0, duplicate_in_input: 0 };
  const batches = batchesOf(profiles, PEOPLE_PER_IMPORT);
  const urlBatches = batchesOf(urls, PEOPLE_PER_IMPORT);
  for (const [index, batch] of batches.entries()) {
    const result = await commitImport(ctx, reportId, batch, urlBatches[index], keyOf(index, batches.length));
    const c = (result.data as { counts: ImportCounts }).counts;
    for (const k of Object.keys(totals) as (keyof ImportCounts)[]) totals[k] += c[k];
  }
  return totals;
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
  const form = (
    request: FastifyRequest,
    reply: FastifyReply,
    values: NewReportValues,
    problems: string[] = [],
    status = 200,
    leaveOut: LeaveOut | null = null,
  ) => sendPage(reply, NewReportPage({ csrf: request.web.csrf(), viewer: viewerOf(request), values, problems, liveConfigured, leaveOut }), status);

  app.get('/reports/new', options, async (request, reply) => form(request, reply, blank));

  app.post('/reports/new', options, async (request, reply) => {
    const step = field(request, 'step');
    let values: NewReportValues;
    let input: PeopleInput;
    let sheet: SheetSource | null = null;
    if (step === 'commit' || step === 'edit') {
      const payload = payloadOf<{ values?: Partial<NewReportValues>; profiles?: unknown; origins?: unknown }>(request);
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
      const profiles = profilesFrom(payload.profiles);
      input = { profiles, origins: originsFrom(payload.origins, profiles.length), ignored: [], urlColumns: null, leftOut: [] };
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
      const again = sheetSourceOf(request);
      const file = again ? (again.file === '' ? null : Buffer.from(again.file)) : upload(request, 'csv');
      if (again) values.pasted = again.pasted;
      sheet = { pasted: values.pasted, file: file?.toString('utf8') ?? '' };
      try {
        input = parsePeople(values.pasted, file, { urlColumn: again?.urlColumn, leaveOut: field(request, 'leave_out') === 'yes' });
      } catch (error) {
        if (!(error instanceof PeopleInputError)) throw error;
        const resend = {
          name: values.name,
          company_name: values.company_name,
          company_domain: values.company_domain,
          company_page: values.company_page,
          mode: values.mode,
        };
        return form(request, reply, values, error.problems, 422, leaveOutOf(error, sheet, again?.urlColumn, resend));
      }
    }
    const { profiles } = input;
    // A report is created with the first PEOPLE_PER_IMPORT people (the API's create takes no more); the rest are imported into it.
    const body = {
      name: values.name,
      company: { name: values.company_name, domain: values.company_domain, pronet_company_url: values.company_page },
      profiles: profiles.slice(0, PEOPLE_PER_IMPORT),
    };
    const checked = checkNewReport(body);
    const rest = profiles.length > PEOPLE_PER_IMPORT ? checkPeople(profiles.slice(PEOPLE_PER_IMPORT), PEOPLE_PER_IMPORT) : { urls: [], details: [] };
    const details = [...checked.details, ...rest.details.map((d) => (d.row_number === undefined ? d : { ...d, row_number: d.row_number + PEOPLE_PER_IMPORT }))];
    const urls = [...checked.urls, ...rest.urls];
    if (details.length > 0) return form(request, reply, { ...values, pasted: values.pasted || asText(profiles) }, describeDetails(details, input), 422);

    if (step !== 'commit') {
      const payload = JSON.stringify({ values: { ...values, pasted: undefined }, profiles, origins: input.origins });
      return sendPage(
        reply,
        NewReportPreviewPage({
          csrf: request.web.csrf(),
          viewer: viewerOf(request),
          values,
          profiles,
          origins: input.origins,
          ignored: input.ignored,
          leftOut: input.leftOut,
          urlColumns: input.urlColumns ? { ...input.urlColumns, sheet: JSON.stringify(sheet) } : null,
          preview: previewNewReport(profiles, urls),
          allowance: await readScanAllowance(db, request.web.user!.workspaceId, clock.now()),
          payload,
          idempotencyKey: `web-${randomUUID()}`,
          imports: Math.ceil(profiles.length / PEOPLE_PER_IMPORT),
        }),
      );
    }
    const ctx = await writeContext(request, values.mode);
    const key = idempotencyKeyOf(request);
    const result = await createReport({ ...ctx, cursors: app.cursors, publicBaseUrl: app.publicBaseUrl }, body, checked.urls, key);
    const data = result.data as { outcome: string; report?: { id: string } };
    if (data.outcome !== 'created' || !data.report) throw new ApiError('internal_error', 'The report was not created.');
    const later = profiles.slice(PEOPLE_PER_IMPORT);
    if (later.length > 0) {
      const count = Math.ceil(profiles.length / PEOPLE_PER_IMPORT);
      // The batch keys extend the preview's key; a long key given by the form is shortened so they stay within the key's 128 characters.
      const base = key.length <= 100 ? key : `web-${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
      await commitInBatches(ctx, data.report.id, later, rest.urls, (index) => batchKey(base, index + 1, count));
    }
    return reply.redirect(`${paths.report(data.report.id)}?done=created`, 303);
  });

  // ------------------------------------------------------------ add people

  app.get<{ Params: { report_id: string } }>('/reports/:report_id/import', withReport, async (request, reply) => {
    const report = await requireReport(db, request.web.user!.workspaceId, request.params.report_id);
    if (report.archived) throw new ApiError('report_archived', { action: 'adding people' });
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
    const page = (pasted: string, problems: string[], mode: 'test' | 'live', status = 422, leaveOut: LeaveOut | null = null) =>
      sendPage(reply, ImportPage({ csrf: request.web.csrf(), viewer: viewerOf(request), report, pasted, problems, mode, liveConfigured, leaveOut }), status);
    let input: PeopleInput;
    let mode: 'test' | 'live';
    let pasted = '';
    let sheet: SheetSource | null = null;
    if (step === 'commit' || step === 'edit') {
      const payload = payloadOf<{ mode?: string; profiles?: unknown; origins?: unknown }>(request);
      if (!payload) return page('', ['The form was incomplete; please fill it in again.'], defaultMode);
      const profiles = profilesFrom(payload.profiles);
      input = { profiles, origins: originsFrom(payload.origins, profiles.length), ignored: [], urlColumns: null, leftOut: [] };
      mode = modeOf(payload.mode);
      if (step === 'edit') return page(asText(profiles), [], mode, 200);
    } else {
      const again = sheetSourceOf(request);
      pasted = again ? again.pasted : field(request, 'people');
      mode = modeOf(field(request, 'mode'));
      const file = again ? (again.file === '' ? null : Buffer.from(again.file)) : upload(request, 'csv');
      sheet = { pasted, file: file?.toString('utf8') ?? '' };
      try {
        input = parsePeople(pasted, file, { urlColumn: again?.urlColumn, leaveOut: field(request, 'leave_out') === 'yes' });
      } catch (error) {
        if (!(error instanceof PeopleInputError)) throw error;
        return page(pasted, error.problems, mode, 422, leaveOutOf(error, sheet, again?.urlColumn, { mode }));
      }
    }
    const { profiles } = input;
    const checked = checkPeople(profiles, PEOPLE_PER_IMPORT);
    if (checked.details.length > 0) return page(pasted || asText(profiles), describeDetails(checked.details, input), mode);
    const prefix = importKeyPrefix(report.id, mode, profiles);

    if (step !== 'commit') {
      // The API's preview (4.8 validation_only) of the whole list: plans against the roster as it is, changes nothing.
      const preview = await previewImport({ db, clock, queue, workspaceId, keyMode: mode, limits: undefined as never }, report.id, profiles, checked.urls);
      return sendPage(
        reply,
        ImportPreviewPage({
          csrf: request.web.csrf(),
          viewer: viewerOf(request),
          report,
          profiles,
          origins: input.origins,
          ignored: input.ignored,
          leftOut: input.leftOut,
          urlColumns: input.urlColumns ? { ...input.urlColumns, sheet: JSON.stringify(sheet) } : null,
          preview,
          allowance: await readScanAllowance(db, workspaceId, clock.now()),
          payload: JSON.stringify({ mode, profiles, origins: input.origins }),
          imports: Math.ceil(profiles.length / PEOPLE_PER_IMPORT),
          mode,
        }),
      );
    }
    const ctx = await writeContext(request, mode);
    const c = await commitInBatches(ctx, report.id, profiles, checked.urls, (index, count) => batchKey(prefix, index, count));
    return reply.redirect(`${paths.report(report.id)}?done=imported&added=${c.added}&restored=${c.restored}&present=${c.already_present}`, 303);
  });
}
