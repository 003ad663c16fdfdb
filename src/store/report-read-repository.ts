/**
 * The hot read of one report (GET /reports/{id}), as a fused read
 * (fused-read.ts): run by the authorization statement, or on its own. Scoped
 * by workspace like every report query.
 */
import type { Db } from './database.js';
import { defineFusedRead, fusedCall, readFused, type FusedCall, type Prefetched } from './fused-read.js';
import type { ReportRow } from './report-repository.js';

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
  profile_count: true,
  analyzed_profile_count: true,
  analysis_state: true,
  created_at: true,
  updated_at: true,
} satisfies Record<keyof ReportRow, true>) as (keyof ReportRow)[];

/** SQL of a json object with every column of ReportRow, from the reports row aliased `alias`. */
export function reportJsonSql(alias: string): string {
  return `json_build_object(${REPORT_COLUMNS.map((c) => `'${c}', ${alias}.${c}`).join(', ')})`;
}

type ReportJson = Omit<ReportRow, 'created_at' | 'updated_at'> & { created_at: string; updated_at: string };

/** A ReportRow from reportJsonSql's json (timestamps arrive as ISO 8601 strings with an offset). */
export function reportFromJson(value: ReportJson): ReportRow {
  return { ...value, created_at: new Date(value.created_at), updated_at: new Date(value.updated_at) };
}

const REPORT_READ = defineFusedRead({
  name: 'report_v1',
  params: ['reportId'],
  select: ({ workspaceId, param }) =>
    `select ${reportJsonSql('r')} as fused from reports r where r.workspace_id = ${workspaceId} and r.id = ${param.reportId}::uuid`,
  decode: (value) => (value === null ? null : reportFromJson(value as ReportJson)),
});

/** The report read for a route's `access.fused`. */
export function reportFusedCall(reportId: string): FusedCall {
  return fusedCall(REPORT_READ, { reportId });
}

/** The report, from the authorization statement's result when it ran this read, else read now; undefined: no such report here. */
export async function readReport(db: Db, workspaceId: string, reportId: string, prefetched?: Prefetched): Promise<ReportRow | undefined> {
  return (await readFused(db, REPORT_READ, workspaceId, { reportId }, prefetched)) ?? undefined;
}
