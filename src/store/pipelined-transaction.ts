/**
 * A transaction sent in two batches: its `BEGIN` with the statements that
 * read, and the statements that write with its `COMMIT`, each batch in one
 * go instead of one round trip per statement.
 *
 * What it trades. Between two statements of a transaction the session is
 * idle in a transaction, holding its locks, until the client sends the next
 * one. On a worker whose event loop is saturated (docs/scaling.md, "Sessions
 * idle in a transaction") each of those waits is the loop's lag: the answer
 * to a statement waits behind the JavaScript of every other item in flight
 * before the next statement can go. With pg's `pipeline` option (set on every
 * pool, database.ts) the statements of a batch go out together and
 * PostgreSQL runs them back to back: a person's finishing item, five
 * statements and four waits inside its transaction, waits once, between its
 * two batches, where the worker decides what to write from what it read.
 *
 * In exchange, the statements of a batch cannot use each other's results
 * (each still runs in order with its own snapshot, so a later one sees what
 * an earlier one wrote and is run after the locks an earlier one waited
 * for), and a failure fails the rest of its batch (25P02): the caller sees
 * the first error, the transaction is rolled back, and the retry policy of
 * every transaction applies (transaction.ts, `retrying`). Statements are
 * prepared as every statement is (prepared-statements.ts, `sendTogether`).
 */
import type { CompiledQuery, QueryExecutorProvider } from 'kysely';
import type pg from 'pg';
import { commitsAsynchronously, type Db } from './database.js';
import { poolOf, sendTogether, type BatchStatement } from './prepared-statements.js';
import { retrying } from './transaction.js';

/** A statement of a batch: a Kysely query builder or `sql` template, compiled with the transaction's Db. */
export interface Statement<O> {
  compile(executorProvider: QueryExecutorProvider): CompiledQuery<O>;
}

/** The rows of each statement of a batch, in order. */
export type BatchRows<S extends readonly Statement<unknown>[]> = { [K in keyof S]: S[K] extends Statement<infer O> ? O[] : never };

export interface PipelinedTransaction {
  /** Sends `BEGIN` and `statements` together (first, once); their rows. */
  begin<const S extends readonly Statement<unknown>[]>(statements: S): Promise<BatchRows<S>>;
  /** Sends `statements` together (after `begin`, before `commit`); their rows. */
  send<const S extends readonly Statement<unknown>[]>(statements: S): Promise<BatchRows<S>>;
  /** Sends `statements` and `COMMIT` together (last, at most once); their rows. Not called: the transaction is rolled back. */
  commit<const S extends readonly Statement<unknown>[]>(statements: S): Promise<BatchRows<S>>;
}

const BEGIN: BatchStatement = { sql: 'begin', parameters: [] };
const COMMIT: BatchStatement = { sql: 'commit', parameters: [] };
const ASYNCHRONOUS_COMMIT: BatchStatement = { sql: 'set local synchronous_commit = off', parameters: [] };

/**
 * Runs `work` in a transaction of `db`'s pool (a Db made by createDb) that
 * it sends in batches. `asynchronousCommit`: as transaction.ts's option.
 */
export function pipelinedTransaction<T>(db: Db, work: (tx: PipelinedTransaction) => Promise<T>, options: { asynchronousCommit?: boolean } = {}): Promise<T> {
  const pool = poolOf(db);
  return retrying(async () => {
    const client = await pool.connect();
    let state = 'idle' as 'idle' | 'open' | 'committed';
    const run = async (statements: readonly BatchStatement[]): Promise<pg.QueryResult[]> => {
      const settled = await sendTogether(db, client, statements);
      // The first failure is the cause; the statements after it failed for it.
      const failed = settled.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      return settled.map((result) => (result as PromiseFulfilledResult<pg.QueryResult>).value);
    };
    const tx: PipelinedTransaction = {
      begin: async (statements) => {
        if (state !== 'idle') throw new Error('pipelinedTransaction: begin is sent once, first');
        state = 'open';
        const head = options.asynchronousCommit && !commitsAsynchronously(db) ? [BEGIN, ASYNCHRONOUS_COMMIT] : [BEGIN];
        const results = await run([...head, ...statements.map((s) => s.compile(db))]);
        return results.slice(head.length).map((r) => r.rows) as BatchRows<typeof statements>;
      },
      send: async (statements) => {
        if (state !== 'open') throw new Error('pipelinedTransaction: send is sent between begin and commit');
        const results = await run(statements.map((s) => s.compile(db)));
        return results.map((r) => r.rows) as BatchRows<typeof statements>;
      },
      commit: async (statements) => {
        if (state !== 'open') throw new Error('pipelinedTransaction: commit is sent once, after begin');
        const results = await run([...statements.map((s) => s.compile(db)), COMMIT]);
        state = 'committed';
        return results.slice(0, -1).map((r) => r.rows) as BatchRows<typeof statements>;
      },
    };
    let broken: Error | undefined;
    try {
      return await work(tx);
    } finally {
      if (state === 'open') {
        try {
          await client.query('rollback');
        } catch (error) {
          // The connection is unusable: pg's pool closes it instead of lending it again.
          broken = error as Error;
        }
      }
      client.release(broken);
    }
  });
}
