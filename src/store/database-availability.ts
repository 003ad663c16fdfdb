/**
 * Whether the database can be reached, decided in one place.
 *
 * `isDatabaseUnavailable` says whether an error means the database cannot be
 * reached right now (a restart, a failover, a network cut) rather than that a
 * statement of ours is wrong: the API answers the first with 503 and a genuine
 * bug with 500 (http/server.ts, web/plugin.ts); a worker puts its work aside
 * until the database is back instead of spending an item's attempt on it
 * (scanning/worker.ts).
 *
 * `DatabaseAvailability` is one process's (or thread's) view of the outage:
 * the first failure opens it and the first success after it closes it, each
 * said once in the log however many statements failed meanwhile; callers that
 * wait for the database (the claim loop, the sessions that reconnect) are
 * woken as soon as anything of the process reached it again.
 */
import { ExponentialBackoff, handleWhen, retry, type RetryPolicy } from 'cockatiel';

/** SQLSTATEs of a server that is going away, starting, or cannot take the session (class 08: the connection itself). */
const UNAVAILABLE_STATES = new Set([
  '57P01', // admin_shutdown: terminating connection due to administrator command
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the database system is starting up / shutting down / in recovery
  '57P05', // idle_session_timeout of a server-side session that went away
  '53300', // too_many_connections: every slot taken while sessions come back after a restart
  '25006', // read_only_sql_transaction: a standby still being promoted answers behind the same address
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/** Node socket errors of a connection that could not be made or was cut; DATABASE_TIMEOUT: no answer at all (store/database.ts). */
const SOCKET_CODES = new Set(['DATABASE_TIMEOUT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Messages of node-postgres and pg-pool for a connection lost, refused or not obtained in time (they carry no code). */
const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /^timeout expired$/, // node-postgres's own connection timeout, before pg-pool names it
  /timeout exceeded when trying to connect/i,
  /the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)/i,
  /client has encountered a connection error and is not queryable/i,
  /cannot use a pool after calling end/i,
  /connection (refused|reset)/i,
];

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') {
    if (UNAVAILABLE_STATES.has(e.code) || SOCKET_CODES.has(e.code)) return true;
    // A Unix socket that is not there: the server is not running (its socket goes with it).
    if (e.code === 'ENOENT' && (error as { syscall?: unknown }).syscall === 'connect') return true;
    // A SQLSTATE of our own statements (a constraint, a syntax error): a bug or a refusal, not an outage.
    if (/^[0-9A-Z]{5}$/.test(e.code)) return false;
  }
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(e.message as string))) return true;
  // Node reports a refused connection to several addresses (localhost: ::1 and 127.0.0.1) as an AggregateError.
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return e.cause !== undefined && isDatabaseUnavailable(e.cause, depth + 1);
}

/** Seconds a client is told to wait (Retry-After) while the database is away: a restart takes a few. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Pauses between attempts to reach the database while it is away: short at
 * first (a restart is over in seconds), growing to at most `maxDelay`.
 */
export function databaseBackoff(maxDelay = 2000): ExponentialBackoff<unknown> {
  return new ExponentialBackoff({ initialDelay: 100, maxDelay });
}

/** Retries `fn` while it fails because the database is away (with `databaseBackoff`), until it succeeds or its signal aborts. */
export function untilDatabaseAnswers(maxDelay = 2000): RetryPolicy {
  return retry(handleWhen(isDatabaseUnavailable), { maxAttempts: Infinity, backoff: databaseBackoff(maxDelay) });
}

export type DatabaseEvent = { kind: 'lost'; error: unknown } | { kind: 'restored'; seconds: number } | { kind: 'reconnected'; session: string };

export class DatabaseAvailability {
  #downSince: number | null = null;
  #lastOutage: { seconds: number; endedAt: number } | null = null;
  readonly #listeners = new Set<(event: DatabaseEvent) => void>();
  readonly #waiters = new Set<() => void>();

  /** `log` is told when an outage begins and when it ends (once each). */
  constructor(private readonly log: { lost(error: unknown): void; restored(seconds: number): void }) {}

  get available(): boolean {
    return this.#downSince === null;
  }

  /** The last outage this process saw end: how long it lasted, and when it ended (ms since the epoch). */
  get lastOutage(): { seconds: number; endedAt: number } | null {
    return this.#lastOutage;
  }

  subscribe(listener: (event: DatabaseEvent) => void): void {
    this.#listeners.add(listener);
  }

  /** Records a failure; true when it means the database is away (the first such failure opens the outage). */
  failed(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    if (this.#downSince === null) {
      this.#downSince = Date.now();
      this.log.lost(error);
      this.#emit({ kind: 'lost', error });
    }
    return true;
  }

  /** Something of this process reached the database: the outage, if any, is over. */
  succeeded(): void {
    if (this.#downSince === null) return;
    const seconds = (Date.now() - this.#downSince) / 1000;
    this.#downSince = null;
    this.#lastOutage = { seconds, endedAt: Date.now() };
    this.log.restored(seconds);
    this.#emit({ kind: 'restored', seconds });
    for (const wake of [...this.#waiters]) wake();
  }

  /** A long-lived session (`session`: listen, heartbeat) was made again after losing its connection. */
  reconnected(session: string): void {
    this.#emit({ kind: 'reconnected', session });
  }

  /** Resolves when the database is reached again, after `maxMs`, or when `signal` aborts, whichever comes first. */
  waitForRestore(maxMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      this.#waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  #emit(event: DatabaseEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}
