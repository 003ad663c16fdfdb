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
import { createDb, createPool, type Db } from './store/database.js';
import { migrateToLatest } from './store/migrator.js';
import { DatabaseAvailability } from './store/database-availability.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './store/embedded-postgres.js';
import { DEFAULT_STATEMENT_CACHE } from './store/prepared-statements.js';
import { ScanItemQueue, type ScanQueue } from './store/queue-channel.js';

export interface Runtime {
  databaseUrl: string;
  embedded: EmbeddedServer | null;
  pool: pg.Pool;
  db: Db;
  /** The scan items' pool (claims, transitions, folds), committing asynchronously; null without `scanPoolSize`. */
  scanPool: pg.Pool | null;
  scanDb: Db | null;
  appliedMigrations: string[];
  /** Whether this process reaches the database now; its outages are logged once each (store/database-availability.ts). */
  availability: DatabaseAvailability;
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
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres({ dataDir: config.dataDir, log, supervise: true });
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  const availability = new DatabaseAvailability({
    lost: (error) => {
      if (options.logger) options.logger.warn({ err: error }, 'database unavailable: requests answer 503 and scan work waits until it is back');
      else log(`database unavailable (${error instanceof Error ? error.message : String(error)}); requests answer 503 and scan work waits until it is back`);
    },
    restored: (seconds) => {
      if (options.logger) options.logger.info({ outage_seconds: seconds }, `database reachable again after ${seconds.toFixed(1)} s`);
      else log(`database reachable again after ${seconds.toFixed(1)} s`);
    },
  });
  const connectTimeoutMs = config.databaseTimeoutMs;
  const pool = createPool(databaseUrl, options.poolSize ?? 10, { connectTimeoutMs });
  // An idle connection's error (the server restarting, a network cut) is not fatal: the pool replaces it.
  // An outage is said once (availability); anything else is logged as it comes.
  const idleFailed = (name: string) => (error: Error) => {
    if (availability.failed(error)) return;
    if (options.logger) options.logger.warn({ err: error }, `${name}: an idle connection failed; it is replaced on demand`);
    else log(`${name}: an idle connection failed (${error.message}); it is replaced on demand`);
  };
  pool.on('error', idleFailed('database pool'));
  // A connection made (its session set) means the database answers again.
  pool.on('connect', () => availability.succeeded());
  const scanPool = options.scanPoolSize
    ? createPool(databaseUrl, options.scanPoolSize, { asynchronousCommit: true, genericPlans: true, keepIdle: true, connectTimeoutMs })
    : null;
  scanPool?.on('error', idleFailed('scan pool'));
  scanPool?.on('connect', () => availability.succeeded());
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
      availability,
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

/*
 * The rest of a process's wiring to the store, for the interfaces (http/, web/, cli/ import
 * use-cases and this module, never store/ or queue/): the queue channel its writes wake workers
 * on, the statement bound of each request's session, how an outage is recognised and answered,
 * and the roll-up sweep serve runs beside the HTTP server.
 */

/** The channel a process's scan writes notify workers on (store/queue-channel.ts). */
export function scanQueue(): ScanQueue {
  return new ScanItemQueue();
}

export { withStatementBound } from './store/database.js';
export { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './store/database-availability.js';
export { startRollupSweep, type RollupSweep } from './queue/sweep.js';
export type { Db } from './store/database.js';
export type { DatabaseAvailability } from './store/database-availability.js';
export type { ScanQueue } from './store/queue-channel.js';
