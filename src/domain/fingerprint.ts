/**
 * Idempotency fingerprint (decisions "Writes"): SHA-256 of the canonical
 * request — method, route, query flags and body — serialized with RFC 8785
 * JSON canonicalization (object keys sorted, array order kept).
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export function requestFingerprint(parts: { method: string; route: string; flags: Record<string, unknown>; body: unknown }): string {
  const canonical = (canonicalize as unknown as (value: unknown) => string | undefined)(parts) ?? '';
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const IDEMPOTENCY_TTL_MS = 30 * 24 * 60 * 60 * 1000;
