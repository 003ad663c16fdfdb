/**
 * Rate-limit counters in PostgreSQL, shared by every process on the database.
 * One call to the `rate_take` function checks and increments all buckets of
 * a request atomically.
 */
import { sql, type Kysely } from 'kysely';
import type { Bucket, TakeResult } from '../domain/rate-limits.js';
import type { Database } from './schema.js';

export async function takeRate(db: Kysely<Database>, windowStart: Date, buckets: Bucket[]): Promise<TakeResult> {
  const result = await sql<{ exceeded: number; counts: number[] }>`
    select exceeded, counts from rate_take(
      ${windowStart}::timestamptz,
      ${buckets.map((b) => b.id)}::text[],
      ${buckets.map((b) => b.limit)}::integer[],
      ${buckets.map((b) => b.amount)}::integer[])`.execute(db);
  const row = result.rows[0];
  return {
    admitted: row.exceeded === 0,
    refusedBy: row.exceeded === 0 ? null : buckets[row.exceeded - 1],
    counts: row.counts,
  };
}

/** Drops counters of windows that ended more than `keepMinutes` ago. */
export async function pruneRateCounters(db: Kysely<Database>, before: Date): Promise<number> {
  const result = await db.deleteFrom('rate_counters').where('window_start', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
