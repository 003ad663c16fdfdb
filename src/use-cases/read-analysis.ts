/**
 * Analysis reads (2.9, 4.10-4.11a): the summary, the findings collection and
 * the activity collection. Each read runs in one read-only REPEATABLE READ
 * transaction, so a page and the revision it carries come from the same
 * snapshot; nothing is written.
 *
 * Collection pages: cursors are bound to workspace, route, report, filters,
 * limit and the collection revision, and expire after 15 minutes. A changed
 * revision (or a stale `expected_revision`) is 409 `results_changed`. Pages
 * stop early to stay under the 2 MiB response budget; a single record over
 * it is 422 `result_too_large`.
 */
import type { Clock } from '../clock.js';
import { collectionRevision, emptyTotals, type Totals } from '../domain/analysis-aggregate.js';
import { activityRecord, findingsRecord, type ActivityRecord, type FindingsRecord } from '../domain/analysis-records.js';
import { summarize, type AnalysisSummary } from '../domain/analysis-summary.js';
import { CursorError, type CursorBinding, type CursorCodec } from '../domain/cursor.js';
import { apiError, notFound } from '../domain/errors.js';
import {
  activityPage,
  findingsPage,
  isActiveAttachment,
  readCaptureBounds,
  readCompanyContext,
  readRuns,
} from '../store/analysis-read-repository.js';
import type { Db } from '../store/database.js';
import { findReport, type ReportRow } from '../store/report-repository.js';
import { readAggregates } from '../store/rollup-repository.js';

export const CURSOR_LIFETIME_MS = 15 * 60 * 1000;
/** 8: analysis response budget. */
export const RESPONSE_BUDGET_BYTES = 2 * 1024 * 1024;
/** Room kept for the envelope around the records (revision, cursor, request id). */
const ENVELOPE_RESERVE_BYTES = 4096;

export interface AnalysisContext {
  db: Db;
  clock: Clock;
  cursors: CursorCodec;
  workspaceId: string;
  links(report: ReportRow): { workspace_url: string; public_url: string | null };
  imageUrl(reportId: string, imageId: string, variant?: 'preview'): string;
}

function readTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(work);
}

async function reportOrNotFound(db: Db, workspaceId: string, reportId: string): Promise<ReportRow> {
  const report = await findReport(db, workspaceId, reportId);
  if (!report) throw notFound('report');
  return report;
}

async function totalsOf(db: Db, reportId: string): Promise<Totals> {
  return (await readAggregates(db, reportId))?.totals ?? emptyTotals();
}

export async function readSummary(ctx: AnalysisContext, reportId: string): Promise<AnalysisSummary> {
  return readTransaction(ctx.db, async (trx) => {
    const report = await reportOrNotFound(trx, ctx.workspaceId, reportId);
    const [totals, company, runs, captured] = [
      await totalsOf(trx, reportId),
      await readCompanyContext(trx, reportId),
      await readRuns(trx, reportId),
      await readCaptureBounds(trx, reportId),
    ];
    return summarize({
      report: {
        id: report.id,
        name: report.name,
        archived: report.archived,
        company: { name: report.company_name, domain: report.supplied_domain, pronet_url: report.pronet_company_url },
      },
      links: ctx.links(report),
      totals,
      // 2.9 rule 5: the observed tagline and industry, nothing invented.
      observedContext: company
        ? {
            name: company.name,
            tagline: company.tagline,
            industry: company.industry,
            follower_count: company.follower_count,
            website: company.website,
            captured_at: company.captured_at.toISOString(),
          }
        : null,
      runs,
      captured,
      now: ctx.clock.now(),
    });
  });
}

export interface CollectionPage<T> {
  data: T[];
  revision: string;
  next_cursor: string | null;
}

interface PageQuery {
  limit: number;
  cursor?: string;
  expected_revision?: string;
}

const resultsChanged = () =>
  apiError('results_changed', 409, 'The collection changed during the traversal; discard the staged pages and restart from the first page.', {
    retryable: true,
    nextAction: 'restart_traversal',
  });

/** Checks cursor and expected revision against the current revision; returns the id to continue after. */
async function continuation(
  ctx: AnalysisContext,
  binding: CursorBinding,
  query: PageQuery,
  revision: string,
): Promise<string | null> {
  if (query.expected_revision !== undefined && query.expected_revision !== revision) throw resultsChanged();
  if (query.cursor === undefined) return null;
  let state;
  try {
    state = await ctx.cursors.decode(query.cursor, binding, { maxAgeMs: CURSOR_LIFETIME_MS, now: ctx.clock.now() });
  } catch (error) {
    if (!(error instanceof CursorError)) throw error;
    if (error.reason === 'expired') {
      throw apiError('cursor_expired', 400, 'The cursor is older than 15 minutes; restart the traversal from the first page.', {
        retryable: false,
        nextAction: 'restart_traversal',
      });
    }
    throw apiError('invalid_cursor', 400, 'The cursor is invalid, was issued for another request, or was changed; restart from the first page.', {
      retryable: false,
      nextAction: 'restart_traversal',
    });
  }
  if (state.extra?.revision !== revision) throw resultsChanged();
  const last = state.last[0];
  if (typeof last !== 'string') throw apiError('invalid_cursor', 400, 'The cursor is invalid.', { retryable: false, nextAction: 'restart_traversal' });
  return last;
}

/** Takes whole records while they fit in the response budget (8: no text is silently shortened). */
function withinBudget<T>(records: T[]): T[] {
  const budget = RESPONSE_BUDGET_BYTES - ENVELOPE_RESERVE_BYTES;
  let used = 0;
  const kept: T[] = [];
  for (const record of records) {
    const size = Buffer.byteLength(JSON.stringify(record), 'utf8') + 1;
    if (used + size > budget) {
      if (kept.length === 0) {
        throw apiError('result_too_large', 422, 'One stored analysis record exceeds the 2 MiB response bound; a smaller page limit does not help.', {
          retryable: false,
          nextAction: 'skip_record',
        });
      }
      break;
    }
    used += size;
    kept.push(record);
  }
  return kept;
}

async function finishPage<T extends { id?: string; profile_id?: string | null }>(
  ctx: AnalysisContext,
  binding: CursorBinding,
  records: T[],
  fetchedMore: boolean,
  revision: string,
  idOf: (record: T) => string,
): Promise<CollectionPage<T>> {
  const kept = withinBudget(records);
  const more = fetchedMore || kept.length < records.length;
  const next =
    more && kept.length > 0
      ? await ctx.cursors.encode(binding, {
          watermark: '',
          last: [idOf(kept[kept.length - 1]!)],
          issuedAt: ctx.clock.now().getTime(),
          extra: { revision },
        })
      : null;
  return { data: kept, revision, next_cursor: next };
}

export async function pageOfFindings(
  ctx: AnalysisContext,
  reportId: string,
  query: PageQuery & { profile_id?: string },
): Promise<CollectionPage<FindingsRecord>> {
  return readTransaction(ctx.db, async (trx) => {
    await reportOrNotFound(trx, ctx.workspaceId, reportId);
    if (query.profile_id !== undefined && !(await isActiveAttachment(trx, reportId, query.profile_id))) throw notFound('profile');
    const revision = collectionRevision((await totalsOf(trx, reportId)).profiles);
    const binding: CursorBinding = {
      workspace: ctx.workspaceId,
      route: 'GET /reports/{report_id}/analysis/profiles',
      filters: { report_id: reportId, profile_id: query.profile_id ?? null, limit: query.limit },
    };
    const afterId = await continuation(ctx, binding, query, revision);
    const rows = await findingsPage(trx, { reportId, afterId, profileId: query.profile_id ?? null, limit: query.limit + 1 });
    const records = rows.slice(0, query.limit).map((row) =>
      findingsRecord(
        {
          profileId: row.id,
          person: { pronet_url: row.pronet_url, name: row.name, title: row.title, headline: row.headline },
          analysis: row.analysis,
          full: row.full,
        },
        (imageId, variant) => ctx.imageUrl(reportId, imageId, variant),
      ),
    );
    return finishPage(ctx, binding, records, rows.length > query.limit, revision, (r) => r.profile_id);
  });
}

const RFC3339_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

function instant(name: string, value: string | undefined): Date | null {
  if (value === undefined) return null;
  const date = new Date(value);
  if (!RFC3339_WITH_OFFSET.test(value) || Number.isNaN(date.getTime())) {
    throw apiError('invalid_request', 400, `${name} must be an RFC 3339 date-time with an offset, e.g. 2026-01-31T00:00:00Z.`, {
      retryable: false,
      nextAction: 'fix_request',
    });
  }
  return date;
}

export async function pageOfActivity(
  ctx: AnalysisContext,
  reportId: string,
  query: PageQuery & { profile_id?: string; event_type?: string; occurred_from?: string; occurred_to?: string },
): Promise<CollectionPage<ActivityRecord>> {
  const from = instant('occurred_from', query.occurred_from);
  const to = instant('occurred_to', query.occurred_to);
  return readTransaction(ctx.db, async (trx) => {
    await reportOrNotFound(trx, ctx.workspaceId, reportId);
    if (query.profile_id !== undefined && !(await isActiveAttachment(trx, reportId, query.profile_id))) throw notFound('profile');
    const revision = collectionRevision((await totalsOf(trx, reportId)).activity);
    const binding: CursorBinding = {
      workspace: ctx.workspaceId,
      route: 'GET /reports/{report_id}/analysis/activity',
      filters: {
        report_id: reportId,
        profile_id: query.profile_id ?? null,
        event_type: query.event_type ?? null,
        occurred_from: from?.toISOString() ?? null,
        occurred_to: to?.toISOString() ?? null,
        limit: query.limit,
      },
    };
    const afterId = await continuation(ctx, binding, query, revision);
    const rows = await activityPage(trx, {
      reportId,
      afterId,
      profileId: query.profile_id ?? null,
      eventType: query.event_type ?? null,
      from,
      to,
      limit: query.limit + 1,
    });
    const records = rows.slice(0, query.limit).map((row) =>
      activityRecord({
        id: row.id,
        profile_id: row.profile_id,
        event_type: row.event_type,
        actor: row.actor as ActivityRecord['actor'],
        source_url: row.source_url,
        text: row.text,
        occurred_at: row.occurred_at ? row.occurred_at.toISOString() : null,
        counts: row.counts as ActivityRecord['counts'],
        provenance: row.provenance,
        captured_at: row.captured_at,
        available_at: row.available_at,
        updated_at: row.updated_at,
      }),
    );
    return finishPage(ctx, binding, records, rows.length > query.limit, revision, (r) => r.id);
  });
}
