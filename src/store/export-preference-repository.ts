/**
 * What the web remembers for its exports: each user's CSV separator and each
 * report's company display name (migration 0047). Both are the web's own and
 * never part of an API record.
 */
import type { Db } from './database.js';

export type CsvSeparator = 'comma' | 'semicolon';

export async function readCsvSeparator(db: Db, userId: string): Promise<CsvSeparator> {
  const row = await db.selectFrom('users').select('csv_separator').where('id', '=', userId).executeTakeFirst();
  return row?.csv_separator ?? 'comma';
}

export async function writeCsvSeparator(db: Db, userId: string, separator: CsvSeparator): Promise<void> {
  await db.updateTable('users').set({ csv_separator: separator }).where('id', '=', userId).execute();
}

/** Sets (or, with null, resets to the default) the report's display name; false when the report is not in the workspace. */
export async function writeDisplayCompanyName(db: Db, workspaceId: string, reportId: string, name: string | null, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('reports')
    .set({ display_company_name: name, updated_at: now })
    .where('id', '=', reportId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
