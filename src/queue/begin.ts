/**
 * The begin: a fresh claim made visible (the run and the report's roll-up
 * count the item as processing), or the item of an archived report
 * cancelled.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../store/schema.js';
import { begunItem, itemRead, settle, type BegunItem, type Claim, type ReadItem } from './item.js';
import { lockClaimed, rollUp, transaction } from './transitions.js';

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
export function beginDelta(now: Date, when: RawBuilder<boolean>): RawBuilder<unknown> {
  return sql`
    insert into rollup_deltas (report_id, run_id, started, at, recompute_profile_id, recompute_company)
    select report_id, run_id, true, ${now}::timestamptz, profile_id, profile_id is null
      from item
     where not archived and ${when}
    returning id`;
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
