/**
 * Reports and their rosters: the one repository of the report aggregate
 * (its scan runs: scan-repository.ts; its analysis: analysis-repository.ts).
 * Every query the API and the web make is scoped by workspace: a report of
 * another workspace is simply not found.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { PlannedRow } from '../domain/roster-plan.js';
import { defineFusedRead, fusedCall, readFused, type FusedCall, type Prefetched } from './fused-read.js';
import { lockReport } from './locks.js';
import type { Database, ProfileSource, ReportProfilesTable, ReportsTable } from './schema.js';

export type ReportRow = Selectable<ReportsTable>;
export type ProfileRow = Selectable<ReportProfilesTable>;

export interface NewReport {
  workspaceId: string;
  name: string;
  companyName: string;
  suppliedDomain: string;
  rootDomain: string | null;
  pronetCompanyUrl: string;
  visibility: 'private' | 'public';
}

export function newPublicToken(): string {
  return randomBytes(18).toString('base64url');
}

export async function insertReport(db: Kysely<Database>, report: NewReport, now: Date): Promise<ReportRow> {
  return db
    .insertInto('reports')
    .values({
      id: randomUUID(),
      workspace_id: report.workspaceId,
      name: report.name,
      company_name: report.companyName,
      supplied_domain: report.suppliedDomain,
      root_domain: report.rootDomain,
      pronet_company_url: report.pronetCompanyUrl,
      visibility: report.visibility,
      public_token: report.visibility === 'public' ? newPublicToken() : null,
      archived: false,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Which report to find. Every read of the API and the web names its
 * workspace (a report of another workspace is simply not found); the public
 * page finds a shared report by its token (whether it may be shown is the
 * use-case's rule, use-cases/report-view.ts); the operator's CLI names the
 * report alone.
 */
export type ReportKey = { workspaceId: string; reportId: string } | { publicToken: string } | { anyWorkspace: true; reportId: string };

export interface FindReportOptions {
  /** Lock the row (FOR NO KEY UPDATE) until the transaction ends: a write that follows the read. */
  forUpdate?: boolean;
  /** The authorization statement's result, when the route asked it to read the report (store/fused-read.ts). */
  prefetched?: Prefetched;
}

/** The one way to read a report; undefined when there is no such report for `key`. */
export async function findReport(db: Kysely<Database>, key: ReportKey, options: FindReportOptions = {}): Promise<ReportRow | undefined> {
  if ('workspaceId' in key && options.prefetched) {
    return (await readFused(db, REPORT_READ, key.workspaceId, { reportId: key.reportId }, options.prefetched)) ?? undefined;
  }
  let query = db.selectFrom('reports').selectAll();
  if ('publicToken' in key) {
    query = query.where('public_token', '=', key.publicToken);
  } else {
    query = query.where('id', '=', key.reportId);
    if ('workspaceId' in key) query = query.where('workspace_id', '=', key.workspaceId);
  }
  return query.$if(options.forUpdate === true, (qb) => qb.forNoKeyUpdate()).executeTakeFirst();
}

/** Every column of ReportRow, checked by the compiler both ways (a new column must be added here). */
const REPORT_COLUMNS = Object.keys({
  id: true,
  workspace_id: true,
  name: true,
  company_name: true,
  supplied_domain: true,
  root_domain: true,
  pronet_company_url: true,
  visibility: true,
  public_token: true,
  archived: true,
  archived_at: true,
  profile_count: true,
  analyzed_profile_count: true,
  analysis_state: true,
  created_at: true,
  updated_at: true,
  company_version: true,
  display_company_name: true,
} satisfies Record<keyof ReportRow, true>) as (keyof ReportRow)[];

/** SQL of a json object with every column of ReportRow, from the reports row aliased `alias` (for fused reads). */
export function reportJsonSql(alias: string): string {
  return `json_build_object(${REPORT_COLUMNS.map((c) => `'${c}', ${alias}.${c}`).join(', ')})`;
}

type ReportJson = Omit<ReportRow, 'created_at' | 'updated_at' | 'archived_at'> & { created_at: string; updated_at: string; archived_at: string | null };

/** A ReportRow from reportJsonSql's json (timestamps arrive as ISO 8601 strings with an offset). */
export function reportFromJson(value: ReportJson): ReportRow {
  return {
    ...value,
    created_at: new Date(value.created_at),
    updated_at: new Date(value.updated_at),
    archived_at: value.archived_at === null ? null : new Date(value.archived_at),
  };
}

/** GET /reports/{id} as a fused read: run by the authorization statement, or alone (store/fused-read.ts). */
const REPORT_READ = defineFusedRead({
  name: 'report_v1',
  params: ['reportId'],
  select: ({ workspaceId, param }) =>
    `select ${reportJsonSql('r')} as fused from reports r where r.workspace_id = ${workspaceId} and r.id = ${param.reportId}::uuid`,
  decode: (value) => (value === null ? null : reportFromJson(value as ReportJson)),
});

/** The report read for a route's `access.fused`; the handler then passes `request.fused` to findReport. */
export function reportFusedCall(reportId: string): FusedCall {
  return fusedCall(REPORT_READ, { reportId });
}

export interface ReportListFilter {
  workspaceId: string;
  includeArchived: boolean;
  rootDomain: string | null;
  watermark: Date;
  after: KeysetPosition | null;
  limit: number;
}

/** Where a page of a newest-first list starts: after the row with this time and id (use-cases/list-reports.ts keeps it in the cursor). */
export interface KeysetPosition {
  at: Date;
  id: string;
}

/** Rows after `after` in newest-first order by (column, id): the one keyset predicate of the lists the API pages. */
function olderThan(column: 'created_at' | 'added_at', after: KeysetPosition) {
  return sql<boolean>`(${sql.ref(column)}, id) < (${after.at}, ${after.id}::uuid)`;
}

/** Newest first, keyset by (created_at, id); only rows created up to the watermark. */
export async function listReports(db: Kysely<Database>, filter: ReportListFilter): Promise<ReportRow[]> {
  let query = db.selectFrom('reports').selectAll().where('workspace_id', '=', filter.workspaceId).where('created_at', '<=', filter.watermark);
  if (!filter.includeArchived) query = query.where('archived', '=', false);
  if (filter.rootDomain !== null) query = query.where('root_domain', '=', filter.rootDomain);
  if (filter.after) query = query.where(olderThan('created_at', filter.after));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}

export async function setArchived(db: Kysely<Database>, reportId: string, archived: boolean, now: Date) {
  return db
    .updateTable('reports')
    .set((eb) => ({ archived, archived_at: archived ? eb.fn.coalesce('archived_at', eb.val(now)) : null, updated_at: now }))
    .where('id', '=', reportId)
    .returningAll()
    .executeTakeFirst();
}

export async function setPublic(db: Kysely<Database>, reportId: string, isPublic: boolean, now: Date) {
  return db
    .updateTable('reports')
    .set((eb) => ({
      visibility: isPublic ? 'public' : 'private',
      public_token: isPublic ? eb.fn.coalesce('public_token', eb.val(newPublicToken())) : null,
      updated_at: now,
    }))
    .where('id', '=', reportId)
    .returningAll()
    .executeTakeFirst();
}

/** Every attachment of the report whose normalized URL is in `urls`, active or removed. */
export async function attachmentsByUrl(db: Kysely<Database>, reportId: string, urls: string[]) {
  if (urls.length === 0) return new Map<string, { id: string; status: 'active' | 'removed' }>();
  const rows = await db
    .selectFrom('report_profiles')
    .select(['id', 'pronet_url', 'status'])
    .where('report_id', '=', reportId)
    .where('pronet_url', 'in', urls)
    .execute();
  return new Map(rows.map((r) => [r.pronet_url, { id: r.id, status: r.status }]));
}

/**
 * Applies the `add` and `restore` rows of a roster plan; returns the
 * profile id of every row that has one (added, restored, already present).
 */
export async function applyRosterPlan(
  db: Kysely<Database>,
  input: { reportId: string; workspaceId: string; source: ProfileSource; importId: string | null; rows: PlannedRow[] },
  now: Date,
): Promise<Map<number, string>> {
  const ids = new Map<number, string>();
  const additions = input.rows.filter((r) => r.status === 'add');
  const restores = input.rows.filter((r) => r.status === 'restore');
  for (const row of input.rows) if (row.existing_id) ids.set(row.row_number, row.existing_id);

  if (additions.length > 0) {
    const values = additions.map((row) => {
      const id = randomUUID();
      ids.set(row.row_number, id);
      return {
        id,
        report_id: input.reportId,
        workspace_id: input.workspaceId,
        pronet_url: row.url,
        name: row.profile.name ?? null,
        title: row.profile.title ?? null,
        headline: row.profile.headline ?? null,
        imported_columns: JSON.stringify(row.profile.columns ?? {}),
        source: input.source,
        status: 'active' as const,
        analysis_available: false,
        added_at: now,
        created_at: now,
        updated_at: now,
      };
    });
    // One statement: the attachments and their `added` history events.
    await db
      .with('added', (qb) => qb.insertInto('report_profiles').values(values).returning('id'))
      .insertInto('profile_events')
      .columns(['profile_id', 'event', 'source', 'import_id', 'at'])
      .expression((eb) =>
        eb
          .selectFrom('added')
          .select([
            'added.id',
            sql<'added'>`'added'`.as('event'),
            sql<ProfileSource>`${input.source}::text`.as('source'),
            sql<string | null>`${input.importId}::uuid`.as('import_id'),
            sql<Date>`${now}::timestamptz`.as('at'),
          ]),
      )
      .execute();
  }
  for (const row of restores) {
    // Restoring keeps the attachment's id, stored details and history; supplied
    // details fill in only what is missing.
    await db
      .updateTable('report_profiles')
      .set((eb) => ({
        status: 'active',
        removed_at: null,
        added_at: now,
        updated_at: now,
        name: eb.fn.coalesce('name', eb.val(row.profile.name ?? null)),
        title: eb.fn.coalesce('title', eb.val(row.profile.title ?? null)),
        headline: eb.fn.coalesce('headline', eb.val(row.profile.headline ?? null)),
        // Imported columns likewise: the stored values win, new columns are added.
        imported_columns: sql<string>`${JSON.stringify(row.profile.columns ?? {})}::jsonb || imported_columns`,
      }))
      .where('id', '=', row.existing_id!)
      .execute();
    await db
      .insertInto('profile_events')
      .values({ profile_id: row.existing_id!, event: 'restored', source: input.source, import_id: input.importId, at: now })
      .execute();
  }
  return ids;
}

export interface RosterFilter {
  reportId: string;
  watermark: Date;
  after: KeysetPosition | null;
  limit: number;
}

export async function listActiveProfiles(db: Kysely<Database>, filter: RosterFilter): Promise<ProfileRow[]> {
  let query = db
    .selectFrom('report_profiles')
    .selectAll()
    .where('report_id', '=', filter.reportId)
    .where('status', '=', 'active')
    .where('added_at', '<=', filter.watermark);
  if (filter.after) query = query.where(olderThan('added_at', filter.after));
  return query.orderBy('added_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}

/** Marks an active attachment removed (admin/UI action); keeps id, details and history. */
export async function removeProfile(db: Kysely<Database>, reportId: string, profileId: string, now: Date) {
  await lockReport(db, reportId);
  const row = await db
    .updateTable('report_profiles')
    .set({ status: 'removed', removed_at: now, updated_at: now })
    .where('report_id', '=', reportId)
    .where('id', '=', profileId)
    .where('status', '=', 'active')
    .returningAll()
    .executeTakeFirst();
  if (row) {
    await db.insertInto('profile_events').values({ profile_id: row.id, event: 'removed', source: 'ops', import_id: null, at: now }).execute();
  }
  return row;
}
