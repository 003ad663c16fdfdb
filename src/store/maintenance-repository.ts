/**
 * Retention in the database (src/maintenance.ts schedules it; windows in
 * docs/operations.md): tombstones of expired import receipts, obsolete evidence no stored finding refers to (with
 * the media blobs nothing else uses), the blobs an erasure queued in `blob_deletions` (store/erasure-repository.ts),
 * and the roll-ups stored before they kept the team's progress (`completeProgressRollups`).
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
 * locks it waits for; queue/finish.ts, endPersonItem and endCompanyItem).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { deleteItemsHistory } from './history-repository.js';
import { refreshReportRollup } from './rollup-repository.js';
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

/**
 * One batch of queued blob deletions that are due, in one transaction under
 * the media collections' exclusive lock (the protocol of collectObsoleteMedia:
 * a worker that stored one of these blobs for new evidence meanwhile finds
 * the generation bumped and stores it again). A blob some evidence still
 * refers to is kept; one that fails to delete stays queued with its error,
 * due again after a backoff. Returns how many rows were settled and how many
 * blobs deleted.
 */
export async function processBlobDeletions(
  db: Kysely<Database>,
  now: Date,
  deleteBlob: (sha256: string) => Promise<void>,
  batch = 200,
): Promise<{ settled: number; deleted: number; failed: number }> {
  return retryingTransaction(db, async (trx) => {
    await sql`select pg_advisory_xact_lock(${MEDIA_GC_LOCK}::bigint)`.execute(trx);
    const { rows } = await sql<{ sha256: string; attempts: number; used: boolean }>`
      select d.sha256, d.attempts,
             exists (select 1 from evidence_images where original_sha256 = d.sha256)
             or exists (select 1 from evidence_images where preview_sha256 = d.sha256) as used
        from blob_deletions d
       where d.next_attempt_at <= ${now}
       order by d.next_attempt_at
       limit ${batch}
       for update skip locked`.execute(trx);
    let deleted = 0;
    let failed = 0;
    const settled: string[] = [];
    for (const row of rows) {
      if (row.used) {
        settled.push(row.sha256);
        continue;
      }
      try {
        await deleteBlob(row.sha256);
        settled.push(row.sha256);
        deleted++;
      } catch (error) {
        failed++;
        const backoffMs = Math.min(3_600_000, 60_000 * 2 ** Math.min(row.attempts, 6));
        await sql`update blob_deletions set attempts = attempts + 1, last_error = ${String((error as Error).message ?? error).slice(0, 500)},
                         next_attempt_at = ${new Date(now.getTime() + backoffMs)}
                   where sha256 = ${row.sha256}`.execute(trx);
      }
    }
    if (settled.length > 0) await sql`delete from blob_deletions where sha256 = any(${settled}::text[])`.execute(trx);
    if (deleted > 0) await sql`update maintenance_state set media_gc_generation = media_gc_generation + 1`.execute(trx);
    return { settled: settled.length, deleted, failed };
  });
}

/** Every due queued deletion, batch by batch (bounded); the totals. */
export async function drainBlobDeletions(
  db: Kysely<Database>,
  now: Date,
  deleteBlob: (sha256: string) => Promise<void>,
): Promise<{ deleted: number; failed: number }> {
  let deleted = 0;
  let failed = 0;
  for (let round = 0; round < 100; round++) {
    const done = await processBlobDeletions(db, now, deleteBlob);
    deleted += done.deleted;
    failed += done.failed;
    if (done.settled === 0) break;
  }
  return { deleted, failed };
}

/** Scan items one pruning transaction deletes at most (with their evidence and history rows). */
const SCAN_PRUNE_BATCH = 500;

/**
 * Deletes the scan items that ended before `before` and that no read uses
 * any more, with what hangs off them (their evidence rows, their history
 * rows), in batches, each one short transaction; the evidence's blobs are
 * queued in `blob_deletions` for the durable deletion (processBlobDeletions,
 * which keeps a blob other evidence still uses). Returns how many items went.
 *
 * Never deleted, whatever its age: an item that has not ended, or of a run
 * that has not; an item the shown results come from (the analysis, the
 * activity coverage, the company context name it); a person's or the company
 * page's latest item of each mode (the reads show its status: store/latest-item.ts,
 * person-facts.ts; "latest" as they order it, ties kept); an item whose
 * evidence is current (not obsolete) or referred to by the shown findings. So what every read shows stays the
 * same. Runs stay: they hold counts and no personal value, and the
 * contract's analysis summary names every run of the report.
 *
 * Each batch holds the media collections' lock exclusively, as a collection
 * does: an item's finish that records evidence takes it shared, so no finish
 * points the shown results or findings at these rows while they are deleted.
 */
export async function pruneOldScans(db: Kysely<Database>, before: Date, now: Date, batch = SCAN_PRUNE_BATCH): Promise<number> {
  let total = 0;
  for (let round = 0; round < 200; round++) {
    const n = await retryingTransaction(db, async (trx) => {
      await sql`select pg_advisory_xact_lock(${MEDIA_GC_LOCK}::bigint)`.execute(trx);
      const { rows } = await sql<{ id: string }>`
        select i.id
          from scan_items i join scan_runs r on r.id = i.run_id
         where i.finished_at < ${before}
           and i.status in ('succeeded', 'failed', 'inaccessible', 'cancelled')
           and r.completed_at is not null
           and not exists (select 1 from profile_analyses a where a.item_id = i.id)
           and not exists (select 1 from activity_coverage c where c.item_id = i.id)
           and not exists (select 1 from company_context c where c.item_id = i.id)
           and exists (select 1 from scan_items j
                        where j.report_id = i.report_id and j.profile_id is not distinct from i.profile_id and j.kind = i.kind
                          and j.run_mode = i.run_mode and (j.run_created_at, j.created_at) > (i.run_created_at, i.created_at))
           and not exists (select 1 from evidence_images e where e.item_id = i.id and not e.obsolete)
           and not exists (select 1 from evidence_images e join profile_analyses pa on pa.profile_id = e.profile_id
                            where e.item_id = i.id
                              and pa.findings @> jsonb_build_array(jsonb_build_object('evidence_image_ids', jsonb_build_array(e.id::text))))
         order by i.finished_at
         limit ${batch}
         for update of i skip locked`.execute(trx);
      if (rows.length === 0) return 0;
      const ids = rows.map((r) => r.id);
      await deleteItemsHistory(trx, ids, now);
      await sql`
        with gone as (delete from evidence_images where item_id = any(${ids}::uuid[]) returning original_sha256, preview_sha256)
        insert into blob_deletions (sha256, enqueued_at, next_attempt_at)
        select distinct h, ${now}::timestamptz, ${now}::timestamptz
          from gone, lateral (values (gone.original_sha256), (gone.preview_sha256)) v(h)
        on conflict (sha256) do nothing`.execute(trx);
      await sql`delete from scan_items where id = any(${ids}::uuid[])`.execute(trx);
      return ids.length;
    });
    total += n;
    if (n < batch) break;
  }
  return total;
}

/** Reports one upgrade pass recomputes at most (each in a transaction of its own). */
const PROGRESS_UPGRADE_BATCH = 50;

/**
 * Recomputes from the stored rows every contribution of the reports that
 * lack the team's progress (`Totals.progress`): totals stored before it existed, or a
 * contribution of an active person that a process of an earlier version
 * stored without it during a rolling upgrade. Each report in a transaction
 * of its own, under its lock; returns how many it recomputed (at most
 * `batch`). Run by the migration runner until none is left, and by
 * maintenance.
 */
export async function completeProgressRollups(db: Kysely<Database>, now: Date, batch = PROGRESS_UPGRADE_BATCH): Promise<number> {
  const { rows } = await sql<{ report_id: string }>`
    select a.report_id from report_aggregates a
     where not (a.totals ? 'progress')
        or exists (select 1 from profile_contributions c
                    where c.report_id = a.report_id and (c.contribution ->> 'persons') = '1' and not (c.contribution ? 'progress'))
     limit ${batch}`.execute(db);
  for (const { report_id: reportId } of rows) {
    // Every contribution recomputed from the rows (under the report lock): the difference adds each person's progress.
    await retryingTransaction(db, (trx) => refreshReportRollup(trx, reportId, 'all', now));
  }
  return rows.length;
}
