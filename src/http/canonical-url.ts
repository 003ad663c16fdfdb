/**
 * Canonical ids in request paths (contract: ids are UUIDs, and UUIDs are
 * case-insensitive). Every path segment that is a UUID in any letter case,
 * percent-encoded or not, is rewritten to its lower-case form before the
 * router sees the request (Fastify's `rewriteUrl`), so lookups, idempotency
 * scopes, receipts, `Location`, cursors and logs only ever see one spelling:
 * the same commit through `/reports/B458…` and `/reports/b458…` is one
 * commit. The query string is left as it is. Web pages get the same.
 */
import { isUuid } from '../domain/uuid.js';

function canonicalSegment(segment: string): string {
  if (segment.length < 36) return segment;
  let decoded = segment;
  if (segment.includes('%')) {
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return segment; // Malformed: the router answers 400.
    }
  }
  return isUuid(decoded) ? decoded.toLowerCase() : segment;
}

/** `url` (path and query) with its UUID path segments in lower case. */
export function canonicalUrl(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const canonical = path.split('/').map(canonicalSegment).join('/');
  return q === -1 ? canonical : canonical + url.slice(q);
}
