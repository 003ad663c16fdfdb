/**
 * Section 8: submitted profile rows per workspace per minute, counted on
 * commit only, inside the write's transaction (a rolled-back write counts
 * nothing).
 */
import type { Kysely } from 'kysely';
import { minuteWindow, rowsBucket, type WorkspaceLimits } from '../domain/rate-limits.js';
import { apiError } from '../domain/errors.js';
import { takeRate } from '../store/rate-limit-repository.js';
import type { Database } from '../store/schema.js';

export async function takeSubmittedRows(trx: Kysely<Database>, workspaceId: string, limits: WorkspaceLimits, rows: number, now: Date): Promise<void> {
  const window = minuteWindow(now);
  const taken = await takeRate(trx, window.start, [rowsBucket(workspaceId, limits, rows)]);
  if (!taken.admitted) {
    throw apiError('rate_limited', 'Too many submitted profile rows for this workspace in the current minute.', {
      retryable: true,
      headers: { 'Retry-After': String(window.secondsLeft) },
    });
  }
}
