/**
 * Named prepared statements for the hot paths.
 *
 * What it trades. A statement run through Kysely is built, sent as text,
 * parsed and planned on every execution. A named prepared statement is
 * parsed and planned once per pooled connection (PostgreSQL keeps the plan
 * for the session and revalidates it after schema changes); later executions
 * send only Bind/Execute, and skip Kysely's query building. In exchange its
 * text is fixed SQL (never built per request), it runs on the pool (not
 * inside a transaction: a Kysely Transaction is not a pool), and it returns
 * driver rows without Kysely's types, so each caller declares its row type.
 * Used only where a read is hot enough to measure the difference
 * (docs/benchmarks.md): the authorization statement and the fused reads.
 *
 * One path: every prepared statement runs through `runPrepared`; a name is
 * bound to one text for the life of the process (`prepared` refuses a second
 * text under a taken name, which would otherwise fail on some connections
 * only).
 */
import type { Kysely } from 'kysely';
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
  const result = await pool.query<R>({ name: statement.name, text: statement.text, values });
  return result.rows;
}
