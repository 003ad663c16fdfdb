/**
 * Session advisory locks: one process at a time runs a piece of work (the
 * first run, a maintenance run), whichever process it is. The lock is held by
 * one pooled connection for the duration of `work`, which runs on that
 * connection, and released however `work` ends (a crash ends the session,
 * which releases it too). Transaction-scoped locks are taken inside the
 * repositories that need them.
 */
import { sql } from 'kysely';
import type { Db } from './database.js';

/**
 * Runs `work` while this session holds the advisory lock `key`. With
 * `wait: true` it waits for the lock; with `wait: false` it returns null at
 * once when another session holds it.
 */
export async function withSessionLock<T>(db: Db, key: number, options: { wait: boolean }, work: (conn: Db) => Promise<T>): Promise<T | null> {
  return db.connection().execute(async (conn) => {
    if (options.wait) await sql`select pg_advisory_lock(${key}::bigint)`.execute(conn);
    else {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${key}::bigint) as locked`.execute(conn);
      if (!rows[0]?.locked) return null;
    }
    try {
      return await work(conn);
    } finally {
      // A session lost meanwhile (a restart, a failover) released the lock with it: the unlock's failure
      // must not hide how `work` ended.
      await sql`select pg_advisory_unlock(${key}::bigint)`.execute(conn).catch(() => undefined);
    }
  });
}
