/**
 * Provider records billed per workspace (docs/collectors.md, "Cost"): what a
 * data provider charged for the workspace's scans, counted when an item's
 * result is stored (scanning/finish-item.ts, finishItem). Shown to the
 * workspace's owners and admins on the settings page and to the operator by
 * `profile-scan admin workspace usage`; both read it here.
 */
import type { Db } from '../store/database.js';
import { readProviderUsage, type ProviderUsage } from '../store/provider-usage-repository.js';

export type { ProviderUsage };

/** Records billed per provider: today, this calendar month and the last 30 days (UTC). */
export async function readBilledRecords(db: Db, workspaceId: string): Promise<ProviderUsage[]> {
  return readProviderUsage(db, workspaceId);
}
