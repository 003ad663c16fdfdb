/**
 * The scan item lifecycle in the database: claim (the fair queue's SQL
 * function, migration 0009), begin, finish (with the stored analysis, in one
 * transaction), requeue (retry backoff or a provider's Retry-After), fail.
 *
 * Queue times (`ready_at`, leases) are the database server's clock: one
 * clock for every process, whatever the service clock (CLOCK_OFFSET_MS, a
 * test's manual clock) says.
 *
 * Every transition after the claim names the claim (`claim_id`) it belongs
 * to and re-checks it under a row lock, so a duplicate or a late worker whose
 * lease expired (and whose item was claimed again elsewhere) changes nothing.
 *
 * Lock order is report → run → item (src/store/locks.ts). A finishing item
 * first locks its attachment and writes what it observed (evidence,
 * activity, findings: per-person rows), and takes the report lock only for
 * the roll-up at the end, so items of one report do not wait on each other
 * for their per-person writes (docs/scanning.md).
 */
import { sql, type Kysely } from 'kysely';
import type { CollectResult } from '../domain/collected.js';
import { refreshFindings, storeActivity, storeCompany, storeEvidence, type EvidenceToStore } from './analysis-repository.js';
import { lockAttachment, lockReport, lockRun } from './locks.js';
import { retryingTransaction } from './transaction.js';
import { refreshReportRollup } from './rollup-repository.js';
import { applyRunChange } from './scan-repository.js';
import type { Database, ItemStatus, ScanMode } from './schema.js';
import type { KeyMode } from '../domain/keys.js';

/** What a worker holds after a claim. */
export interface Claim {
  itemId: string;
  claimId: string;
  /** Attempts including this one. */
  attempts: number;
}

export interface ClaimedItem {
  id: string;
  claim_id: string;
  run_id: string;
  report_id: string;
  profile_id: string | null;
  kind: 'person' | 'company_page';
  mode: ScanMode;
  key_mode: KeyMode;
}

export type ItemOutcome = 'succeeded' | 'inaccessible' | 'failed' | 'cancelled';

interface LockedItem extends Omit<ClaimedItem, 'claim_id'> {
  status: ItemStatus;
  claim_id: string | null;
  archived: boolean;
}

/** Thrown inside a transaction to roll it back when the claim is no longer ours. */
class ClaimLost extends Error {}

/**
 * Item transitions commit without waiting for the WAL flush, so the report
 * and run locks are released sooner. A crash can then lose the last few
 * hundred milliseconds of transitions, and that loses nothing: an item whose
 * finish was lost is still `running` under an expired lease and is claimed
 * and collected again (every write of a finish is idempotent), and a lost
 * begin or requeue leaves the item as it was. Writes of the API (imports,
 * receipts, idempotency records) keep full durability.
 */
function transaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return retryingTransaction(db, work, { asynchronousCommit: true });
}

/** Claims one item fairly (see claim_scan_item in migration 0009); null when nothing is ready. */
export async function claimItem(db: Kysely<Database>, leaseSeconds: number): Promise<Claim | null> {
  const { rows } = await sql<{ item_id: string; claim_id: string; attempts: number }>`
    select item_id, claim_id, attempts from claim_scan_item(${leaseSeconds}::int)`.execute(db);
  const row = rows[0];
  return row ? { itemId: row.item_id, claimId: row.claim_id, attempts: row.attempts } : null;
}

/** Extends the leases of the given claims; returns the claims still held (the others were lost). */
export async function extendLeases(db: Kysely<Database>, claimIds: string[], leaseSeconds: number): Promise<Set<string>> {
  if (claimIds.length === 0) return new Set();
  const { rows } = await sql<{ claim_id: string }>`
    update scan_items set lease_expires_at = now() + make_interval(secs => ${leaseSeconds}::int)
    where status = 'running' and claim_id = any(${claimIds}::uuid[])
    returning claim_id`.execute(db);
  return new Set(rows.map((r) => r.claim_id));
}

/** Locks the item's report, run and item rows, in that order (src/store/locks.ts), inside `trx`. */
async function lockItem(trx: Kysely<Database>, itemId: string): Promise<LockedItem | null> {
  const ids = await trx.selectFrom('scan_items').select(['run_id', 'report_id']).where('id', '=', itemId).executeTakeFirst();
  if (!ids) return null;
  await lockReport(trx, ids.report_id);
  await lockRun(trx, ids.run_id);
  const item = await trx
    .selectFrom('scan_items as i')
    .innerJoin('scan_runs as r', 'r.id', 'i.run_id')
    .innerJoin('reports as rep', 'rep.id', 'i.report_id')
    .select(['i.id', 'i.claim_id', 'i.run_id', 'i.report_id', 'i.profile_id', 'i.kind', 'i.status', 'r.mode', 'r.key_mode', 'rep.archived'])
    .where('i.id', '=', itemId)
    .forNoKeyUpdate('i')
    .executeTakeFirst();
  return item ?? null;
}

/** Locks the report → run → item and checks that `claim` still holds the item (running, same claim id). */
async function lockClaimed(trx: Kysely<Database>, claim: Pick<Claim, 'itemId' | 'claimId'>): Promise<LockedItem | null> {
  const item = await lockItem(trx, claim.itemId);
  return item && item.status === 'running' && item.claim_id === claim.claimId ? item : null;
}

/**
 * Makes a fresh claim visible: the run and the report roll-up count the item
 * as processing. An item of an archived report is cancelled instead. Null
 * when the claim is no longer ours or the item was cancelled.
 */
export async function beginItem(db: Kysely<Database>, claim: Claim, now: Date): Promise<ClaimedItem | null> {
  return transaction(db, async (trx) => {
    const item = await lockClaimed(trx, claim);
    if (!item) return null;
    if (item.archived) {
      await trx
        .updateTable('scan_items')
        .set({ status: 'cancelled', finished_at: now, reason: 'report archived', claim_id: null, lease_expires_at: null })
        .where('id', '=', item.id)
        .execute();
      await applyRunChange(trx, item.run_id, { kind: 'finished', status: 'cancelled' }, now);
      await refreshReportRollup(trx, item.report_id, { profileIds: [item.profile_id] }, now, {
        companyUnchanged: item.profile_id !== null,
      });
      return null;
    }
    const run = await applyRunChange(trx, item.run_id, { kind: 'started' }, now);
    if (run.status === 'running')
      await refreshReportRollup(trx, item.report_id, { profileIds: [item.profile_id] }, now, {
        companyUnchanged: item.profile_id !== null,
      });
    return {
      id: item.id,
      claim_id: claim.claimId,
      run_id: item.run_id,
      report_id: item.report_id,
      profile_id: item.profile_id,
      kind: item.kind,
      mode: item.mode,
      key_mode: item.key_mode,
    };
  });
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
  return transaction(db, async (trx) => {
    const item = await lockClaimed(trx, claim);
    if (!item) return false;
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
    await refreshReportRollup(trx, item.report_id, { profileIds: [item.profile_id] }, now, { companyUnchanged: item.profile_id !== null });
    return true;
  });
}

/**
 * Hands a claimed item back to the queue at once, its attempt given back
 * (a worker shutting down before the item finished: it was not the item's
 * fault). False when the claim was already gone (finished, or lost).
 */
export async function releaseItem(db: Kysely<Database>, claim: Pick<Claim, 'itemId' | 'claimId'>, now: Date): Promise<boolean> {
  return requeueItem(db, claim, { delayMs: 0, spendAttempt: false, reason: 'released by a worker shutting down' }, now);
}

export interface AnalysisInputs {
  profileUrl: string | null;
  companyUrl: string;
  company: { name: string; domain: string | null };
}

export async function analysisInputs(db: Kysely<Database>, item: ClaimedItem): Promise<AnalysisInputs> {
  const report = await db
    .selectFrom('reports')
    .select(['company_name', 'root_domain', 'pronet_company_url'])
    .where('id', '=', item.report_id)
    .executeTakeFirstOrThrow();
  const profile = item.profile_id
    ? await db.selectFrom('report_profiles').select('pronet_url').where('id', '=', item.profile_id).executeTakeFirstOrThrow()
    : null;
  return {
    profileUrl: profile?.pronet_url ?? null,
    companyUrl: report.pronet_company_url,
    company: { name: report.company_name, domain: report.root_domain },
  };
}

type Finish =
  | { item: ClaimedItem; inputs: AnalysisInputs; outcome: 'inaccessible'; reason: string }
  | {
      item: ClaimedItem;
      inputs: AnalysisInputs;
      outcome: 'succeeded';
      result: Extract<CollectResult, { outcome: 'ok' }>;
      evidence: EvidenceToStore[];
      /** The media collection generation read before the evidence blobs were stored (maintenance-repository.ts). */
      mediaGeneration?: number;
    };

export async function finishItem(db: Kysely<Database>, finish: Finish, now: Date): Promise<ItemOutcome | 'skipped'> {
  const { item } = finish;
  const claim = { itemId: item.id, claimId: item.claim_id };
  try {
    return await transaction(db, async (trx) => {
      if (finish.outcome === 'succeeded') {
        // Per-person serialization: the other mode's item of the same person
        // must see what this one stores before it evaluates the findings.
        if (item.profile_id !== null) await lockAttachment(trx, item.profile_id);
        const stillOurs = await trx
          .selectFrom('scan_items')
          .select('id')
          .where('id', '=', item.id)
          .where('status', '=', 'running')
          .where('claim_id', '=', item.claim_id)
          .executeTakeFirst();
        if (!stillOurs) throw new ClaimLost();
        const { result } = finish;
        const capturedAt = new Date(result.captured_at);
        await storeEvidence(
          trx,
          {
            reportId: item.report_id,
            profileId: item.profile_id,
            itemId: item.id,
            images: finish.evidence,
            mediaGeneration: finish.mediaGeneration,
          },
          now,
        );
        if (result.activity !== null) {
          await storeActivity(trx, { reportId: item.report_id, profileId: item.profile_id, itemId: item.id, events: result.activity, capturedAt }, now);
        }
        if (item.kind === 'company_page' && result.company) {
          await storeCompany(trx, { reportId: item.report_id, itemId: item.id, company: result.company, capturedAt }, now);
        }
        if (item.profile_id !== null) {
          await refreshFindings(
            trx,
            {
              reportId: item.report_id,
              profileId: item.profile_id,
              itemId: item.id,
              profile: item.mode === 'full_profile' ? result.profile : null,
              capturedAt,
              company: finish.inputs.company,
            },
            now,
          );
        }
      }
      // The roll-up: report → run → item locks, held only from here to commit.
      if (!(await lockClaimed(trx, claim))) throw new ClaimLost();
      const done =
        finish.outcome === 'succeeded'
          ? { status: 'succeeded' as const, warning: finish.result.missing_sections.length > 0, reason: null }
          : { status: 'inaccessible' as const, warning: false, reason: finish.reason };
      await trx
        .updateTable('scan_items')
        .set({ ...done, finished_at: now, claim_id: null, lease_expires_at: null })
        .where('id', '=', item.id)
        .execute();
      await applyRunChange(trx, item.run_id, { kind: 'finished', status: done.status, warning: done.warning }, now);
      await refreshReportRollup(trx, item.report_id, { profileIds: [item.profile_id] }, now, {
        companyUnchanged: item.profile_id !== null,
      });
      return finish.outcome;
    });
  } catch (error) {
    if (error instanceof ClaimLost) return 'skipped';
    throw error;
  }
}

/** Ends a claimed item `failed` (attempts spent, or a failure retrying cannot mend). */
export async function markItemFailed(db: Kysely<Database>, claim: Pick<Claim, 'itemId' | 'claimId'>, reason: string, now: Date): Promise<void> {
  await transaction(db, async (trx) => {
    const item = await lockClaimed(trx, claim);
    if (!item) return;
    await trx
      .updateTable('scan_items')
      .set({ status: 'failed', reason, finished_at: now, claim_id: null, lease_expires_at: null })
      .where('id', '=', item.id)
      .execute();
    await applyRunChange(trx, item.run_id, { kind: 'finished', status: 'failed' }, now);
    await refreshReportRollup(trx, item.report_id, { profileIds: [item.profile_id] }, now, { companyUnchanged: item.profile_id !== null });
  });
}
