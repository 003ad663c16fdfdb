/**
 * The finish: a claimed item ends, in one statement with everything it
 * stores (evidence, activity, analysis, the person's contribution and the
 * roll-up delta), guarded by its claim and by the versions its read saw.
 * What the finish stores is decided above it (scanning/finish-item.ts, from
 * domain/finish-facts.ts and the read in store/analysis-repository.ts).
 */
import { sql, type Kysely, type OperationNodeSource, type RawBuilder } from 'kysely';
import type { ActivityGap } from '../domain/collected.js';
import { MediaCollected } from '../store/maintenance-repository.js';
import { inOneStatement } from '../store/one-statement.js';
import type { GatheredPerson } from '../domain/finish-facts.js';
import { storeVisibleFlags } from '../store/rollup-repository.js';
import type { Database } from '../store/schema.js';
import { companyDeltaWrite, personDelta, personDeltaWrites } from './deltas.js';
import { settle, type ClaimedItem } from './item.js';

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
