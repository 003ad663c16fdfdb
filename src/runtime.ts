/**
 * Opens everything a process needs to talk to the store: the embedded
 * PostgreSQL (unless DATABASE_URL is set), a pool, Kysely and migrations
 * (the scan queue lives in ordinary tables). Shared by `serve`, `worker`, `migrate` and `admin`.
 */
import type pg from 'pg';
import type { Config } from './config.js';
import { createDb, createPool, migrateToLatest, type Db } from './store/database.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './store/embedded-postgres.js';

export interface Runtime {
  databaseUrl: string;
  embedded: EmbeddedServer | null;
  pool: pg.Pool;
  db: Db;
  appliedMigrations: string[];
  close(): Promise<void>;
}

export interface RuntimeOptions {
  poolSize?: number;
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
    let closed = false;
    return {
      databaseUrl,
      embedded,
      pool,
      db,
      appliedMigrations,
      close: async () => {
        if (closed) return;
        closed = true;
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
