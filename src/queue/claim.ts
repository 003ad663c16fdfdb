/**
 * The claim: one item taken fairly from the queue by the database's claim
 * function (`claim_scan_item`), held by a worker's heartbeat (heartbeat.ts)
 * or by a lease, and begun in the same statement when it can be (begin.ts).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { beginDelta } from './begin.js';
import { begunItem, itemRead, settle, type Claim, type ReadItem } from './item.js';

/**
 * Claims one item fairly (store/functions/claim_scan_item.sql); null
 * when nothing is ready. With `worker`, the item is held while that worker
 * lives (queue/heartbeat.ts), and the items of dead workers are taken
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
