/**
 * The queue's wake-up channel. The scan queue is the `scan_items` table
 * itself (docs/scanning.md): a pending item is a queued job, and the order in
 * which workers take items is decided by one SQL function, fair across
 * workspaces and across the reports of one workspace (claim_scan_item,
 * store/functions/claim_scan_item.sql; queue/claim.ts). Admission writes items in
 * the caller's transaction, so a crash leaves either the items (and so their
 * jobs), or neither.
 *
 * Why not pg-boss: pg-boss 10 has one FIFO per queue, so a small report
 * waited behind every item queued before it; its group fairness
 * (`group`/`groupConcurrency`) needs pg-boss 11+, which needs Node 22.
 *
 * This module only wakes workers up: admission notifies the `scan_items`
 * channel at commit, and every worker process LISTENs to it (with a polling
 * fallback, so a lost notification only costs a poll interval). It claims
 * nothing and knows no worker.
 */
import { sql, type Kysely } from 'kysely';
import { handleAll, retry } from 'cockatiel';
import type pg from 'pg';
import { databaseBackoff, type DatabaseAvailability } from './database-availability.js';
import type { Database } from './schema.js';

export const SCAN_ITEMS_CHANNEL = 'scan_items';

export interface ScanQueue {
  /** Announces new items, inside the caller's transaction (delivered at commit). */
  enqueueItems(trx: Kysely<Database>, itemIds: string[]): Promise<void>;
}

export class ScanItemQueue implements ScanQueue {
  async enqueueItems(trx: Kysely<Database>, itemIds: string[]): Promise<void> {
    if (itemIds.length === 0) return;
    await sql`select pg_notify(${SCAN_ITEMS_CHANNEL}, '')`.execute(trx);
  }
}

/**
 * Calls `onWake` whenever items are announced, over one dedicated
 * connection. When that connection is lost (a restart, a failover) it is made
 * again with growing pauses until the database answers, and LISTENs again;
 * `onWake` is called then too (items may have come meanwhile: wakes are hints
 * only, and the worker polls in between). The loss and the return are said
 * once each, not per attempt.
 */
export function listenForItems(
  pool: pg.Pool,
  onWake: () => void,
  options: { log: (message: string) => void; availability?: DatabaseAvailability },
): { stop(): Promise<void> } {
  const { log, availability } = options;
  const stopping = new AbortController();
  let client: pg.PoolClient | null = null;
  let session: Promise<void> = Promise.resolve();
  let lostSince: number | null = null;
  // Any error is retried: a LISTEN that cannot be made leaves the worker polling, never stopped.
  const policy = retry(handleAll, { maxAttempts: Infinity, backoff: databaseBackoff() });

  const drop = (c: pg.PoolClient, error: Error | null) => {
    if (client !== c) return;
    client = null;
    c.release(true);
    if (stopping.signal.aborted) return;
    lostSince = Date.now();
    if (error) availability?.failed(error);
    log(`queue: the LISTEN connection was lost (${error?.message ?? 'ended'}); listening again once the database answers, polling meanwhile`);
    session = listen();
  };

  const listen = () =>
    policy
      .execute(async ({ signal }) => {
        if (signal.aborted) return;
        const c = await pool.connect();
        // Before the first statement: a connection lost from here on is noticed.
        const onError = (error: Error) => drop(c, error);
        const onEnd = () => drop(c, null);
        try {
          await c.query(`listen ${SCAN_ITEMS_CHANNEL}`);
        } catch (error) {
          c.release(true);
          throw error;
        }
        if (signal.aborted) {
          c.release(true);
          return;
        }
        client = c;
        c.on('notification', () => onWake());
        c.once('error', onError);
        c.once('end', onEnd);
        if (lostSince !== null) {
          log(`queue: listening for new items again after ${((Date.now() - lostSince) / 1000).toFixed(1)} s`);
          lostSince = null;
          availability?.reconnected('listen');
        }
        availability?.succeeded();
        onWake();
      }, stopping.signal)
      .catch(() => {
        // Only a stop ends the retries.
      });

  session = listen();

  return {
    stop: async () => {
      stopping.abort();
      await session;
      const c = client;
      client = null;
      if (c) {
        // The connection may already be gone; it is released (destroyed) either way.
        await c.query(`unlisten ${SCAN_ITEMS_CHANNEL}`).catch((error: Error) => log(`queue: unlisten failed at stop (${error.message})`));
        c.release(true);
      }
    },
  };
}
