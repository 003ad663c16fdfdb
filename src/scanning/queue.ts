/**
 * The scan queue, on pg-boss (chosen over graphile-worker: pg-boss sends
 * inside the caller's transaction through its `db` option, keeps job
 * history, and offers an expired job (a dead worker's lease) to another
 * worker without a reaper of ours; graphile-worker 0.18 also needs Node 22).
 *
 * One job per scan item; the job carries only the item id. Jobs are written
 * in the same transaction as the write that admits the work, so a crash
 * leaves either the items and their jobs, or neither.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { Database } from '../store/schema.js';

export const SCAN_ITEM_QUEUE = 'scan-item';
/** Jobs that exhausted their attempts without the handler ending the item (e.g. every worker holding it died). */
export const SCAN_ITEM_DEAD_QUEUE = 'scan-item-dead';

export interface QueueSettings {
  /** Seconds before an active job of a dead worker is retried elsewhere. */
  leaseSeconds: number;
  /** Attempts per item, first one included. */
  maxAttempts: number;
}

export interface ScanItemJob {
  item_id: string;
}

/** A pg-boss instance that runs its SQL on our pool. */
export function createBoss(pool: pg.Pool, options: { supervise: boolean; maintenanceSeconds?: number }): PgBoss {
  const boss = new PgBoss({
    db: { executeSql: (text: string, values?: unknown[]) => pool.query(text, values as unknown[]) },
    schema: 'pgboss',
    supervise: options.supervise,
    schedule: false,
    migrate: true,
    maintenanceIntervalSeconds: options.maintenanceSeconds ?? 30,
  } as PgBoss.ConstructorOptions);
  boss.on('error', () => {});
  return boss;
}

/** Creates pg-boss's schema and our queue (idempotent; safe from several processes). */
export async function prepareQueue(boss: PgBoss, settings: QueueSettings): Promise<void> {
  await boss.start();
  await ensureQueue(boss, SCAN_ITEM_DEAD_QUEUE, { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 300 });
  await ensureQueue(boss, SCAN_ITEM_QUEUE, {
    deadLetter: SCAN_ITEM_DEAD_QUEUE,
    retryLimit: settings.maxAttempts - 1,
    retryDelay: 1,
    retryBackoff: true,
    expireInSeconds: settings.leaseSeconds,
    retentionMinutes: 60 * 24 * 14,
  });
}

async function ensureQueue(boss: PgBoss, name: string, options: Omit<PgBoss.Queue, 'name' | 'policy'>): Promise<void> {
  const queue = { name, policy: 'standard' as const, ...options };
  if (!(await boss.getQueue(name))) {
    try {
      await boss.createQueue(name, queue);
      return;
    } catch (error) {
      // Another process may have created it in between.
      if (!(await boss.getQueue(name))) throw error;
    }
  }
  await boss.updateQueue(name, queue);
}

export interface ScanQueue {
  /** Adds one job per item, inside the caller's transaction. */
  enqueueItems(trx: Kysely<Database>, itemIds: string[]): Promise<void>;
}

export class PgBossScanQueue implements ScanQueue {
  constructor(private readonly boss: PgBoss) {}

  async enqueueItems(trx: Kysely<Database>, itemIds: string[]): Promise<void> {
    if (itemIds.length === 0) return;
    const jobs = itemIds.map((item_id) => ({ name: SCAN_ITEM_QUEUE, data: { item_id } satisfies ScanItemJob }));
    await this.boss.insert(jobs, {
      db: { executeSql: (text: string, values: unknown[]) => trx.executeQuery(CompiledQuery.raw(text, values)) as never },
    });
  }
}
