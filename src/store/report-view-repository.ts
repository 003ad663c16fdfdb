/**
 * Reads the web workspace needs beyond the API's: the scan runs of one
 * report, newest first (the API reads one run at a time).
 */
import type { Kysely } from 'kysely';
import type { ScanRunRow } from './scan-repository.js';
import type { Database } from './schema.js';

export async function listReportRuns(db: Kysely<Database>, workspaceId: string, reportId: string, limit: number): Promise<ScanRunRow[]> {
  return db
    .selectFrom('scan_runs')
    .selectAll()
    .where('report_id', '=', reportId)
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
