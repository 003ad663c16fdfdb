/**
 * What an erasure leaves of a person where the contract must still answer
 * (docs/privacy.md): a stored response replayed for an idempotency key keeps
 * its shape, with the person's values replaced. The profile URL becomes
 * ERASED_PROFILE_URL, an absolute https URI under the reserved `.invalid`
 * domain (RFC 6761: it never resolves), which the contract's `uri` format and
 * the profile URL rules accept and which is its own normal form; the
 * optional details (name, title, headline) become null, as a profile
 * supplied without them reads.
 */
import { normalizeProfileUrl } from './profile-url.js';

export const ERASED_PROFILE_URL = 'https://erased.invalid/person';

/** The fields of a profile record that hold supplied details. */
const DETAIL_FIELDS = ['name', 'title', 'headline'] as const;

/**
 * `value` (a stored JSON response) with every profile record of the erased
 * people (by id or by normalized URL) tombstoned, and any other string equal
 * to one of their URLs replaced; a new value, the given one untouched. True
 * in `changed` when anything was replaced.
 */
export function redactErased(value: unknown, erased: { profileIds: ReadonlySet<string>; urls: ReadonlySet<string> }): { value: unknown; changed: boolean } {
  let changed = false;
  const isErasedUrl = (s: string) => {
    if (erased.urls.has(s)) return true;
    const normalized = normalizeProfileUrl(s);
    return normalized.ok && erased.urls.has(normalized.url);
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (isErasedUrl(v)) {
        changed = true;
        return ERASED_PROFILE_URL;
      }
      return v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const record = v as Record<string, unknown>;
    const isProfile =
      (typeof record.pronet_url === 'string' && isErasedUrl(record.pronet_url)) ||
      (typeof record.id === 'string' && erased.profileIds.has(record.id) && 'pronet_url' in record);
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(record)) {
      if (isProfile && (DETAIL_FIELDS as readonly string[]).includes(key) && inner !== null) {
        changed = true;
        out[key] = null;
      } else if (isProfile && key === 'pronet_url') {
        changed = true;
        out[key] = ERASED_PROFILE_URL;
      } else out[key] = walk(inner);
    }
    return out;
  };
  return { value: walk(value), changed };
}
