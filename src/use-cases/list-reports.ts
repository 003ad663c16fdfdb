/**
 * GET /reports (4.3) and GET /reports/{id}/profiles (4.6): keyset pages,
 * newest first, with signed cursors bound to workspace, route, filters and
 * the first page's upper watermark (rows created during a traversal do not
 * appear in it).
 */
import type { Clock } from '../clock.js';
import { CursorError, type CursorBinding, type CursorCodec } from '../domain/cursor.js';
import { rootDomain } from '../domain/root-domain.js';
import { apiError } from '../domain/errors.js';
import { isUuid } from '../domain/uuid.js';
import { totalsScore } from '../domain/analysis-summary.js';
import { readReportTotals } from '../store/rollup-repository.js';
import type { Db } from '../store/database.js';
import { listActiveProfiles, listReports, type ProfileRow, type ReportRow } from '../store/report-repository.js';

export function reportListBinding(workspaceId: string, filters: { includeArchived: boolean; rootDomain: string | null }): CursorBinding {
  return {
    workspace: workspaceId,
    route: 'GET /reports',
    filters: { include_archived: filters.includeArchived, company_root_domain: filters.rootDomain },
  };
}

export function invalidCursor(): Error {
  return apiError('invalid_cursor');
}

async function decodeOrThrow(cursors: CursorCodec, cursor: string, binding: CursorBinding) {
  try {
    return await cursors.decode(cursor, binding);
  } catch (error) {
    if (error instanceof CursorError) throw invalidCursor();
    throw error;
  }
}

function isoDate(value: unknown): Date {
  if (typeof value !== 'string') throw invalidCursor();
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw invalidCursor();
  return date;
}

function uuidOf(value: unknown): string {
  if (typeof value !== 'string' || !isUuid(value)) throw invalidCursor();
  return value;
}

export interface Page<T> {
  rows: T[];
  nextCursor: string | null;
}

/** Where a page starts: rows created up to the first page's watermark, after the last row shown (newest first). */
export interface KeysetPosition {
  watermark: Date;
  after: { at: Date; id: string } | null;
}

/**
 * One page of a newest-first keyset traversal: the position from the cursor
 * (or the first page's: now, from the top), `limit + 1` rows fetched to know
 * whether another page follows, and the next cursor naming the last row shown.
 */
async function keysetPage<T extends { id: string }>(
  ctx: { clock: Clock; cursors: CursorCodec },
  binding: CursorBinding,
  query: { limit: number; cursor?: string },
  fetch: (position: KeysetPosition, limit: number) => Promise<T[]>,
  timeOf: (row: T) => Date,
): Promise<Page<T>> {
  const now = ctx.clock.now();
  let position: KeysetPosition = { watermark: now, after: null };
  if (query.cursor !== undefined) {
    const state = await decodeOrThrow(ctx.cursors, query.cursor, binding);
    position = { watermark: isoDate(state.watermark), after: { at: isoDate(state.last[0]), id: uuidOf(state.last[1]) } };
  }
  const rows = await fetch(position, query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  const nextCursor =
    rows.length > query.limit
      ? await ctx.cursors.encode(binding, {
          watermark: position.watermark.toISOString(),
          last: [timeOf(last).toISOString(), last.id],
          issuedAt: now.getTime(),
        })
      : null;
  return { rows: page, nextCursor };
}

export async function pageOfReports(
  ctx: { db: Db; clock: Clock; cursors: CursorCodec; workspaceId: string },
  query: { limit: number; cursor?: string; company_root_domain?: string; include_archived: boolean },
): Promise<Page<ReportRow>> {
  let root: string | null = null;
  if (query.company_root_domain !== undefined) {
    root = rootDomain(query.company_root_domain);
    if (root === null) {
      throw apiError('invalid_request', 'company_root_domain must be a hostname or an http(s) URL with a registrable domain.');
    }
  }
  const binding = reportListBinding(ctx.workspaceId, { includeArchived: query.include_archived, rootDomain: root });
  return keysetPage(
    ctx,
    binding,
    query,
    ({ watermark, after }, limit) =>
      listReports(ctx.db, {
        workspaceId: ctx.workspaceId,
        includeArchived: query.include_archived,
        rootDomain: root,
        watermark,
        after,
        limit,
      }),
    (row) => row.created_at,
  );
}

/** Each listed report's score (the summary's optimization score; null before any answer), by report id. */
export async function reportScores(ctx: { db: Db }, reportIds: readonly string[]): Promise<Map<string, number | null>> {
  const totals = await readReportTotals(ctx.db, reportIds);
  return new Map(reportIds.map((id) => [id, totals.has(id) ? totalsScore(totals.get(id)!).score_pct : null]));
}

export async function pageOfProfiles(
  ctx: { db: Db; clock: Clock; cursors: CursorCodec; workspaceId: string },
  reportId: string,
  query: { limit: number; cursor?: string },
): Promise<Page<ProfileRow>> {
  const binding: CursorBinding = { workspace: ctx.workspaceId, route: 'GET /reports/{id}/profiles', filters: { report_id: reportId } };
  return keysetPage(
    ctx,
    binding,
    query,
    ({ watermark, after }, limit) => listActiveProfiles(ctx.db, { reportId, watermark, after, limit }),
    (row) => row.added_at,
  );
}
