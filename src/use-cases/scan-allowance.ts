/**
 * The scan allowance as every interface uses it (docs/operations.md, "Scan
 * allowance"; the rules in domain/scan-allowance.ts): admission reserves it
 * inside the write's transaction (report creation with people, import
 * commits); reads and previews only look; the operator sets it.
 *
 * A write that would exceed it is refused with 409 `scan_allowance_exceeded`
 * and its whole transaction rolls back: no report, roster change, scan item
 * or receipt, and no idempotency record (decisions "Idempotency": a failed
 * request saves nothing, so the same key may be used again once the
 * allowance allows it).
 */
import type { Kysely } from 'kysely';
import { allowanceAdmits, allowanceHeaders, allowanceMonth, allowanceStatus, type AllowanceStatus } from '../domain/scan-allowance.js';
import { apiError, notFound } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import { addProfileScans, countQueuedPeople, readAllowanceRow, setAllowanceLimit } from '../store/scan-allowance-repository.js';
import type { Database } from '../store/schema.js';

export type { AllowanceStatus };
export { allowanceHeaders };

/** The workspace's allowance this month. Reserves nothing. */
export async function readScanAllowance(db: Db | Kysely<Database>, workspaceId: string, now: Date): Promise<AllowanceStatus> {
  const row = await readAllowanceRow(db, workspaceId, allowanceMonth(now).month);
  if (!row) throw notFound('workspace');
  return allowanceStatus(row.limit, row.used, now);
}

/**
 * Reserves the profile scans of the items a write just admitted (inside its
 * transaction, after admission, before commit). Throws the 409 when they do
 * not fit; the caller's transaction then rolls back, the addition with it.
 */
export async function reserveProfileScans(trx: Kysely<Database>, workspaceId: string, itemIds: string[], now: Date): Promise<void> {
  const scans = await countQueuedPeople(trx, itemIds);
  if (scans === 0) return;
  const { limit, used } = await addProfileScans(trx, workspaceId, allowanceMonth(now).month, scans);
  const before = allowanceStatus(limit, used - scans, now);
  if (!allowanceAdmits(before, scans)) {
    throw apiError(
      'scan_allowance_exceeded',
      { scans: `${scans} profile scan${scans === 1 ? '' : 's'}`, remaining: String(before.remaining), limit: String(limit), resets_at: before.resets_at },
      { retryable: false, headers: allowanceHeaders(before) },
    );
  }
}

/** Sets the workspace's monthly allowance (null: unlimited). The operator's command. */
export async function setScanAllowance(db: Db, workspaceId: string, limit: number | null, now: Date): Promise<AllowanceStatus> {
  if (!(await setAllowanceLimit(db, workspaceId, limit, now))) throw notFound('workspace');
  return readScanAllowance(db, workspaceId, now);
}
