/**
 * Per-client-address limits of the web workspace (docs/operations.md, "Security"):
 * sign-in attempts, public page views and private links' pages and images. Same fixed UTC-minute windows and
 * counters as the API's limits (./rate-limits.ts); the counters are shared by
 * every process on the database.
 */
import { createHash } from 'node:crypto';
import type { Bucket } from './rate-limits.js';

export const SIGN_IN_ATTEMPTS_PER_MINUTE_PER_ADDRESS = 10;
/** Across addresses, so that a spread-out guess at one account is slowed too. */
export const SIGN_IN_ATTEMPTS_PER_MINUTE_PER_ACCOUNT = 20;
export const PUBLIC_VIEWS_PER_MINUTE_PER_ADDRESS = 60;
/** A private link's page, like the public page; its evidence images apart, as one page shows many. */
export const PERSON_LINK_VIEWS_PER_MINUTE_PER_ADDRESS = 60;
export const PERSON_LINK_IMAGES_PER_MINUTE_PER_ADDRESS = 600;

const short = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url').slice(0, 22);

function sorted(buckets: Bucket[]): Bucket[] {
  // A fixed order, so concurrent callers lock counter rows in the same order.
  return buckets.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** The address is hashed into the bucket id: counters never hold addresses or emails in the clear. */
export function signInBuckets(address: string, email: string): Bucket[] {
  return sorted([
    { policy: 'sign-in-per-address', id: `signin:ip:${short(address)}`, limit: SIGN_IN_ATTEMPTS_PER_MINUTE_PER_ADDRESS, amount: 1 },
    {
      policy: 'sign-in-per-account',
      id: `signin:email:${short(email.toLowerCase())}`,
      limit: SIGN_IN_ATTEMPTS_PER_MINUTE_PER_ACCOUNT,
      amount: 1,
    },
  ]);
}

export function publicViewBuckets(address: string): Bucket[] {
  return [{ policy: 'public-page-per-address', id: `public:ip:${short(address)}`, limit: PUBLIC_VIEWS_PER_MINUTE_PER_ADDRESS, amount: 1 }];
}

export function personLinkBuckets(address: string, what: 'page' | 'image'): Bucket[] {
  return what === 'page'
    ? [{ policy: 'person-link-per-address', id: `personlink:ip:${short(address)}`, limit: PERSON_LINK_VIEWS_PER_MINUTE_PER_ADDRESS, amount: 1 }]
    : [{ policy: 'person-link-image-per-address', id: `personlink-img:ip:${short(address)}`, limit: PERSON_LINK_IMAGES_PER_MINUTE_PER_ADDRESS, amount: 1 }];
}

/** Web writes (report creation, imports) per user, at the workspace's per-key write limit. */
export function webWriteBuckets(userId: string, limit: number): Bucket[] {
  return [{ policy: 'web-writes-per-user', id: `webwrite:user:${userId}`, limit, amount: 1 }];
}
