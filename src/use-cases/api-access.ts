/**
 * An API request's key: who it is, whether its workspace allows API access,
 * and its two rate buckets taken, in one round trip with the route's own read
 * fused in (store/rate-limit-repository.ts, store/fused-read.ts); and, after
 * the answer, when the key was last used. The HTTP plugins call these; the
 * rules they apply (scopes, limits, buckets) are in domain/.
 */
import type { Db } from '../store/database.js';
import { recordKeyUse } from '../store/key-repository.js';
import { authorizeAndTake } from '../store/rate-limit-repository.js';

/** The key a secret names, with its rate buckets taken and the fused read's answer; undefined for no such key. */
export async function authorizeKey(...args: Parameters<typeof authorizeAndTake>): ReturnType<typeof authorizeAndTake> {
  return authorizeAndTake(...args);
}

/** Records that these keys were used at `now` (the workspace settings list their last use). */
export async function recordKeysUsed(db: Db, keyIds: string[], now: Date): Promise<void> {
  await recordKeyUse(db, keyIds, now);
}
