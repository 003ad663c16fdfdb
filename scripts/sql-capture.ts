/**
 * A Kysely instance that talks to no database: every statement the store
 * sends is recorded (its text and parameters) and answered with canned rows.
 * Used by scripts/gen-sql.ts to write the SQL snapshot under sql/ without a
 * server, so the snapshot depends on the code alone.
 *
 * It stands in for the pg pool, not for Kysely: the statements are compiled
 * by Kysely's own PostgreSQL dialect, transaction control included, and the
 * store's prepared statements (store/prepared-statements.ts `runPrepared`)
 * reach the same recorder through the pool registered for the instance.
 * It does not check that a statement is valid SQL: the tests against a real
 * PostgreSQL do.
 */
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { registerPool } from '../src/store/prepared-statements.js';
import type { Database } from '../src/store/schema.js';

export interface CapturedStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** The rows to answer a statement with (its text, its place among the operation's statements); none by default. */
export type CannedRows = (sql: string, index: number) => readonly object[] | undefined;

export interface Capture {
  readonly db: Kysely<Database>;
  readonly statements: CapturedStatement[];
}

export function captureDb(rows: CannedRows = () => undefined): Capture {
  const statements: CapturedStatement[] = [];
  const query = (statement: string | { text: string; values?: unknown[] }, values: readonly unknown[] = []) => {
    const text = typeof statement === 'string' ? statement : statement.text;
    const parameters = typeof statement === 'string' ? values : (statement.values ?? []);
    const answer = rows(text, statements.length) ?? [];
    statements.push({ sql: text, parameters: [...parameters] });
    const command = /^\s*(\w+)/u.exec(text)?.[1]?.toUpperCase() ?? 'SELECT';
    return Promise.resolve({ command, rowCount: answer.length, rows: answer });
  };
  const client = { query, release: () => {}, getTransactionStatus: () => 'I' };
  const pool = { connect: () => Promise.resolve(client), end: () => Promise.resolve() };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pool as never }) });
  registerPool(db, pool as unknown as pg.Pool);
  return { db, statements };
}
