/**
 * Retention in the database (src/maintenance.ts schedules it; windows in
 * docs/operations.md): tombstones of expired import receipts, and obsolete evidence no stored finding refers to (with
 * the media blobs nothing else uses).
 *
 * Media collection and workers: a worker stores its blobs before it
 * finishes the item (content addressing: a blob already there is not
 * written again), so a collection deleting that very blob in between would
 * leave the new evidence without media. Collections therefore run under an
 * exclusive advisory lock and bump `maintenance_state.media_gc_generation`
 * when they delete blobs; a finish that records evidence takes the same
 * lock shared before any row lock and checks that the generation is still
 * the one read before the blobs were stored (`checkMediaGeneration`); if
 * not, the item stores its blobs again and retries
 * (src/scanning/item-handler.ts). An item does both in the one statement
 * that ends it, through `hold_media_collections_generation()` (migration
 * 0035: the function reads the generation with a snapshot of its own, taken
 * once the lock is held, for a statement's snapshot is taken before the
 * locks it waits for; item-repository.ts, endPersonItem and endCompanyItem).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { retryingTransaction } from './transaction.js';

/** Advisory lock keys (cf. first-run.ts: 7_305_113_001). */
export const MAINTENANCE_LOCK = 7_305_113_012;
export const MEDIA_GC_LOCK = 7_305_113_013;

/** Thrown by an item's finish when a media collection ran since the worker stored its blobs. */
export class MediaCollected extends Error {
  constructor() {
    super('a media collection ran while this item stored its evidence; storing it again');
    this.name = 'MediaCollected';
  }
}

export async function mediaGeneration(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('maintenance_state').select('media_gc_generation').executeTakeFirst();
  return row?.media_gc_generation ?? 0;
}

/**
 * The generations read before the blobs were stored and by the finish's read
 * (a collection ran in between when they differ; the statement that ends the
 * item checks again under the collections' lock).
 */
export function checkMediaGeneration(generation: { beforeBlobs: number; atRead: number }): void {
  if (generation.beforeBlobs !== generation.atRead) throw new MediaCollected();
}

/** Under the maintenance lock: true (and the run recorded) when no run started in the last `intervalMs`. */
export async function claimMaintenanceRun(db: Kysely<Database>, now: Date, intervalMs: number): Promise<boolean> {
  const result = await db
    .updateTable('maintenance_state')
    .set({ last_run_at: now })
    .where((eb) => eb.or([eb('last_run_at', 'is', null), eb('last_run_at', '<=', new Date(now.getTime() - intervalMs * 0.9)), eb('last_run_at', '>', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Turns receipts that expired before `before` into tombstones (contents removed); returns how many. */
export async function tombstoneExpiredReceipts(db: Kysely<Database>, before: Date, now: Date, batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const { numAffectedRows } = await sql`
      update import_receipts set receipt = null, tombstoned_at = ${now}
       where id in (select id from import_receipts where receipt is not null and expires_at < ${before} limit ${batch})`.execute(db);
    const n = Number(numAffectedRows ?? 0);
    total += n;
    if (n < batch) return total;
  }
}

/**
 * One batch of media collection, in one transaction under the exclusive media
 * lock: deletes evidence rows obsolete since before `obsoleteBefore` that no
 * stored finding refers to (findings name their images in
 * `profile_analyses.findings[].evidence_image_ids`), then `deleteBlob` for
 * each of their blobs no remaining evidence uses, and bumps the generation.
 * A failure rolls the rows back (they are collected at the next run).
 */
export async function collectObsoleteMedia(
  db: Kysely<Database>,
  obsoleteBefore: Date,
  deleteBlob: (sha256: string) => Promise<void>,
  batch = 500,
): Promise<{ evidence: number; blobs: number }> {
  return retryingTransaction(db, async (trx) => {
    await sql`select pg_advisory_xact_lock(${MEDIA_GC_LOCK}::bigint)`.execute(trx);
    const { rows: deleted } = await sql<{ original_sha256: string; preview_sha256: string }>`
      delete from evidence_images e
       using (select e2.id from evidence_images e2
               where e2.obsolete and e2.obsolete_at < ${obsoleteBefore}
                 and not exists (
                   select 1 from profile_analyses pa
                    where pa.profile_id = e2.profile_id
                      and pa.findings @> jsonb_build_array(jsonb_build_object('evidence_image_ids', jsonb_build_array(e2.id::text))))
               order by e2.obsolete_at
               limit ${batch}) d
       where e.id = d.id
      returning e.original_sha256, e.preview_sha256`.execute(trx);
    if (deleted.length === 0) return { evidence: 0, blobs: 0 };
    const hashes = [...new Set(deleted.flatMap((r) => [r.original_sha256, r.preview_sha256]))];
    const { rows: unused } = await sql<{ sha256: string }>`
      select h as sha256 from unnest(${hashes}::text[]) h
       where not exists (select 1 from evidence_images where original_sha256 = h)
         and not exists (select 1 from evidence_images where preview_sha256 = h)`.execute(trx);
    for (const { sha256 } of unused) await deleteBlob(sha256);
    if (unused.length > 0) await sql`update maintenance_state set media_gc_generation = media_gc_generation + 1`.execute(trx);
    return { evidence: deleted.length, blobs: unused.length };
  });
}
