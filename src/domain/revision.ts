/**
 * The one hash-for-revisions function: an opaque revision of any JSON value
 * (RFC 8785 canonical form, SHA-256, base64url). Equal content, equal revision.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export function revisionOf(value: unknown): string {
  const canonical = (canonicalize as unknown as (v: unknown) => string | undefined)(value) ?? 'null';
  return createHash('sha256').update(canonical, 'utf8').digest('base64url').slice(0, 32);
}
