/**
 * Opens everything a process needs to talk to the store: the embedded
 * PostgreSQL (unless DATABASE_URL is set), a pool, Kysely and migrations
 * (the scan queue lives in ordinary tables). Shared by `serve`, `worker`, `migrate` and `admin`.
 * A scan worker also gets a pool of its own for its items (`scanPoolSize`),
 * whose sessions commit asynchronously (store/database.ts) and are kept while
 * idle: each holds its prepared statements and their plans
 * (store/prepared-statements.ts), which a connection opened again would make
 * again (scanning/worker.ts, `workerPoolSizes`).
 */
import type pg from 'pg';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { createDb, createPool, migrateToLatest, type Db } from './store/database.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './store/embedded-postgres.js';
import { DEFAULT_STATEMENT_CACHE } from './store/prepared-statements.js';

export interface Runtime {
  databaseUrl: string;
  embedded: EmbeddedServer | null;
  pool: pg.Pool;
  db: Db;
  /** The scan items' pool (claims, transitions, folds), committing asynchronously; null without `scanPoolSize`. */
  scanPool: pg.Pool | null;
  scanDb: Db | null;
  appliedMigrations: string[];
  close(): Promise<void>;
}

export interface RuntimeOptions {
  poolSize?: number;
  /** Connections of the scan items' pool (`scanDb`); none when unset or 0. */
  scanPoolSize?: number;
  log?: (message: string) => void;
  /** Where errors of the pool (an idle connection lost, a failed close) are logged. */
  logger?: Logger;
}

export async function openRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const log = options.log ?? (() => {});
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres({ dataDir: config.dataDir, log });
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  const pool = createPool(databaseUrl, options.poolSize ?? 10);
  // An idle connection's error (the server restarting, a network cut) is logged, not fatal: the pool replaces it.
  pool.on('error', (error) => {
    if (options.logger) options.logger.warn({ err: error }, 'database pool: an idle connection failed; it is replaced on demand');
    else log(`database pool: an idle connection failed (${error.message}); it is replaced on demand`);
  });
  const scanPool = options.scanPoolSize
    ? createPool(databaseUrl, options.scanPoolSize, { asynchronousCommit: true, genericPlans: true, keepIdle: true })
    : null;
  scanPool?.on('error', (error) => {
    if (options.logger) options.logger.warn({ err: error }, 'scan pool: an idle connection failed; it is replaced on demand');
    else log(`scan pool: an idle connection failed (${error.message}); it is replaced on demand`);
  });
  const closeFailed = (error: unknown) => {
    if (options.logger) options.logger.warn({ err: error }, 'database pool: closing failed');
    else log(`database pool: closing failed (${error instanceof Error ? error.message : String(error)})`);
  };
  try {
    const statementCache = { ...DEFAULT_STATEMENT_CACHE, capacity: config.databaseStatementCache };
    const db = createDb(pool, { statementCache });
    const scanDb = scanPool && createDb(scanPool, { statementCache });
    const appliedMigrations = await migrateToLatest(db);
    let closed = false;
    return {
      databaseUrl,
      embedded,
      pool,
      db,
      scanPool,
      scanDb,
      appliedMigrations,
      close: async () => {
        if (closed) return;
        closed = true;
        await scanDb?.destroy().catch(closeFailed);
        await db.destroy().catch(closeFailed);
        await embedded?.stop();
      },
    };
  } catch (error) {
    await scanPool?.end().catch(closeFailed);
    await pool.end().catch(closeFailed);
    await embedded?.stop();
    throw error;
  }
}
