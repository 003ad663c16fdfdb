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
import { gateHolds, inOneStatement } from '../store/one-statement.js';
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
  /** The item's writes (evidence, activity, billed records, analysis): single statements on tables this one does not otherwise write, each conditional on `gateHolds` (store/one-statement.ts). */
  writes: readonly OperationNodeSource[];
  /** The item stores the person's first analysis: the attachment's `analysis_available` flag is set. */
  analysisAvailable: boolean;
  /** The media collection generation read before the item stored its blobs; absent when it stores none. */
  mediaGeneration?: number;
}

/**
 * 'stale': someone changed the person (or the company page's observation)
 * since the read (nothing written; read again). 'lost': the claim no longer
 * holds the item (nothing written).
 */
export type ItemEndOutcome = 'ended' | 'lost' | 'stale';

/** The row the statement that ends an item returns: its gate's checks (store/one-statement.ts). */
interface GateRow {
  claim_held: boolean;
  unchanged: boolean;
  media_kept: boolean;
}

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
 * (src/store/locks.ts), and a row lock (SELECT … FOR NO KEY UPDATE) rechecks
 * its condition on the newest version of the row it locked, so the check
 * sees every change committed before the lock, although the statement's
 * snapshot predates it; changes after it wait for this statement.
 *
 * Lock order (src/store/locks.ts): the media collections' lock (when the item
 * stores blobs; taken, and the generation read after it, by a function with
 * a snapshot of its own), the item, then the attachment: each is in a
 * materialized part that the next one's condition names. The gate reads the
 * three checks; every write of the statement, the item's end and the
 * attachment's bump included, is conditional on it (store/one-statement.ts),
 * so when one fails nothing is written, and the outcome is read from the row
 * the statement returns. Throws MediaCollected when a media collection ran
 * since the item stored its blobs.
 */
export async function endPersonItem(db: Kysely<Database>, item: ClaimedItem, end: ItemEnd, now: Date, given: PersonItemEnd): Promise<ItemEndOutcome> {
  if (item.profile_id === null) throw new Error("endPersonItem ends a person's item");
  const finished = { kind: 'finished' as const, status: end.status, warning: end.warning };
  const change = personDelta(given.person);
  const media = mediaHold(given.mediaGeneration);
  const claimed = claimedItem(item, media.taken);
  const person = sql`
    select id from report_profiles
     where id = ${item.profile_id}::uuid and facts_version = ${given.factsVersion}::bigint and ${claimHeld}
       for no key update`;
  const gate = sql`
    select claim_held, unchanged, media_kept, claim_held and unchanged and media_kept as ok
      from (select ${claimHeld} as claim_held, exists (select 1 from person) as unchanged, ${media.kept} as media_kept) checks`;
  const bumped = sql`
    update report_profiles set facts_version = facts_version + 1, analysis_available = analysis_available or ${given.analysisAvailable}
     where id = (select id from person) and ${gateHolds}`;
  const writes = [
    itemEnd(db, item, end, now),
    bumped,
    ...given.writes,
    ...personDeltaWrites(item.report_id, item.profile_id, { runId: item.run_id, change: finished }, now, change, gateHolds),
  ];
  const parts = [
    ...media.lock,
    { name: 'item', query: claimed, materialized: true },
    { name: 'person', query: person, materialized: true },
    { name: 'gate', query: gate, materialized: true },
  ];
  const gated = await gateRow(db, inOneStatement(writes, sql`select claim_held, unchanged, media_kept from gate`, parts));
  if (!gated.claim_held) return 'lost';
  if (!gated.media_kept) throw new MediaCollected();
  if (!gated.unchanged) return 'stale';
  // Whether the person counts as active changed (a person removed before their contribution was ever stored): their visible flags follow.
  if (change.activeChanged) await storeVisibleFlags(db, [item.profile_id]);
  settle(db, item.report_id, now);
  return 'ended';
}

/** What the company page's finishing item writes in the statement that ends it, decided from its read (analysis-repository.ts, readCompanyFinish). */
export interface CompanyItemEnd {
  /** The version of the company page's observation that read saw: the statement writes only if it is still that. */
  companyVersion: string;
  /** The item's writes (evidence, activity, context, billed records): single statements on tables this one does not otherwise write, each conditional on `gateHolds` (store/one-statement.ts). */
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
 * item stores blobs), the report, then the item, each in a materialized
 * part that the next one's condition names; every write is conditional on
 * the gate, as in endPersonItem. A changed observation is 'stale' whatever
 * the claim (the item is not locked then). Throws MediaCollected when a
 * media collection ran since the item stored its blobs.
 */
export async function endCompanyItem(db: Kysely<Database>, item: ClaimedItem, end: ItemEnd, now: Date, given: CompanyItemEnd): Promise<ItemEndOutcome> {
  if (item.profile_id !== null) throw new Error("endCompanyItem ends the company page's item");
  const media = mediaHold(given.mediaGeneration);
  const observed = sql`
    select id from reports
     where id = ${item.report_id}::uuid and company_version = ${given.companyVersion}::bigint and ${media.taken}
       for no key update`;
  const claimed = claimedItem(item, sql<boolean>`exists (select 1 from observed)`);
  const gate = sql`
    select claim_held, unchanged, media_kept, claim_held and unchanged and media_kept as ok
      from (select ${claimHeld} as claim_held, exists (select 1 from observed) as unchanged, ${media.kept} as media_kept) checks`;
  const observation = sql`update reports set company_version = company_version + 1 where id = (select id from observed) and ${gateHolds}`;
  const finished = { kind: 'finished' as const, status: end.status, warning: end.warning };
  const writes = [
    observation,
    itemEnd(db, item, end, now),
    ...given.writes,
    companyDeltaWrite(item.report_id, { runId: item.run_id, change: finished }, now, gateHolds),
  ];
  const parts = [
    ...media.lock,
    { name: 'observed', query: observed, materialized: true },
    { name: 'item', query: claimed, materialized: true },
    { name: 'gate', query: gate, materialized: true },
  ];
  const gated = await gateRow(db, inOneStatement(writes, sql`select claim_held, unchanged, media_kept from gate`, parts));
  if (!gated.unchanged) return 'stale';
  if (!gated.claim_held) return 'lost';
  if (!gated.media_kept) throw new MediaCollected();
  settle(db, item.report_id, now);
  return 'ended';
}

/**
 * The media collections' lock of a statement that ends an item (endPersonItem,
 * endCompanyItem) storing evidence blobs (`generation`: the collection
 * generation read before they were stored; undefined: none stored): the
 * named part that takes it (`hold_media_collections_generation()`) first,
 * the condition that makes the next part wait for it (`taken`), and whether
 * no collection ran since (`kept`).
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
    kept: sql<boolean>`coalesce((select generation from media) = ${generation}::bigint, false)`,
  };
}

/**
 * The lock of the item, for the statement that ends it, with whether its
 * claim still holds it (`held`; `claimHeld` reads it); `after`: the condition
 * that orders it after the locks before it. The item is found by its key
 * alone and its claim checked in the row: a condition on its status in the
 * search would make the partial indexes of running items eligible, and a
 * planner that believes few items run would walk every running item instead
 * of probing the primary key.
 */
function claimedItem(item: ClaimedItem, after: RawBuilder<boolean>): RawBuilder<unknown> {
  return sql`
    select id, claim_id = ${item.claim_id}::uuid and status = 'running'
               and profile_id is ${item.profile_id === null ? sql`null` : sql`not null`} as held
      from scan_items
     where id = ${item.id}::uuid and ${after}
       for no key update`;
}

/** Whether the statement's `item` part holds the claimed item (claimedItem). */
const claimHeld = sql<boolean>`exists (select 1 from item where held)`;

/** The update that ends the claimed item locked by the statement's `item` part, if its gate holds. */
function itemEnd(db: Kysely<Database>, item: ClaimedItem, end: ItemEnd, now: Date) {
  return db
    .updateTable('scan_items')
    .set({ ...end, finished_at: now, claim_id: null, lease_expires_at: null })
    .where('id', '=', sql<string>`(select id from item)`)
    .where(gateHolds);
}

/** Runs the statement that ends an item (endPersonItem, endCompanyItem) and returns its gate's row. */
async function gateRow(db: Kysely<Database>, statement: RawBuilder<unknown>): Promise<GateRow> {
  const { rows } = await statement.execute(db);
  return rows[0] as GateRow;
}
