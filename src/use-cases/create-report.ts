/**
 * POST /reports (4.4) as one story: the body is already schema-valid; here
 * URLs are normalized, `return_existing` is answered, or the report, its
 * roster, scan runs, queue jobs, the scan allowance it uses
 * (scan-allowance.ts) and the idempotency record are committed in one
 * transaction. No external lookup happens (rule 3).
 */
import type { Clock } from '../clock.js';
import type { CursorCodec } from '../domain/cursor.js';
import { normalizeProfileUrl } from '../domain/profile-url.js';
import type { WorkspaceLimits } from '../domain/rate-limits.js';
import { rootDomain } from '../domain/root-domain.js';
import { normalizeRows, planRoster } from '../domain/roster-plan.js';
import type { ErrorDetail } from '../domain/errors.js';
import type { CreatedReport, CreateReport, ExistingReports } from '../domain/schemas/report.js';
import type { ScanQueue } from '../store/queue-channel.js';
import type { Db } from '../store/database.js';
import { idempotentWrite } from './idempotent-write.js';
import { applyRosterPlan, findReport, insertReport, listReports } from '../store/report-repository.js';
import { refreshReportRollup } from '../store/rollup-repository.js';
import { admitScans } from '../queue/admission.js';
import { takeSubmittedRows } from './submitted-rows.js';
import { reserveProfileScans } from './scan-allowance.js';
import { reportListBinding } from './list-reports.js';
import type { KeyMode } from '../domain/keys.js';
import { requestFingerprint } from '../domain/fingerprint.js';
import { presentReport } from './present.js';

export interface CreateReportContext {
  db: Db;
  clock: Clock;
  queue: ScanQueue;
  cursors: CursorCodec;
  /** The service's public address (app.publicBaseUrl): the reports' links are built from it. */
  publicBaseUrl: string;
  workspaceId: string;
  keyMode: KeyMode;
  limits: WorkspaceLimits;
}

export const EXISTING_MAX = 100;

/** Checks what the schema cannot: URL identity of people and the company page URL. */
export function createReportProblems(body: CreateReport): { details: ErrorDetail[]; urls: string[] } {
  const details: ErrorDetail[] = [];
  const companyUrl = (body.company as { pronet_company_url?: unknown } | undefined)?.pronet_company_url;
  if (typeof companyUrl === 'string' && companyUrl.length <= 2048 && !normalizeProfileUrl(companyUrl).ok) {
    details.push({ field: 'company.pronet_company_url', code: 'invalid_url' });
  }
  const { urls, problems } = normalizeRows(Array.isArray(body.profiles) ? body.profiles.slice(0, 100) : []);
  details.push(...problems);
  return { details, urls };
}

/**
 * `idempotencyKey` is the caller's (API header, or one per web form); the fingerprint it is
 * bound to is the request's, computed here for every interface alike.
 */
export async function createReport(ctx: CreateReportContext, body: CreateReport, urls: string[], idempotencyKey: string) {
  const profiles = body.profiles ?? [];
  const fingerprint = requestFingerprint({ method: 'POST', route: '/reports', flags: {}, body });
  const root = rootDomain(body.company.domain);
  return idempotentWrite<CreatedReport | ExistingReports>(
    ctx.db,
    { workspaceId: ctx.workspaceId, operation: 'create_report', scope: '', key: idempotencyKey, fingerprint },
    () => ctx.clock.now(),
    async (trx) => {
      const now = ctx.clock.now();
      if ((body.on_existing ?? 'create') === 'return_existing' && root !== null) {
        const matches = await listReports(trx, {
          workspaceId: ctx.workspaceId,
          includeArchived: true,
          rootDomain: root,
          watermark: now,
          after: null,
          limit: EXISTING_MAX + 1,
        });
        if (matches.length > 0) {
          const page = matches.slice(0, EXISTING_MAX);
          const last = page[page.length - 1];
          const next_cursor =
            matches.length > EXISTING_MAX
              ? await ctx.cursors.encode(reportListBinding(ctx.workspaceId, { includeArchived: true, rootDomain: root }), {
                  watermark: now.toISOString(),
                  last: [last.created_at.toISOString(), last.id],
                  issuedAt: now.getTime(),
                })
              : null;
          return {
            status: 200,
            data: { outcome: 'existing', existing_reports: page.map((r) => presentReport(r, ctx.publicBaseUrl)), next_cursor },
          };
        }
      }

      const report = await insertReport(
        trx,
        {
          workspaceId: ctx.workspaceId,
          name: body.name,
          companyName: body.company.name,
          suppliedDomain: body.company.domain,
          rootDomain: root,
          pronetCompanyUrl: body.company.pronet_company_url,
          visibility: body.visibility ?? 'private',
        },
        now,
      );
      const plan = planRoster(profiles, urls, new Map());
      const ids = await applyRosterPlan(trx, { reportId: report.id, workspaceId: ctx.workspaceId, source: 'urls', importId: null, rows: plan }, now);
      const added = plan.filter((r) => r.status === 'add');
      const { runs, itemIds } = await admitScans(
        trx,
        { reportId: report.id, workspaceId: ctx.workspaceId, keyMode: ctx.keyMode, profileIds: added.map((r) => ids.get(r.row_number)!) },
        now,
      );
      await ctx.queue.enqueueItems(trx, itemIds);
      await refreshReportRollup(trx, report.id, 'all', now);
      // The workspace's monthly scan allowance, then its rows counter: both stay locked until commit.
      await reserveProfileScans(trx, ctx.workspaceId, itemIds, now);
      if (profiles.length > 0) await takeSubmittedRows(trx, ctx.workspaceId, ctx.limits, profiles.length, now);
      const fresh = (await findReport(trx, { workspaceId: ctx.workspaceId, reportId: report.id }))!;
      const data: CreatedReport = {
        outcome: 'created',
        report: presentReport(fresh, ctx.publicBaseUrl),
        scan_requests: runs.map((r) => ({
          id: r.run.id,
          mode: r.mode,
          status: 'queued' as const,
          person_count: r.personItems,
          company_page_count: r.companyPageItems,
        })),
        profiles: {
          submitted: profiles.length,
          added: added.length,
          duplicate_in_input: plan.length - added.length,
          rows: plan.map((row) =>
            row.status === 'duplicate_in_input'
              ? { row_number: row.row_number, status: 'duplicate_in_input' as const, first_row_number: row.duplicate_of_row! }
              : { row_number: row.row_number, status: 'added' as const, profile_id: ids.get(row.row_number)! },
          ),
        },
      };
      return { status: 201, data };
    },
  );
}
