/**
 * The hot read of one report (GET /reports/{id}): fused into the
 * authorization statement (one round trip), or run on its own when it could
 * not be (`runFusedRead`). Scoped by workspace like every report query.
 */
import type { Db } from './database.js';
import { runFusedRead, type FusedRead } from './rate-limit-repository.js';
import type { ReportRow } from './report-repository.js';

const REPORT_COLUMNS = [
  'id',
  'workspace_id',
  'name',
  'company_name',
  'supplied_domain',
  'root_domain',
  'pronet_company_url',
  'visibility',
  'public_token',
  'archived',
  'profile_count',
  'analyzed_profile_count',
  'analysis_state',
  'created_at',
  'updated_at',
];

/** SQL of a json object with every column of ReportRow, from the reports row aliased `alias`. */
export function reportJsonSql(alias: string): string {
  return `json_build_object(${REPORT_COLUMNS.map((c) => `'${c}', ${alias}.${c}`).join(', ')})`;
}

/** The report, in the authorization statement ($8: the report id). */
export const REPORT_FUSED_READ: FusedRead = {
  name: 'report_v1',
  sql: `select ${reportJsonSql('r')} as fused from reports r where r.workspace_id = k.workspace_id and r.id = $8::uuid`,
};

/** A ReportRow from reportJsonSql's json (timestamps arrive as ISO 8601 strings with an offset). */
export function reportFromJson(value: unknown): ReportRow | undefined {
  if (value === null || value === undefined) return undefined;
  const row = value as Omit<ReportRow, 'created_at' | 'updated_at'> & { created_at: string; updated_at: string };
  return { ...row, created_at: new Date(row.created_at), updated_at: new Date(row.updated_at) };
}

/** REPORT_FUSED_READ on its own. */
export async function readReport(db: Db, workspaceId: string, reportId: string): Promise<ReportRow | undefined> {
  return reportFromJson(await runFusedRead(db, REPORT_FUSED_READ, workspaceId, [reportId]));
}
