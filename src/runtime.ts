/**
 * Opens everything a process needs to talk to the store: the embedded
 * PostgreSQL (unless DATABASE_URL is set), a pool, Kysely, migrations and the
 * queue schema. Shared by `serve`, `worker`, `migrate` and `admin`.
 */
import type PgBoss from 'pg-boss';
import type pg from 'pg';
import type { Config } from './config.js';
import { createBoss, prepareQueue } from './scanning/queue.js';
import { createDb, createPool, migrateToLatest, type Db } from './store/database.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './store/embedded-postgres.js';

export interface Runtime {
  databaseUrl: string;
  embedded: EmbeddedServer | null;
  pool: pg.Pool;
  db: Db;
  boss: PgBoss;
  appliedMigrations: string[];
  close(): Promise<void>;
}

export interface RuntimeOptions {
  poolSize?: number;
  /** Run pg-boss maintenance (expiring dead workers' jobs) in this process. */
  supervise?: boolean;
  log?: (message: string) => void;
}

export async function openRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const log = options.log ?? (() => {});
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres({ dataDir: config.dataDir, log });
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  const pool = createPool(databaseUrl, options.poolSize ?? 10);
  try {
    const db = createDb(pool);
    const appliedMigrations = await migrateToLatest(db);
    const boss = createBoss(pool, { supervise: options.supervise ?? false, maintenanceSeconds: Math.max(5, Math.floor(config.itemLeaseSeconds / 4)) });
    await prepareQueue(boss, { leaseSeconds: config.itemLeaseSeconds, maxAttempts: config.itemMaxAttempts });
    let closed = false;
    return {
      databaseUrl,
      embedded,
      pool,
      db,
      boss,
      appliedMigrations,
      close: async () => {
        if (closed) return;
        closed = true;
        await boss.stop({ graceful: false, close: false, wait: true }).catch(() => {});
        await db.destroy().catch(() => {});
        await embedded?.stop();
      },
    };
  } catch (error) {
    await pool.end().catch(() => {});
    await embedded?.stop();
    throw error;
  }
}
