/**
 * The transitions of a claimed item that take row locks in a transaction of
 * their own: a requeue (a retry's backoff, a provider's Retry-After, a
 * worker shutting down) and a failure; the begin of an archived report's
 * item uses the same locks (begin.ts). A person's item records its roll-up
 * as a delta (deltas.ts); the company page's rolls up under the report lock.
 */
import { sql, type Kysely } from 'kysely';
import { lockReport, lockRun } from '../store/locks.js';
import { refreshReportRollup } from '../store/rollup-repository.js';
import { applyRunChange, type RunChange } from '../store/scan-repository.js';
import type { Database } from '../store/schema.js';
import { retryingTransaction } from '../store/transaction.js';
import { recordPersonDelta } from './deltas.js';
import { itemRead, settle, type Claim, type ClaimedItem, type LockedItem, type ReadItem } from './item.js';

/**
 * Item transitions commit without waiting for the WAL flush, so the report
 * and run locks are released sooner. A crash can then lose the last few
 * hundred milliseconds of transitions, and that loses nothing: an item whose
 * finish was lost is still `running` under an expired lease and is claimed
 * and collected again (every write of a finish is idempotent), and a lost
 * begin or requeue leaves the item as it was. Writes of the API (imports,
 * receipts, idempotency records) keep full durability. On a scan worker's
 * pool the sessions commit asynchronously already (store/database.ts).
 */
export function transaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return retryingTransaction(db, work, { asynchronousCommit: true });
}

/**
 * Locks what a transition of the claim's item changes (src/store/locks.ts):
 * a person's item, then its attachment; for the company page's item, its
 * report, run, then the item. Null when the claim no longer holds the item
 * (finished, cancelled, or claimed again after its lease ran out).
 */
export async function lockClaimed(
  trx: Kysely<Database>,
  claim: Pick<Claim, 'itemId' | 'claimId'>,
  /** The item's ids when the caller knows them (a begun item): saves reading them first. */
  known?: Pick<ClaimedItem, 'run_id' | 'report_id' | 'profile_id'>,
): Promise<ReadItem | null> {
  const query = itemRead(trx, claim.itemId);
  const held = (item: ReadItem | undefined) => (item && item.status === 'running' && item.claim_id === claim.claimId ? item : null);
  // A person's item (nearly every item): the item and the attachment in one statement (nothing locks an
  // attachment, then an item), whether or not its ids are known.
  const personItem = () => query.where('p.id', 'is not', null).forNoKeyUpdate(['i', 'p']).executeTakeFirst();
  if (known?.profile_id !== null) {
    const item = await personItem();
    if (item || known) return held(item);
  }
  // The company page's item (one per run): the report and the run first, so its ids are read before any lock.
  const ids = known ?? (await trx.selectFrom('scan_items').select(['run_id', 'report_id', 'profile_id']).where('id', '=', claim.itemId).executeTakeFirst());
  if (!ids || ids.profile_id !== null) return null;
  await lockReport(trx, ids.report_id);
  await lockRun(trx, ids.run_id);
  return held(await query.forNoKeyUpdate('i').executeTakeFirst());
}

/**
 * The roll-up of an item's requeue, failure or cancel, after its row
 * changed, inside the transition's transaction: a person's as a delta (true:
 * settle the report after the commit), the company page's under the report
 * lock it holds. `change` null: the run's counts do not change.
 */
export async function rollUp(trx: Kysely<Database>, item: LockedItem, change: Extract<RunChange, { kind: 'finished' }> | null, now: Date): Promise<boolean> {
  if (item.profile_id !== null) {
    await recordPersonDelta(trx, item.report_id, item.profile_id, change && { runId: item.run_id, change }, now);
    return true;
  }
  if (change) await applyRunChange(trx, item.run_id, change, now);
  await refreshReportRollup(trx, item.report_id, { profileIds: [] }, now);
  return false;
}

/**
 * Hands a claimed item back to the queue, claimable `delayMs` from now (the
 * database's clock, like every queue time). With
 * `spendAttempt: false` (a provider asked us to wait) the attempt is not
 * counted. False when the claim was already lost.
 */
export async function requeueItem(
  db: Kysely<Database>,
  claim: Pick<Claim, 'itemId' | 'claimId'>,
  options: { delayMs: number; spendAttempt: boolean; reason: string },
  now: Date,
): Promise<boolean> {
  const requeued = await transaction(db, async (trx) => {
    const item = await lockClaimed(trx, claim);
    if (!item) return null;
    await trx
      .updateTable('scan_items')
      .set((eb) => ({
        status: 'pending',
        ready_at: sql<Date>`now() + make_interval(secs => ${options.delayMs / 1000}::float8)`,
        claim_id: null,
        lease_expires_at: null,
        reason: options.reason,
        attempts: options.spendAttempt ? eb.ref('attempts') : eb('attempts', '-', 1),
      }))
      .where('id', '=', item.id)
      .execute();
    // The run's counts do not change (the item is still unfinished).
    return { reportId: item.report_id, settle: await rollUp(trx, item, null, now) };
  });
  if (!requeued) return false;
  if (requeued.settle) settle(db, requeued.reportId, now);
  return true;
}

/**
 * Hands a claimed item back to the queue at once, its attempt given back
 * (a worker shutting down before the item finished: it was not the item's
 * fault). False when the claim was already gone (finished, or lost).
 */
export async function releaseItem(db: Kysely<Database>, claim: Pick<Claim, 'itemId' | 'claimId'>, now: Date): Promise<boolean> {
  return requeueItem(db, claim, { delayMs: 0, spendAttempt: false, reason: 'released by a worker shutting down' }, now);
}

/** Ends a claimed item `failed` (attempts spent, or a failure retrying cannot mend). */
export async function markItemFailed(db: Kysely<Database>, claim: Pick<Claim, 'itemId' | 'claimId'>, reason: string, now: Date): Promise<void> {
  const failed = await transaction(db, async (trx) => {
    const item = await lockClaimed(trx, claim);
    if (!item) return null;
    await trx
      .updateTable('scan_items')
      .set({ status: 'failed', reason, finished_at: now, claim_id: null, lease_expires_at: null })
      .where('id', '=', item.id)
      .execute();
    return { reportId: item.report_id, settle: await rollUp(trx, item, { kind: 'finished', status: 'failed' }, now) };
  });
  if (failed?.settle) settle(db, failed.reportId, now);
}
