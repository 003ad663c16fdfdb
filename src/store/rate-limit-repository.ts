/**
 * Rate-limit counters in PostgreSQL, shared by every process on the database.
 * One call to the `rate_take` function checks and increments all buckets of
 * a request atomically.
 */
import { sql, type Kysely } from 'kysely';
import { hashSecret } from '../domain/keys.js';
import type { Bucket, RequestKind, TakeResult } from '../domain/rate-limits.js';
import type { Database } from './schema.js';
import type { AuthenticatedKey } from './workspace-repository.js';

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

export interface AuthorizedTake {
  key: AuthenticatedKey;
  /** null when nothing was taken (revoked key or API access off). */
  take: { bucketIds: string[]; exceeded: number; counts: number[] } | null;
}

/**
 * Looks the key up by its secret and, when it may make requests, takes the
 * request's buckets, in one round trip (`authorize_take`, migration 0005).
 * Undefined when no key has this secret.
 */
export async function authorizeAndTake(
  db: Kysely<Database>,
  input: { secret: string; windowStart: Date; kind: RequestKind; readLimits: [number, number]; writeDefaults: [number, number] },
): Promise<AuthorizedTake | undefined> {
  const { rows } = await sql<
    Omit<AuthenticatedKey, 'revoked'> & { revoked: boolean; bucket_ids: string[] | null; exceeded: number | null; counts: number[] | null }
  >`select * from authorize_take(${hashSecret(input.secret)}, ${input.windowStart}::timestamptz, ${input.kind},
       ${input.readLimits[0]}::integer, ${input.readLimits[1]}::integer, ${input.writeDefaults[0]}::integer, ${input.writeDefaults[1]}::integer)`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  const { bucket_ids, exceeded, counts, ...key } = row;
  return { key, take: bucket_ids === null ? null : { bucketIds: bucket_ids, exceeded: exceeded!, counts: counts! } };
}
