/**
 * Takes web-workspace rate-limit buckets (per client address, per user) and
 * refuses with 429 `rate_limited` and a Retry-After when one is full.
 */
import { minuteWindow, type Bucket } from '../domain/rate-limits.js';
import { apiError } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import { takeRate } from '../store/rate-limit-repository.js';

export async function throttle(db: Db, now: Date, buckets: Bucket[], message: string): Promise<void> {
  const window = minuteWindow(now);
  const taken = await takeRate(db, window.start, buckets);
  if (!taken.admitted) {
    throw apiError('rate_limited', `${message} Try again in ${window.secondsLeft} second${window.secondsLeft === 1 ? '' : 's'}.`, {
      retryable: true,
      headers: { 'Retry-After': String(window.secondsLeft) },
    });
  }
}
