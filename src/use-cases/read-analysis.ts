/**
 * Analysis reads (2.9, 4.10-4.11a): the summary, the findings collection and
 * the activity collection. Nothing is written. A page and the revision it
 * carries always come from one snapshot: the summary and the findings page
 * are each read by one statement (no transaction, one round trip);
 * the activity page runs in one read-only REPEATABLE READ transaction.
 *
 * Collection pages: cursors are bound to workspace, route, report, filters,
 * limit and the collection revision, and expire after 15 minutes. A changed
 * revision (or a stale `expected_revision`) is 409 `results_changed`. Pages
 * stop early to stay under the 2 MiB response budget; a single record over
 * it is 422 `result_too_large`.
 */
import type { Clock } from '../clock.js';
import { collectionRevision, emptyTotals, type Totals } from '../domain/analysis-aggregate.js';
import { activityRecord, findingsRecord, type ActivityRecord } from '../domain/analysis-records.js';
import { summarize, type AnalysisSummary } from '../domain/analysis-summary.js';
import { CursorError, type CursorBinding, type CursorCodec } from '../domain/cursor.js';
import { apiError, notFound, type ApiError } from '../domain/errors.js';
import { ANALYSIS_TEXT_FORMAT, fillAnalysisInto, filledLength, jsonStringContent, recordText } from '../domain/findings-text.js';
import { activityPage, isActiveAttachment, readFindingsPage, readSummaryText, summaryFromText } from '../store/analysis-read-repository.js';
import type { FusedCall, Prefetched } from '../store/fused-read.js';
import { summaryFusedCall } from '../store/analysis-read-repository.js';
import type { Db } from '../store/database.js';
import type { ReportRow } from '../store/report-repository.js';
import { readCurrentTotals } from '../store/rollup-repository.js';
import { isRfc3339 } from '../domain/rfc3339.js';
import { retryingTransaction } from '../store/transaction.js';
import { reportLinks } from './present.js';
import { requireReport } from './require-report.js';

const NULL_JSON = Buffer.from('null');

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
  /** The service's public address, which the report's links start with (present.ts reportLinks). */
  publicBaseUrl: string;
  imageUrl(reportId: string, imageId: string, variant?: 'preview'): string;
  /**
   * The base URL `imageUrl` puts before the API's evidence paths
   * (domain/findings-text.ts evidencePath), so that stored findings texts can
   * be served as they are; null when `imageUrl` builds other addresses (the
   * web's pages), and every record is then built from its findings.
   */
  evidenceBase: string | null;
}

function readTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return retryingTransaction(db, work, { readOnlySnapshot: true });
}

async function totalsOf(db: Db, reportId: string): Promise<Totals> {
  return (await readCurrentTotals(db, reportId)) ?? emptyTotals();
}

/**
 * summarize() of recently read summary data, keyed by the data's exact JSON
 * text as read from PostgreSQL (report row, totals, company context, runs,
 * freshness bounds). summarize() is a pure function of that text, the links
 * and the time; the links and `evaluated_at` are set per request, so a hit
 * returns exactly what summarize() would. Every request still reads the
 * text from the database (nothing read is kept instead of reading it); the
 * memo saves only the derivation (about 40 SHA-256 revisions and their
 * canonical JSON). Bounded, oldest evicted first.
 */
const summaryMemo = new Map<string, { report: ReportRow; summary: AnalysisSummary }>();
const SUMMARY_MEMO_ENTRIES = 256;

function summaryOf(text: string, ctx: AnalysisContext): { report: ReportRow; summary: AnalysisSummary } {
  const known = summaryMemo.get(text);
  if (known) return known;
  const data = summaryFromText(text);
  const { report, company } = data;
  const summary = summarize({
    report: {
      id: report.id,
      name: report.name,
      archived: report.archived,
      company: { name: report.company_name, domain: report.supplied_domain, pronet_url: report.pronet_company_url },
    },
    links: reportLinks(report, ctx.publicBaseUrl),
    totals: data.totals ?? emptyTotals(),
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
    runs: data.runs,
    captured: data.captured,
    now: ctx.clock.now(),
  });
  if (summaryMemo.size >= SUMMARY_MEMO_ENTRIES) summaryMemo.delete(summaryMemo.keys().next().value!);
  const entry = { report, summary };
  summaryMemo.set(text, entry);
  return entry;
}

/**
 * The analysis summary, read by one statement: the authorization statement's
 * when it ran the summary read (`prefetched`), else on its own.
 */
export async function readSummary(ctx: AnalysisContext, reportId: string, prefetched?: Prefetched): Promise<AnalysisSummary> {
  const text = await readSummaryText(ctx.db, ctx.workspaceId, reportId, prefetched);
  if (text === null) throw notFound('report');
  const { report, summary } = summaryOf(text, ctx);
  return { ...summary, links: reportLinks(report, ctx.publicBaseUrl), evaluated_at: ctx.clock.now().toISOString() };
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
  apiError('results_changed', undefined, {
    retryable: true,
    nextAction: 'restart_traversal',
  });

type DecodedCursor = { revision: unknown; last: unknown } | { error: ApiError } | null;

/** Decodes `cursor` (null when there is none); a cursor error is returned, to be raised in the contract's order. */
async function decodeCursor(ctx: AnalysisContext, binding: CursorBinding, cursor: string | undefined): Promise<DecodedCursor> {
  if (cursor === undefined) return null;
  try {
    const state = await ctx.cursors.decode(cursor, binding, { maxAgeMs: CURSOR_LIFETIME_MS, now: ctx.clock.now() });
    return { revision: state.extra?.revision, last: state.last[0] };
  } catch (error) {
    if (!(error instanceof CursorError)) throw error;
    if (error.reason === 'expired') {
      return {
        error: apiError('cursor_expired', undefined, {
          retryable: false,
          nextAction: 'restart_traversal',
        }),
      };
    }
    return {
      error: apiError('invalid_cursor', undefined, {
        retryable: false,
        nextAction: 'restart_traversal',
      }),
    };
  }
}

/** Checks expected revision and cursor against the current revision; returns the id to continue after. */
function checkPosition(query: PageQuery, revision: string, decoded: DecodedCursor): string | null {
  if (query.expected_revision !== undefined && query.expected_revision !== revision) throw resultsChanged();
  if (decoded === null) return null;
  if ('error' in decoded) throw decoded.error;
  if (decoded.revision !== revision) throw resultsChanged();
  if (typeof decoded.last !== 'string') throw apiError('invalid_cursor', 'The cursor is invalid.', { retryable: false, nextAction: 'restart_traversal' });
  return decoded.last;
}

/** Checks cursor and expected revision against the current revision; returns the id to continue after. */
async function continuation(ctx: AnalysisContext, binding: CursorBinding, query: PageQuery, revision: string): Promise<string | null> {
  return checkPosition(query, revision, await decodeCursor(ctx, binding, query.cursor));
}

/** Takes whole records while they fit in the response budget (8: no text is silently shortened). */
function withinBudget<T>(records: T[], bytesOf: (record: T) => number): T[] {
  const budget = RESPONSE_BUDGET_BYTES - ENVELOPE_RESERVE_BYTES;
  let used = 0;
  const kept: T[] = [];
  for (const record of records) {
    const size = bytesOf(record) + 1;
    if (used + size > budget) {
      if (kept.length === 0) {
        throw apiError('result_too_large', undefined, {
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

async function finishPage<T>(
  ctx: AnalysisContext,
  binding: CursorBinding,
  records: T[],
  fetchedMore: boolean,
  revision: string,
  idOf: (record: T, index: number) => string,
  bytesOf: (record: T) => number,
): Promise<CollectionPage<T>> {
  const kept = withinBudget(records, bytesOf);
  const more = fetchedMore || kept.length < records.length;
  const next =
    more && kept.length > 0
      ? await ctx.cursors.encode(binding, {
          watermark: '',
          last: [idOf(kept[kept.length - 1], kept.length - 1)],
          issuedAt: ctx.clock.now().getTime(),
          extra: { revision },
        })
      : null;
  return { data: kept, revision, next_cursor: next };
}

/**
 * A findings record's JSON as UTF-8: `length` bytes, which `writeTo` writes
 * into a buffer at an offset (returning `length`). A page's records are
 * written once, straight into the response body (http/findings-body.ts), with
 * no buffer of their own in between.
 */
export interface RecordJson {
  readonly length: number;
  writeTo(out: Buffer, at: number): number;
}

function bytesRecord(bytes: Buffer): RecordJson {
  return { length: bytes.length, writeTo: (out, at) => bytes.copy(out, at) };
}

const jsonBytes = (record: unknown) => Buffer.byteLength(JSON.stringify(record), 'utf8');

/**
 * A page of the findings collection, its records as the UTF-8 bytes of their
 * JSON (src/domain/findings-text.ts): each record is the attachment's fields,
 * its revision and the `analysis` text stored with the findings (filled in
 * with the profile URL and the public base URL), assembled by the one
 * statement that also reads the report and the collection revision; or, when
 * no usable text is stored, the JSON of the record built from the findings.
 */
export async function pageOfFindingsText(
  ctx: AnalysisContext,
  reportId: string,
  query: PageQuery & { profile_id?: string },
): Promise<CollectionPage<RecordJson>> {
  const binding: CursorBinding = {
    workspace: ctx.workspaceId,
    route: 'GET /reports/{report_id}/analysis/profiles',
    filters: { report_id: reportId, profile_id: query.profile_id ?? null, limit: query.limit },
  };
  // Stored texts hold evidence paths, served after the context's evidence base (without one, every
  // record is built from its findings).
  const base = ctx.evidenceBase;
  // The cursor is decoded first (its position is the read's); its errors are raised below, in the usual order.
  const decoded = await decodeCursor(ctx, binding, query.cursor);
  const position = decoded !== null && !('error' in decoded) && typeof decoded.last === 'string' ? decoded.last : null;
  const page = await readFindingsPage(ctx.db, {
    workspaceId: ctx.workspaceId,
    reportId,
    afterId: position,
    profileId: query.profile_id ?? null,
    limit: query.limit + 1,
    format: base === null ? '' : ANALYSIS_TEXT_FORMAT,
  });
  if (!page.found) throw notFound('report');
  if (query.profile_id !== undefined && !page.active) throw notFound('profile');
  const revision = collectionRevision(page.profiles ?? emptyTotals().profiles);
  checkPosition(query, revision, decoded);

  const rows = page.rows.slice(0, query.limit);
  const baseBytes = Buffer.from(jsonStringContent(base ?? ''));
  const records = rows.map((row): RecordJson => {
    if (row.head !== null) {
      const { head, analysis: template } = row;
      const tail = row.tail!;
      const url = Buffer.from(jsonStringContent(row.pronet_url));
      const middle = template === null ? NULL_JSON.length : filledLength(template, url, baseBytes);
      return {
        length: head.length + middle + tail.length,
        writeTo(out, at) {
          let to = at + head.copy(out, at);
          to += template === null ? NULL_JSON.copy(out, to) : fillAnalysisInto(template, url, baseBytes, out, to);
          return to + tail.copy(out, to) - at;
        },
      };
    }
    // No usable stored text: the record built from the stored findings, as before migration 0011.
    const person = { pronet_url: row.pronet_url, name: row.name, title: row.title, headline: row.headline };
    const full = row.full_status === null ? null : { status: row.full_status, warning: row.full_warning! };
    const stored = row.stored!;
    const built = findingsRecord(
      {
        profileId: row.id,
        person,
        analysis: {
          revision: row.analysis_revision!,
          catalog_version: stored.catalog_version,
          findings: stored.findings,
          captured_at: new Date(stored.captured_at),
          available_at: new Date(stored.available_at),
        },
        full,
      },
      (imageId, variant) => ctx.imageUrl(reportId, imageId, variant),
    );
    return bytesRecord(
      Buffer.from(recordText({ profileId: row.id, person, analysisRevision: row.analysis_revision, analysisJson: JSON.stringify(built.analysis), full })),
    );
  });
  return finishPage(
    ctx,
    binding,
    records,
    page.rows.length > query.limit,
    revision,
    (_, i) => rows[i].id,
    (record) => record.length,
  );
}

function instant(name: string, value: string | undefined): Date | null {
  if (value === undefined) return null;
  const date = new Date(value);
  if (!isRfc3339(value) || Number.isNaN(date.getTime())) {
    throw apiError('invalid_request', `${name} must be an RFC 3339 date-time with an offset, e.g. 2026-01-31T00:00:00Z.`, {
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
    await requireReport(trx, ctx.workspaceId, reportId);
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
        actor: row.actor,
        source_url: row.source_url,
        text: row.text,
        occurred_at: row.occurred_at ? row.occurred_at.toISOString() : null,
        counts: row.counts,
        provenance: row.provenance,
        captured_at: row.captured_at,
        available_at: row.available_at,
        updated_at: row.updated_at,
      }),
    );
    return finishPage(ctx, binding, records, rows.length > query.limit, revision, (r) => r.id, jsonBytes);
  });
}

/** The summary's read, to be fused with the request's authorization (store/fused-read.ts); readSummary takes its answer. */
export function summaryPrefetch(reportId: string): FusedCall {
  return summaryFusedCall(reportId);
}
