/**
 * Prepared statements: a statement's plan made once per connection and
 * reused, instead of parsed and planned on every execution.
 *
 * What it trades. A statement sent as text is parsed, analysed and planned
 * on every execution. For the scan pipeline's statements (CTEs of several
 * writes, reads with a dozen subqueries) planning cost as much as executing
 * (`pg_stat_statements.track_planning` shows it). A named prepared statement is parsed
 * once per pooled connection; PostgreSQL then plans its first five
 * executions for their values and, when the plan for any value costs no
 * more, keeps that generic plan (`plan_cache_mode`, default `auto`), and
 * revalidates it after a schema change. In exchange each connection keeps
 * up to `capacity` statements (their parse trees and plans: server memory
 * per backend),
 * and a statement prepared before a migration changed its result columns
 * (a `select *` of a table that gained one, during a rolling upgrade) fails
 * once with "cached plan must not change result type": the statement is then
 * prepared again under a new name, run again when it was alone, and a
 * transaction it was in is run again by `retryingTransaction`
 * (`isStalePlan`). A pooler must keep sessions (PgBouncer in session mode,
 * which the service needs anyway for its `LISTEN` and advisory locks,
 * docs/operations.md). `DATABASE_STATEMENT_CACHE=0` turns the cache off.
 *
 * Two ways in, one path (`execute`: a named execution when the text is
 * prepared, the plain one otherwise):
 *
 * - Every statement Kysely sends (`statementCachingPool`, made by
 *   createDb): a text with parameters is prepared once it ran `minUses`
 *   times in this process, up to `capacity` texts; one-off texts (a list of
 *   a varying length) stay plain. Names are `auto_` and a hash of the text,
 *   so one name always means one text on every connection.
 * - Hot reads that also skip Kysely's query building (`prepared`,
 *   `runPrepared`): fixed SQL run on the pool (not inside a transaction: a
 *   Kysely Transaction is not a pool), returning driver rows that each caller
 *   types. Used where the building itself weighs on a hot read:
 *   the authorization statement and the fused reads. A name is bound to one
 *   text for the life of the process (`prepared` refuses a second text under
 *   a taken name, which would otherwise fail on some connections only).
 *
 * Generic plans. The scan workers' pool (runtime.ts, `scanDb`) sets
 * `plan_cache_mode = force_generic_plan` on its sessions
 * (database.ts, `genericPlans`): a prepared statement is planned once per
 * connection, for any value, instead of for its values on its first five
 * executions and on every execution where PostgreSQL estimates a generic
 * plan dearer (it kept planning the fold's write that way, on most calls).
 * What it trades: a plan that cannot use a parameter's value. Every
 * statement of that pool finds its rows by keys (an item, a person, a
 * report), and those that once walked a report under a generic plan now
 * compare one id as a value or fence their lists (plan-fence.ts); the
 * benchmark's rows read per item say whether that still holds
 * (`npm run bench:pipeline`). The API's pool keeps the default
 * (`auto`): its reads filter and page by values.
 */
import { createHash } from 'node:crypto';
import type { Kysely, PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.js';

type Db = Kysely<Database>;

export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

const texts = new Map<string, string>();

export function prepared(name: string, text: string): PreparedStatement {
  const taken = texts.get(name);
  if (taken !== undefined && taken !== text) throw new Error(`prepared statement ${name} is already defined with another text`);
  texts.set(name, text);
  return { name, text };
}

/** The pg pool under each Db made by createDb (database.ts registers it). */
const pools = new WeakMap<Db, pg.Pool>();

export function registerPool(db: Db, pool: pg.Pool): void {
  pools.set(db, pool);
}

/** Runs `statement` on a pooled connection of `db` (not inside a transaction: a Transaction is not a pool). */
export async function runPrepared<R extends object>(db: Db, statement: PreparedStatement, values: unknown[]): Promise<R[]> {
  const pool = pools.get(db);
  if (!pool) throw new Error(`runPrepared(${statement.name}) needs a Db made by createDb, outside a transaction`);
  const client = await pool.connect();
  try {
    const rename = () => {
      const fresh = `${statement.name}_${++renamedExplicit}`;
      renamed.set(statement.name, fresh);
      return fresh;
    };
    const result = await execute(client, statement.text, values, renamed.get(statement.name) ?? statement.name, rename);
    return result.rows as R[];
  } finally {
    client.release();
  }
}

/** Names given again to explicit statements whose plans went stale (`execute`). */
const renamed = new Map<string, string>();
let renamedExplicit = 0;

// ------------------------------------------------------------ every statement Kysely sends

export interface StatementCacheOptions {
  /** Distinct texts this process prepares at most (each connection keeps at most as many); 0: none. */
  capacity: number;
  /** Executions of a text in this process before it is prepared (a text run once or twice is not worth a plan kept per connection). */
  minUses: number;
}

export const DEFAULT_STATEMENT_CACHE: StatementCacheOptions = { capacity: 256, minUses: 3 };

/** PostgreSQL's answer to a prepared statement whose result columns changed under it (a migration): prepare it again. */
export function isStalePlan(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}

/** Which texts are prepared, under which names: one per process and pool. */
class StatementNames {
  /** Texts seen and not prepared yet, with their uses (cleared when it holds many: one-off texts). */
  private readonly counted = new Map<string, number>();
  private readonly names = new Map<string, string>();
  private renamed = 0;

  constructor(private readonly options: StatementCacheOptions) {}

  /** The name to run `text` under, or null to run it plain. */
  nameFor(text: string, parameters: number): string | null {
    const name = this.names.get(text);
    if (name !== undefined) return name;
    // Statements without parameters are transaction control, migrations and the like.
    if (parameters === 0 || this.names.size >= this.options.capacity) return null;
    const uses = (this.counted.get(text) ?? 0) + 1;
    if (uses < this.options.minUses) {
      if (this.counted.size >= 4 * this.options.capacity) this.counted.clear();
      this.counted.set(text, uses);
      return null;
    }
    this.counted.delete(text);
    return this.name(text);
  }

  /** A new name for `text`, whose plan went stale: the next execution prepares it again. */
  rename(text: string): string {
    this.renamed++;
    return this.name(text);
  }

  private name(text: string): string {
    const hash = createHash('sha256').update(text).digest('base64url').slice(0, 22);
    const name = this.renamed === 0 ? `auto_${hash}` : `auto_${hash}_${this.renamed}`;
    this.names.set(text, name);
    return name;
  }
}

type Values = ReadonlyArray<unknown>;

/**
 * Runs `text` on `client`, named `name` (null: plain). The one path of
 * both ways in. A stale plan (`isStalePlan`) is prepared again under
 * `rename()`'s name: at once when the statement ran alone, by the caller's
 * retry when a transaction was open (the error aborted it).
 */
async function execute(client: pg.PoolClient, text: string, values: Values, name: string | null, rename: () => string): Promise<pg.QueryResult> {
  if (name === null) return client.query(text, values as unknown[]);
  // Whether a transaction block was open before this statement ('I': none, the statement ran alone).
  const alone = client.getTransactionStatus() === 'I';
  try {
    return await client.query({ name, text, values: values as unknown[] });
  } catch (error) {
    if (!isStalePlan(error)) throw error;
    const fresh = rename();
    if (!alone) throw error;
    return client.query({ name: fresh, text, values: values as unknown[] });
  }
}

/**
 * The pool Kysely is given (createDb): its connections run every statement
 * through `execute`, with `options`' cache (null or capacity 0: every statement
 * plain).
 */
export function statementCachingPool(pool: pg.Pool, options: StatementCacheOptions | null): PostgresPool {
  const names = options && options.capacity > 0 ? new StatementNames(options) : null;
  // One wrapper per connection, so that Kysely keeps one connection object per pg client.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let wrapper = wrappers.get(client);
    if (!wrapper) {
      // Kysely calls query(text, parameters), or query(cursor) for a stream (passed through).
      const query = (statement: string | object, values: Values = []) =>
        typeof statement === 'string'
          ? execute(client, statement, values, names?.nameFor(statement, values.length) ?? null, () => names!.rename(statement))
          : client.query(statement as never);
      wrapper = {
        // pg's result and cursor are what Kysely's types describe; the overloads are Kysely's.
        query: query as unknown as PostgresPoolClient['query'],
        release: () => client.release(),
      };
      wrappers.set(client, wrapper);
    }
    return wrapper;
  };
  return {
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
  };
}
