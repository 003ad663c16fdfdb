/**
 * The scan item lifecycle in the database: claim (the fair queue's SQL
 * function, migrations 0026 to 0028), begin, end (in one statement with its
 * results: a person's item, endPersonItem; the company page's,
 * endCompanyItem; scanning/finish-item.ts decides what they store), requeue
 * (retry backoff or a provider's Retry-After), fail.
 *
 * Queue times (`ready_at`, leases) are the database server's clock: one
 * clock for every process, whatever the service clock (CLOCK_OFFSET_MS, a
 * test's manual clock) says.
 *
 * Every transition after the claim names the claim (`claim_id`) it belongs
 * to and re-checks it under a row lock, so a duplicate or a late worker whose
 * lease expired (and whose item was claimed again elsewhere) changes nothing.
 * An item begins without a lock (beginItem): its begin writes only a
 * request to recompute the person or the company page, which is harmless
 * when repeated or late.
 *
 * Lock order (src/store/locks.ts): a person's item locks the item, then the
 * attachment, and nothing above them: its roll-up is recorded as a delta
 * (rollup-repository.ts, recordPersonDelta) and folded into the report and
 * run rows after the commit (settleRollups), so the items of one report
 * never wait on each other for those rows. The company page's item (one per
 * run) ends under the report lock (the version of the company page's
 * observation is on the report row) and records its roll-up as a delta too;
 * its requeue and failure lock report → run → item and roll up under the
 * report lock.
 */
import { sql, type Kysely, type OperationNodeSource, type QueryCreator, type RawBuilder } from 'kysely';
import { lockReport, lockRun } from './locks.js';
import { MediaCollected } from './maintenance-repository.js';
import { inOneStatement } from './one-statement.js';
import { retryingTransaction } from './transaction.js';
import { settleRollups } from './rollup-folds.js';
import {
  companyDeltaWrite,
  personDelta,
  personDeltaWrites,
  recordPersonDelta,
  refreshReportRollup,
  storeVisibleFlags,
  type GatheredPerson,
} from './rollup-repository.js';
import { applyRunChange, type RunChange } from './scan-repository.js';
import type { Database, ItemStatus, ScanMode } from './schema.js';
import type { KeyMode } from '../domain/keys.js';
import type { ActivityGap } from '../domain/collected.js';

/** What a worker holds after a claim. */
export interface Claim {
  itemId: string;
  claimId: string;
  /** Attempts including this one. */
  attempts: number;
  /** The item begun by the claim's own statement (`claimItem` with `begin`); absent: `beginItem` begins it. */
  begun?: BegunItem;
}

export interface ClaimedItem {
  id: string;
  claim_id: string;
  run_id: string;
  report_id: string;
  /** The report's workspace (the item's fair share of image work: image-work.ts). */
  workspace_id: string;
  profile_id: string | null;
  kind: 'person' | 'company_page';
  mode: ScanMode;
  key_mode: KeyMode;
}

export type ItemOutcome = 'succeeded' | 'inaccessible' | 'failed' | 'cancelled';

/** A claimed item and what its collection and analysis need, read by the claim's begin. */
export interface BegunItem extends ClaimedItem {
  inputs: AnalysisInputs;
  /** The media collection generation, read before any evidence blob is stored (maintenance-repository.ts). */
  mediaGeneration: number;
}

export interface LockedItem extends Omit<ClaimedItem, 'claim_id'> {
  status: ItemStatus;
  claim_id: string | null;
  archived: boolean;
  company_name: string;
  root_domain: string | null;
  pronet_company_url: string;
  pronet_url: string | null;
}

/** An item as `itemRead` reads it: the media collection generation as of the read's snapshot (the begin's: before any blob is stored). */
type ReadItem = LockedItem & { media_generation: number };

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
function transaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return retryingTransaction(db, work, { asynchronousCommit: true });
}

/**
 * Claims one item fairly (claim_scan_item, migrations 0026 to 0028); null
 * when nothing is ready. With `worker`, the item is held while that worker
 * lives (store/worker-repository.ts), and the items of dead workers are taken
 * first: silent for `deadSeconds` with their process gone, or silent for
 * `hungSeconds`. Without, by its lease.
 *
 * With `begin`, the same statement begins an item of a live report within
 * its attempts (`begun`: what `beginItem` would do and return, one round
 * trip fewer); any other item is begun (or cancelled) by `beginItem`.
 */
export async function claimItem(
  db: Kysely<Database>,
  leaseSeconds: number,
  worker?: { id: string; deadSeconds: number; hungSeconds: number },
  begin?: { now: Date; maxAttempts: number },
): Promise<Claim | null> {
  const claimed = sql`select item_id, claim_id, attempts
      from claim_scan_item(${leaseSeconds}::int, ${worker?.id ?? null}::uuid, ${worker?.deadSeconds ?? 10}::int, ${worker?.hungSeconds ?? 60}::int)`;
  if (!begin) {
    const { rows } = await sql<{ item_id: string; claim_id: string; attempts: number }>`${claimed}`.execute(db);
    const row = rows[0];
    return row ? { itemId: row.item_id, claimId: row.claim_id, attempts: row.attempts } : null;
  }
  // The claim's change of the item is not in this statement's snapshot: the item is read by its id alone
  // (what the begin reads of it never changes), and the claim's function runs once (a materialized CTE).
  const item = itemRead(db, sql<string>`(select item_id from claimed)`);
  const started = beginDelta(begin.now, sql<boolean>`(select attempts from claimed) <= ${begin.maxAttempts}`);
  // The item's own columns (its claim as of the snapshot, before this claim) are named apart from the claim's.
  const { rows } = await sql<{ claimed_item: string; claimed_claim: string; claimed_attempts: number; begun: boolean } & Omit<ReadItem, 'status'>>`
    with claimed as materialized (${claimed}), item as (${item}), started as (${started})
    select claimed.item_id as claimed_item, claimed.claim_id as claimed_claim, claimed.attempts as claimed_attempts,
           exists (select 1 from started) as begun, item.*
      from claimed left join item on true`.execute(db);
  const row = rows[0];
  if (!row) return null;
  const claim: Claim = { itemId: row.claimed_item, claimId: row.claimed_claim, attempts: row.claimed_attempts };
  if (row.begun) {
    claim.begun = begunItem(row, claim);
    settle(db, row.report_id, begin.now);
  }
  return claim;
}

/** An item with what its transitions and its collection need (its run, report and attachment). */
function itemRead(db: QueryCreator<Database>, itemId: string | RawBuilder<string>) {
  return db
    .selectFrom('scan_items as i')
    .innerJoin('scan_runs as r', 'r.id', 'i.run_id')
    .innerJoin('reports as rep', 'rep.id', 'i.report_id')
    .leftJoin('report_profiles as p', 'p.id', 'i.profile_id')
    .select(['i.id', 'i.claim_id', 'i.run_id', 'i.report_id', 'i.profile_id', 'i.kind', 'i.status', 'r.mode', 'r.key_mode', 'rep.archived'])
    .select(['rep.workspace_id', 'rep.company_name', 'rep.root_domain', 'rep.pronet_company_url', 'p.pronet_url'])
    .select(sql<number>`coalesce((select media_gc_generation from maintenance_state), 0)`.as('media_generation'))
    .where('i.id', '=', itemId);
}

/**
 * Locks what a transition of the claim's item changes (src/store/locks.ts):
 * a person's item, then its attachment; for the company page's item, its
 * report, run, then the item. Null when the claim no longer holds the item
 * (finished, cancelled, or claimed again after its lease ran out).
 */
async function lockClaimed(
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
async function rollUp(trx: Kysely<Database>, item: LockedItem, change: Extract<RunChange, { kind: 'finished' }> | null, now: Date): Promise<boolean> {
  if (item.profile_id !== null) {
    await recordPersonDelta(trx, item.report_id, item.profile_id, change && { runId: item.run_id, change }, now);
    return true;
  }
  if (change) await applyRunChange(trx, item.run_id, change, now);
  await refreshReportRollup(trx, item.report_id, { profileIds: [] }, now);
  return false;
}

/**
 * Asks for the report's roll-up deltas to be folded after a transition
 * committed one (rollup-folds.ts), without waiting for it: the item's slot
 * is free at once.
 * A fold that fails leaves the deltas for the workers' sweep
 * (settleStaleRollups), which reports its errors; the transition itself
 * stands.
 */
function settle(db: Kysely<Database>, reportId: string, now: Date): void {
  settleRollups(db, reportId, now).catch(() => undefined);
}

/**
 * Makes a fresh claim visible: the run and the report roll-up count the item
 * as processing. An item of an archived report is cancelled instead. Null
 * when the claim is no longer ours or the item was cancelled.
 *
 * An item of a live report begins in one statement, without a transaction
 * or a lock: it reads what the collection needs and appends a delta that
 * starts the run and names the person (or the company page), whose
 * contribution the fold recomputes (rollup-repository.ts). The claim is
 * checked, not held: a claim lost right after is found by the item's next
 * transition, which then changes nothing, and the delta only asks for a
 * recomputation (harmless when nothing changed). An archived report's item
 * takes the locking path (beginLocked).
 */
export async function beginItem(db: Kysely<Database>, claim: Claim, now: Date): Promise<BegunItem | null> {
  const item = itemRead(db, claim.itemId).where('i.claim_id', '=', claim.claimId).where('i.status', '=', 'running');
  const { rows } = await sql<ReadItem>`
    with item as (${item}), started as (${beginDelta(now, sql<boolean>`true`)})
    select * from item`.execute(db);
  const read = rows[0];
  if (!read) return null;
  if (read.archived) {
    const begun = await beginLocked(db, claim, now);
    return begun && begunItem(begun, claim);
  }
  settle(db, read.report_id, now);
  return begunItem(read, claim);
}

/**
 * The begin's one write, over a CTE `item` (`itemRead`): a delta that starts
 * the run and names the person (`recompute_profile_id`) or the company page
 * (`recompute_company`), for an item of a live report when `when` holds. An
 * archived report's item takes the locking path (beginLocked).
 */
function beginDelta(now: Date, when: RawBuilder<boolean>): RawBuilder<unknown> {
  return sql`
    insert into rollup_deltas (report_id, run_id, started, at, recompute_profile_id, recompute_company)
    select report_id, run_id, true, ${now}::timestamptz, profile_id, profile_id is null
      from item
     where not archived and ${when}
    returning id`;
}

/** What a begun item hands to its collection and its finish. */
function begunItem(item: Omit<ReadItem, 'status' | 'claim_id'>, claim: Claim): BegunItem {
  return {
    id: item.id,
    claim_id: claim.claimId,
    run_id: item.run_id,
    report_id: item.report_id,
    workspace_id: item.workspace_id,
    profile_id: item.profile_id,
    kind: item.kind,
    mode: item.mode,
    key_mode: item.key_mode,
    inputs: {
      profileUrl: item.pronet_url,
      companyUrl: item.pronet_company_url,
      company: { name: item.company_name, domain: item.root_domain },
    },
    mediaGeneration: item.media_generation,
  };
}

/**
 * The begin of an item read as an archived report's, under its locks
 * (lockClaimed): cancelled if the report is still archived, else begun as
 * beginItem begins it (the report was unarchived in between).
 */
async function beginLocked(db: Kysely<Database>, claim: Claim, now: Date): Promise<ReadItem | null> {
  const begun = await transaction(db, async (trx) => {
    const item = await lockClaimed(trx, claim);
    if (!item) return null;
    if (!item.archived) {
      await sql`with item as (select ${item.report_id}::uuid as report_id, ${item.run_id}::uuid as run_id, ${item.profile_id}::uuid as profile_id, false as archived)
                ${beginDelta(now, sql<boolean>`true`)}`.execute(trx);
      return { item, cancelled: false };
    }
    await trx
      .updateTable('scan_items')
      .set({ status: 'cancelled', finished_at: now, reason: 'report archived', claim_id: null, lease_expires_at: null })
      .where('id', '=', item.id)
      .execute();
    await rollUp(trx, item, { kind: 'finished', status: 'cancelled' }, now);
    return { item, cancelled: true };
  });
  if (!begun) return null;
  settle(db, begun.item.report_id, now);
  return begun.cancelled ? null : begun.item;
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

export interface AnalysisInputs {
  profileUrl: string | null;
  companyUrl: string;
  company: { name: string; domain: string | null };
}

/**
 * How a claimed item ends when its collection gave a result. `activity_gap`:
 * why a succeeded person's activity item did not observe the activity it was
 * asked for (domain/activity-observation.ts); null otherwise.
 */
export type ItemEnd =
  | { status: 'succeeded'; warning: boolean; reason: null; activity_gap: ActivityGap | null }
  | { status: 'inaccessible'; warning: false; reason: string; activity_gap?: null };

/**
 * What a person's finishing item writes in the statement that ends it,
 * decided from what it read of the person first (analysis-repository.ts,
 * readFinishFacts; scanning/finish-item.ts).
 */
export interface PersonItemEnd {
  /** The attachment's version that read saw: the statement writes only if it is still that. */
  factsVersion: string;
  /** The person's facts after the item's writes, the analysis about to be stored included (null: the attachment is gone). */
  person: GatheredPerson | null;
  /** The item's writes (evidence, activity, billed records, analysis): single statements on tables this one does not otherwise write. */
  writes: readonly OperationNodeSource[];
  /** The item stores the person's first analysis: the attachment's `analysis_available` flag is set. */
  analysisAvailable: boolean;
  /** The media collection generation read before the item stored its blobs; absent when it stores none. */
  mediaGeneration?: number;
}

/**
 * 'stale': someone changed the person (or the company page's observation)
 * since the read (nothing written; read again). 'lost': the claim no longer
 * holds the item.
 */
export type ItemEndOutcome = 'ended' | 'lost' | 'stale';

/** The SQLSTATEs of finish_person_item_check (migration 0035) and finish_company_item_check (0037). */
const CLAIM_LOST = 'PS001';
const CHANGED_SINCE_READ = 'PS002';
const MEDIA_COLLECTED = 'PS003';

/**
 * Ends a person's claimed item in one statement, outside any transaction,
 * and folds its roll-up after it: the item's end (guarded by the claim), the
 * attachment's lock with a check of its version, the item's writes, the
 * person's contribution and roll-up delta. What it trades and why: the
 * session holds no transaction open while the worker's event loop is busy
 * elsewhere (a transaction of several statements waited for the loop
 * between each, docs/decisions/0003-begin-without-a-lock.md), and two
 * round trips (read, then this) replace five; in exchange the person is read
 * before the lock, so the statement may find them changed ('stale': nothing
 * was written, and the caller reads and decides again). Every transaction
 * that changes a person's facts under the attachment lock bumps its version
 * (src/store/locks.ts), and an UPDATE rechecks its condition on the newest
 * version of the row it locked, so the check sees every change committed
 * before the lock, although the statement's snapshot predates it; changes
 * after it wait for this statement.
 *
 * Lock order (src/store/locks.ts): the media collections' lock (when the item
 * stores blobs; taken, and the generation read after it, by a function with
 * a snapshot of its own), the item, then the attachment: each is in a CTE
 * that the next one's condition names. The statement's last part checks the
 * three and raises unless all hold, which undoes every write of the
 * statement; the item's writes run after it (a data-modifying CTE that the
 * main query does not read runs when it has finished) or are undone with it.
 * Throws MediaCollected when a media collection ran since the item stored
 * its blobs.
 */
export async function endPersonItem(db: Kysely<Database>, item: ClaimedItem, end: ItemEnd, now: Date, given: PersonItemEnd): Promise<ItemEndOutcome> {
  if (item.profile_id === null) throw new Error("endPersonItem ends a person's item");
  const finished = { kind: 'finished' as const, status: end.status, warning: end.warning };
  const change = personDelta(given.person);
  const media = mediaHold(given.mediaGeneration);
  const ended = claimedEnd(db, item, end, now, media.taken);
  const bumped = sql`
    update report_profiles set facts_version = facts_version + 1, analysis_available = analysis_available or ${given.analysisAvailable}
     where id = ${item.profile_id}::uuid and facts_version = ${given.factsVersion}::bigint and exists (select 1 from ended)
    returning id`;
  const writes = [...given.writes, ...personDeltaWrites(item.report_id, item.profile_id, { runId: item.run_id, change: finished }, now, change)];
  const check = sql`select finish_person_item_check(exists (select 1 from ended), ${media.kept}, exists (select 1 from bumped)) as ok`;
  const locks = [...media.lock, { name: 'ended', query: ended }, { name: 'bumped', query: bumped }];
  const outcome = await endInOneStatement(db, inOneStatement(writes, check, locks));
  if (outcome !== 'ended') return outcome;
  // Whether the person counts as active changed (a person removed before their contribution was ever stored): their visible flags follow.
  if (change.activeChanged) await storeVisibleFlags(db, [item.profile_id]);
  settle(db, item.report_id, now);
  return 'ended';
}

/** What the company page's finishing item writes in the statement that ends it, decided from its read (analysis-repository.ts, readCompanyFinish). */
export interface CompanyItemEnd {
  /** The version of the company page's observation that read saw: the statement writes only if it is still that. */
  companyVersion: string;
  /** The item's writes (evidence, activity, context, billed records): single statements on tables this one does not otherwise write. */
  writes: readonly OperationNodeSource[];
  /** The media collection generation read before the item stored its blobs; absent when it stores none. */
  mediaGeneration?: number;
}

/**
 * Ends the company page's claimed item in one statement, outside any
 * transaction, as endPersonItem ends a person's (what it trades is written
 * there): the bump of the company page's observation version on the report
 * row (which takes the report lock, and holds only if no other company page
 * item of the report ended since the read: its evidence and events would not
 * be in this statement's snapshot, 'stale'), the item's end (guarded by the
 * claim), the item's writes, and a delta with the run's change that asks
 * the fold to recompute the company page's contribution. The statement reads
 * nothing of the report's aggregates: the fold does.
 *
 * Lock order (src/store/locks.ts): the media collections' lock (when the
 * item stores blobs), the report, then the item, each in a CTE that the
 * next one's condition names. Throws MediaCollected when a media collection
 * ran since the item stored its blobs.
 */
export async function endCompanyItem(db: Kysely<Database>, item: ClaimedItem, end: ItemEnd, now: Date, given: CompanyItemEnd): Promise<ItemEndOutcome> {
  if (item.profile_id !== null) throw new Error("endCompanyItem ends the company page's item");
  const media = mediaHold(given.mediaGeneration);
  const observation = sql`
    update reports set company_version = company_version + 1
     where id = ${item.report_id}::uuid and company_version = ${given.companyVersion}::bigint and ${media.taken}
    returning id`;
  const ended = claimedEnd(db, item, end, now, sql<boolean>`exists (select 1 from observation)`);
  const finished = { kind: 'finished' as const, status: end.status, warning: end.warning };
  const writes = [...given.writes, companyDeltaWrite(item.report_id, { runId: item.run_id, change: finished }, now)];
  const check = sql`select finish_company_item_check(exists (select 1 from observation), exists (select 1 from ended), ${media.kept}) as ok`;
  const locks = [...media.lock, { name: 'observation', query: observation }, { name: 'ended', query: ended }];
  const outcome = await endInOneStatement(db, inOneStatement(writes, check, locks));
  if (outcome === 'ended') settle(db, item.report_id, now);
  return outcome;
}

/**
 * The media collections' lock of a statement that ends an item (endPersonItem,
 * endCompanyItem) storing evidence blobs (`generation`: the collection
 * generation read before they were stored; undefined: none stored): the
 * named part that takes it (`hold_media_collections_generation()`, migration
 * 0035) first, the condition that makes the next part wait for it (`taken`),
 * and whether no collection ran since (`kept`).
 */
function mediaHold(generation: number | undefined): {
  lock: { name: string; query: RawBuilder<unknown>; materialized: boolean }[];
  taken: RawBuilder<boolean>;
  kept: RawBuilder<boolean>;
} {
  if (generation === undefined) return { lock: [], taken: sql<boolean>`true`, kept: sql<boolean>`true` };
  return {
    lock: [{ name: 'media', query: sql`select hold_media_collections_generation() as generation`, materialized: true }],
    taken: sql<boolean>`(select generation from media) is not null`,
    kept: sql<boolean>`(select generation from media) = ${generation}::bigint`,
  };
}

/** The update that ends a claimed item, guarded by its claim, for the statement that ends it; `after`: the condition that orders it after the locks before it. */
function claimedEnd(db: Kysely<Database>, item: ClaimedItem, end: ItemEnd, now: Date, after: RawBuilder<boolean>) {
  return db
    .updateTable('scan_items')
    .set({ ...end, finished_at: now, claim_id: null, lease_expires_at: null })
    .where('id', '=', item.id)
    .where('claim_id', '=', item.claim_id)
    .where('status', '=', 'running')
    .where('profile_id', item.profile_id === null ? 'is' : 'is not', null)
    .where(after)
    .returning('id');
}

/** Runs the statement that ends an item (endPersonItem, endCompanyItem), its check's SQLSTATEs as outcomes. */
async function endInOneStatement(db: Kysely<Database>, statement: RawBuilder<unknown>): Promise<ItemEndOutcome> {
  try {
    await statement.execute(db);
    return 'ended';
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === CLAIM_LOST) return 'lost';
    if (code === CHANGED_SINCE_READ) return 'stale';
    if (code === MEDIA_COLLECTED) throw new MediaCollected();
    throw error;
  }
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

/** The queue per scan mode, for the metrics: items ready, scheduled (deferred) and running, and the age of the oldest ready one (seconds). */
export interface QueueStats {
  mode: string;
  ready: number;
  scheduled: number;
  running: number;
  oldest: number | null;
}

export async function queueStatsByMode(db: Kysely<Database>): Promise<QueueStats[]> {
  const { rows } = await sql<QueueStats>`
    select r.mode,
           count(*) filter (where i.pending and i.ready_at <= now())::int as ready,
           count(*) filter (where i.pending and i.ready_at > now())::int as scheduled,
           count(*) filter (where not i.pending)::int as running,
           extract(epoch from now() - min(i.ready_at) filter (where i.pending and i.ready_at <= now()))::float8 as oldest
      from (select run_id, ready_at, true as pending from scan_items where status = 'pending'
            union all
            select run_id, ready_at, false from scan_items where status = 'running') i
      join scan_runs r on r.id = i.run_id
     group by r.mode`.execute(db);
  return rows;
}
