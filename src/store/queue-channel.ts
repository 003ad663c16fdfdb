/**
 * The queue's wake-up channel. The scan queue is the `scan_items` table
 * itself (docs/scanning.md): a pending item is a queued job, and the order in
 * which workers take items is decided by one SQL function, fair across
 * workspaces and across the reports of one workspace (claim_scan_item,
 * migrations 0026-0028; store/item-repository.ts). Admission writes items in
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
import type pg from 'pg';
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
 * connection. Reconnects (after a pause) when the connection drops; wakes are
 * hints only, so nothing is lost in between.
 */
export function listenForItems(pool: pg.Pool, onWake: () => void, log: (message: string) => void): { stop(): Promise<void> } {
  let stopped = false;
  let client: pg.PoolClient | null = null;
  let retry: NodeJS.Timeout | null = null;

  const connect = async () => {
    if (stopped) return;
    try {
      const c = await pool.connect();
      if (stopped) {
        c.release();
        return;
      }
      client = c;
      c.on('notification', () => onWake());
      c.on('error', (error: Error) => {
        // The connection is gone: drop it and listen again shortly (polling covers the gap).
        if (client === c) {
          log(`queue: the LISTEN connection failed (${error.message}); listening again in 1 s, polling meanwhile`);
          client = null;
          c.release(true);
          if (!stopped) retry = setTimeout(() => void connect(), 1000);
        }
      });
      await c.query(`listen ${SCAN_ITEMS_CHANNEL}`);
      onWake();
    } catch (error) {
      log(`queue: cannot listen for new items (${error instanceof Error ? error.message : String(error)}); polling until it can`);
      if (client) {
        client.release(true);
        client = null;
      }
      if (!stopped) retry = setTimeout(() => void connect(), 1000);
    }
  };
  void connect();

  return {
    stop: async () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      if (c) {
        // The connection may already be gone; it is released (destroyed) either way.
        await c.query(`unlisten ${SCAN_ITEMS_CHANNEL}`).catch((error: Error) => log(`queue: unlisten failed at stop (${error.message})`));
        c.release();
      }
    },
  };
}
