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
  return apiError('invalid_cursor', 400, 'The cursor is invalid, was issued for another request, or was changed; restart from the first page.');
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
  if (typeof value !== 'string' || !/^[0-9a-f-]{36}$/i.test(value)) throw invalidCursor();
  return value;
}

export interface Page<T> {
  rows: T[];
  nextCursor: string | null;
}

export async function pageOfReports(
  ctx: { db: Db; clock: Clock; cursors: CursorCodec; workspaceId: string },
  query: { limit: number; cursor?: string; company_root_domain?: string; include_archived: boolean },
): Promise<Page<ReportRow>> {
  let root: string | null = null;
  if (query.company_root_domain !== undefined) {
    root = rootDomain(query.company_root_domain);
    if (root === null) {
      throw apiError('invalid_request', 400, 'company_root_domain must be a hostname or an http(s) URL with a registrable domain.');
    }
  }
  const binding = reportListBinding(ctx.workspaceId, { includeArchived: query.include_archived, rootDomain: root });
  const now = ctx.clock.now();
  let watermark = now;
  let after: { createdAt: Date; id: string } | null = null;
  if (query.cursor !== undefined) {
    const state = await decodeOrThrow(ctx.cursors, query.cursor, binding);
    watermark = isoDate(state.watermark);
    after = { createdAt: isoDate(state.last[0]), id: uuidOf(state.last[1]) };
  }
  const rows = await listReports(ctx.db, {
    workspaceId: ctx.workspaceId,
    includeArchived: query.include_archived,
    rootDomain: root,
    watermark,
    after,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  const nextCursor =
    rows.length > query.limit
      ? await ctx.cursors.encode(binding, {
          watermark: watermark.toISOString(),
          last: [last.created_at.toISOString(), last.id],
          issuedAt: now.getTime(),
        })
      : null;
  return { rows: page, nextCursor };
}

export async function pageOfProfiles(
  ctx: { db: Db; clock: Clock; cursors: CursorCodec; workspaceId: string },
  reportId: string,
  query: { limit: number; cursor?: string },
): Promise<Page<ProfileRow>> {
  const binding: CursorBinding = { workspace: ctx.workspaceId, route: 'GET /reports/{id}/profiles', filters: { report_id: reportId } };
  const now = ctx.clock.now();
  let watermark = now;
  let after: { addedAt: Date; id: string } | null = null;
  if (query.cursor !== undefined) {
    const state = await decodeOrThrow(ctx.cursors, query.cursor, binding);
    watermark = isoDate(state.watermark);
    after = { addedAt: isoDate(state.last[0]), id: uuidOf(state.last[1]) };
  }
  const rows = await listActiveProfiles(ctx.db, { reportId, watermark, after, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  const nextCursor =
    rows.length > query.limit
      ? await ctx.cursors.encode(binding, {
          watermark: watermark.toISOString(),
          last: [last.added_at.toISOString(), last.id],
          issuedAt: now.getTime(),
        })
      : null;
  return { rows: page, nextCursor };
}
