/**
 * The scan allowance's rows (migration 0025): a workspace's monthly limit
 * (`workspaces.scan_allowance`) and what its writes admitted per month
 * (`scan_allowance_usage`).
 *
 * `addProfileScans` runs inside the admitting write's transaction: one
 * upsert adds to the month's row and returns the new total, with the row
 * locked until the write commits or rolls back. A second write of the same
 * workspace waits on that lock, then sees the first one's total (PostgreSQL
 * re-reads the row after the wait), so two writes at the edge can never both
 * fit: the one that would overshoot rolls back, its addition with it. Nothing
 * here decides; the use-case compares the total with the limit.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface AllowanceRow {
  limit: number | null;
  used: number;
}

/** The workspace's limit and its use in `month` ('YYYY-MM-01'); null when there is no such workspace. */
export async function readAllowanceRow(db: Kysely<Database>, workspaceId: string, month: string): Promise<AllowanceRow | null> {
  const row = await db
    .selectFrom('workspaces as w')
    .leftJoin('scan_allowance_usage as u', (join) => join.onRef('u.workspace_id', '=', 'w.id').on('u.month', '=', sql<string>`${month}::date`))
    .select(['w.scan_allowance', sql<number>`coalesce(u.used, 0)`.as('used')])
    .where('w.id', '=', workspaceId)
    .executeTakeFirst();
  return row ? { limit: row.scan_allowance, used: Number(row.used) } : null;
}

/** Adds `scans` to the workspace's use in `month` and returns the limit and the new total; the row stays locked until commit. */
export async function addProfileScans(db: Kysely<Database>, workspaceId: string, month: string, scans: number): Promise<AllowanceRow> {
  const { used } = await db
    .insertInto('scan_allowance_usage')
    .values({ workspace_id: workspaceId, month: sql<string>`${month}::date`, used: scans })
    .onConflict((oc) => oc.columns(['workspace_id', 'month']).doUpdateSet((eb) => ({ used: eb('scan_allowance_usage.used', '+', eb.ref('excluded.used')) })))
    .returning('used')
    .executeTakeFirstOrThrow();
  // Read after the row lock: an operator's change committed meanwhile counts.
  const { scan_allowance } = await db.selectFrom('workspaces').select('scan_allowance').where('id', '=', workspaceId).executeTakeFirstOrThrow();
  return { limit: scan_allowance, used };
}

/** People with at least one of these newly admitted items: the profile scans a write queued. */
export async function countQueuedPeople(db: Kysely<Database>, itemIds: string[]): Promise<number> {
  if (itemIds.length === 0) return 0;
  const { people } = await db
    .selectFrom('scan_items')
    .select(sql<number>`count(distinct profile_id)`.as('people'))
    .where('id', 'in', itemIds)
    .where('profile_id', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(people);
}

/** Sets the workspace's monthly limit (null: unlimited); false when there is no such workspace. */
export async function setAllowanceLimit(db: Kysely<Database>, workspaceId: string, limit: number | null, now: Date): Promise<boolean> {
  const result = await db.updateTable('workspaces').set({ scan_allowance: limit, updated_at: now }).where('id', '=', workspaceId).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
