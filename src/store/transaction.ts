/**
 * The one way to run a transaction (ESLint refuses `.transaction()` anywhere
 * else in src/): one that PostgreSQL aborts for a deadlock or a serialization
 * failure (SQLSTATE 40P01, 40001) runs again, a few times, after a short
 * random pause; so does one whose prepared statement's plan went stale
 * under a migration (prepared-statements.ts, `isStalePlan`: the statement
 * is prepared again). Safe because nothing of an aborted transaction was committed,
 * so `work` must do nothing but database work (or work it may repeat). Such aborts are rare here (every writer takes
 * its row locks in the order of src/store/locks.ts), but an import and a
 * finishing scan item of the same person can still meet in opposite order,
 * and neither should fail for it.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { commitsAsynchronously } from './database.js';
import { isStalePlan } from './prepared-statements.js';
import type { Database } from './schema.js';

const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const ATTEMPTS = 5;

export interface TransactionOptions {
  /**
   * Commit without waiting for the WAL flush (this transaction only). Only
   * for writes that are redone when lost (the scan workers' item
   * transitions, docs/scanning.md), never for what a client was told.
   */
  asynchronousCommit?: boolean;
  /** A consistent read: one snapshot for every statement (repeatable read), writing nothing. */
  readOnlySnapshot?: boolean;
}

export async function retryingTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const transaction = options.readOnlySnapshot ? db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only') : db.transaction();
      return await transaction.execute(async (trx) => {
        // A scan pool's sessions commit asynchronously already (database.ts): no statement for it.
        if (options.asynchronousCommit && !commitsAsynchronously(db)) await sql`set local synchronous_commit = off`.execute(trx);
        return work(trx);
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const retryable = (typeof code === 'string' && RETRYABLE_SQLSTATES.has(code)) || isStalePlan(error);
      if (attempt >= ATTEMPTS || !retryable) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20));
    }
  }
}
