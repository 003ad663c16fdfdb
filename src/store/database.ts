/**
 * Connection setup: the only place that creates pools. Migrations: store/migrator.ts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { DEFAULT_STATEMENT_CACHE, registerPool, statementCachingPool, type StatementCacheOptions } from './prepared-statements.js';

export type Db = Kysely<Database>;

// Dates as strings would leak timezone handling everywhere; keep Date objects,
// but return bigint counts as numbers (counts here never exceed 2^53).
pg.types.setTypeParser(20, (value) => Number(value));

/**
 * A session of ours that sits inside a transaction without sending anything
 * for this long is ended by PostgreSQL, which rolls the transaction back and
 * releases its row locks. No transaction of ours waits on anything outside
 * the database (they run a few statements back to back), so only a frozen or
 * hung process gets there: without the limit, a worker stopped in the middle
 * of finishing an item would hold that item's and that person's rows for as
 * long as it stays stopped, and no other worker could take the item over
 * (docs/scanning.md, "Leases and worker heartbeats"). Sessions that hold an
 * advisory lock between transactions are idle, not in a transaction: the
 * limit does not touch them.
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;

/**
 * Pools whose sessions commit without waiting for the WAL flush
 * (`synchronous_commit = off` for the whole session): the scan workers'
 * pools, whose every write is an item transition or a fold that is redone
 * when a crash loses it (queue/finish.ts). Set once per connection
 * instead of once per transaction (a `SET LOCAL` statement in every
 * transition). Nothing a client was told is written through them: the API,
 * the collectors' quotas and usage and the maintenance use the process's
 * durable pool (docs/decisions/0001-asynchronous-commit-on-the-scan-pool.md).
 */
const asynchronousPools = new WeakSet<pg.Pool>();
const asynchronousDbs = new WeakSet<Kysely<Database>>();

/** True when every transaction of `db` commits asynchronously already (a pool made with `asynchronousCommit`). */
export function commitsAsynchronously(db: Kysely<Database>): boolean {
  return asynchronousDbs.has(db);
}

/** How long a new connection may take by default (DATABASE_TIMEOUT_MS): past it, the database is taken as unreachable. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 10_000;

export function createPool(
  url: string,
  max = 10,
  options: { keepIdle?: boolean; asynchronousCommit?: boolean; genericPlans?: boolean; connectTimeoutMs?: number } = {},
): pg.Pool {
  // keepIdle: connections are never closed for being idle (a session that holds a lock, or the
  // prepared statements and plans a new one would make again: runtime.ts).
  const idleTimeoutMillis = options.keepIdle ? 0 : 30_000;
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS,
    Client: clientWithSettings(sessionSettings(options)),
  });
  if (options.asynchronousCommit) asynchronousPools.add(pool);
  // An idle client's error (e.g. the server restarting) must not crash the process.
  pool.on('error', () => {});
  return pool;
}

/**
 * A Kysely instance on `pool`. `statementCache`: how many of its statements
 * are prepared once per connection (prepared-statements.ts); the default
 * unless the configuration says otherwise (DATABASE_STATEMENT_CACHE).
 */
export function createDb(pool: pg.Pool, options: { statementCache?: StatementCacheOptions | null } = {}): Db {
  const cache = options.statementCache === undefined ? DEFAULT_STATEMENT_CACHE : options.statementCache;
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: statementCachingPool(pool, cache) }) });
  registerPool(db, pool);
  if (asynchronousPools.has(pool)) asynchronousDbs.add(db);
  return db;
}

/**
 * The sessions' settings, as the `SET` statements each new connection runs
 * first. Not startup parameters: a pooler in session mode (PgBouncer) passes
 * a `SET` on to the server, but refuses startup parameters other than the
 * few it tracks (or drops them, when told to ignore them).
 */
function sessionSettings(options: { asynchronousCommit?: boolean; genericPlans?: boolean }): string {
  return [
    `set idle_in_transaction_session_timeout = ${IDLE_IN_TRANSACTION_TIMEOUT_MS}`,
    ...(options.asynchronousCommit ? ['set synchronous_commit = off'] : []),
    // Prepared statements keep one plan made for any value (prepared-statements.ts, "Generic plans").
    ...(options.genericPlans ? ['set plan_cache_mode = force_generic_plan'] : []),
  ].join('; ');
}

/**
 * The bound on a statement's answer, for the statements run within
 * `withStatementBound` (an API request, a web page: http/server.ts).
 *
 * A TCP connection whose peer stops answering (a failover that moved the
 * address, a network cut that sends no reset) leaves a statement waiting
 * forever: nothing on the connection says the server is gone. When a
 * statement has had no answer for `timeoutMs`, a new connection asks the
 * server to cancel it:
 * - the server answers: it is there, and the statement is merely slow (a
 *   lock held too long, a plan gone wrong). It is cancelled (SQLSTATE 57014),
 *   and the request answers 500: a bug to fix, not an outage.
 * - no answer within `timeoutMs` again: the database is unreachable. The
 *   statement's connection is closed with a `DatabaseTimeoutError`, which
 *   store/database-availability.ts counts as unavailable (503, Retry-After).
 * So no request waits on one statement for more than about twice `timeoutMs`.
 * Work outside a request (migrations, maintenance, scan work) is unbounded
 * here: its statements may legitimately run long, and nobody waits on them.
 */
const statementBound = new AsyncLocalStorage<number>();

export function withStatementBound<T>(timeoutMs: number, fn: () => T): T {
  return statementBound.run(timeoutMs, fn);
}

/** A statement that got no answer, and a database that did not answer a request to cancel it either. */
export class DatabaseTimeoutError extends Error {
  readonly code = 'DATABASE_TIMEOUT';
  constructor(timeoutMs: number) {
    super(`the database did not answer within ${timeoutMs} ms`);
    this.name = 'DatabaseTimeoutError';
  }
}

/** Asks the server, over a connection of its own, to cancel `client`'s statement; true when it answered. */
async function cancelStatement(client: pg.Client, config: string | pg.ClientConfig | undefined, timeoutMs: number): Promise<boolean> {
  const base: pg.ClientConfig = typeof config === 'string' ? { connectionString: config } : { ...config };
  const probe = new pg.Client({ ...base, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.query('select pg_cancel_backend($1)', [(client as unknown as { processID: number }).processID]);
    return true;
  } catch {
    return false;
  } finally {
    void probe.end().catch(() => {});
  }
}

/**
 * A client class whose connection counts as made only once `settings` ran:
 * the pool hands out no connection before its session is set (pg-pool has
 * no asynchronous hook for it, and a query queued on a client that is still
 * busy is deprecated in pg 8). A failed `SET` fails the connection, within
 * the pool's connection timeout.
 */
function clientWithSettings(settings: string): typeof pg.Client {
  return class SessionClient extends pg.Client {
    readonly #config: string | pg.ClientConfig | undefined;

    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.#config = config;
      // Every signature of pg's query passes through; only a promise (no callback, no submittable) is bounded.
      const query = this.query.bind(this) as (...args: unknown[]) => unknown;
      this.query = ((...args: unknown[]) => this.#bounded(query(...args))) as pg.Client['query'];
      // A connection lost while checked out (a restart, a failover) is said by the statement it
      // fails, or by the next one; without a listener its 'error' event would end the process.
      // pg-pool drops a client that is no longer queryable when it comes back.
      this.on('error', () => {});
    }

    #bounded(result: unknown): unknown {
      const timeoutMs = statementBound.getStore();
      if (timeoutMs === undefined || !(result instanceof Promise)) return result;
      const settled = result.catch(() => {});
      const timer = setTimeout(() => {
        void cancelStatement(this, this.#config, timeoutMs).then((answered) => {
          if (!answered) return this.#abandon(timeoutMs);
          // Cancelled by a server that answers: the statement fails with 57014 on its own. If it does
          // not within the bound again, the connection is no better than a silent one.
          const still = setTimeout(() => this.#abandon(timeoutMs), timeoutMs);
          void settled.finally(() => clearTimeout(still));
        });
      }, timeoutMs);
      void settled.finally(() => clearTimeout(timer));
      return result;
    }

    /** Closes a connection whose statement the database did not answer: it fails with DatabaseTimeoutError, and the pool drops the client. */
    #abandon(timeoutMs: number): void {
      const connection = (this as unknown as { connection?: { stream?: { destroy(error?: Error): void } } }).connection;
      connection?.stream?.destroy(new DatabaseTimeoutError(timeoutMs));
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, client: pg.Client) => void)): void;
    override connect(callback?: ((err: Error) => void) | ((err: null, client: pg.Client) => void)): Promise<pg.Client> | void {
      const ready = super.connect().then(async () => {
        try {
          await this.query(settings);
        } catch (err) {
          // The pool forgets a client that failed to connect: close it, or its session would stay open.
          await this.end().catch(() => {});
          throw err;
        }
        return this;
      });
      if (!callback) return ready;
      // pg-pool passes a callback: an error, or null and the client.
      const done = callback as (err: Error | null, client?: pg.Client) => void;
      ready.then(
        (client) => done(null, client),
        (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
      );
    }
  };
}
