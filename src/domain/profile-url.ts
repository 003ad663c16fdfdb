/**
 * Profile identity (decisions "Identity and normalization"): two pronet_urls
 * name the same person when their normalized forms are equal. Normal form:
 * absolute http(s) URL; scheme https; host lower-cased without a leading
 * `www.`; no query or fragment; path percent-decoded, lower-cased, without a
 * trailing `/` (and re-encoded once, so the stored value is a valid URI).
 */

export const MAX_URL_LENGTH = 2048;

export type ProfileUrlProblem = 'invalid_url' | 'too_long';

type Normalized = { ok: true; url: string } | { ok: false; problem: ProfileUrlProblem };

/**
 * Applies one normalization step until it reaches a fixed point: decoding can
 * reveal dot segments (`/.%2Fa` → `/./a`) that the URL parser then removes,
 * and the stored normal form must normalize to itself.
 */
export function normalizeProfileUrl(input: string): Normalized {
  let result = normalizeOnce(input);
  for (let i = 0; i < 5 && result.ok; i++) {
    const again = normalizeOnce(result.url);
    if (!again.ok || again.url === result.url) return again.ok ? result : again;
    result = again;
  }
  return result;
}

function normalizeOnce(input: string): Normalized {
  if (input.length > MAX_URL_LENGTH) return { ok: false, problem: 'too_long' };
  const trimmed = input.trim();
  if (!/^https?:\/\//i.test(trimmed)) return { ok: false, problem: 'invalid_url' };
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    return { ok: false, problem: 'invalid_url' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { ok: false, problem: 'invalid_url' };
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, problem: 'invalid_url' };
  let host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  // Repeatedly, so that the normal form is a fixed point (www.www.x → x).
  while (host.startsWith('www.')) host = host.slice(4);
  if (host === '') return { ok: false, problem: 'invalid_url' };
  let path: string;
  try {
    path = decodeURIComponent(parsed.pathname);
  } catch {
    return { ok: false, problem: 'invalid_url' };
  }
  path = path.toLowerCase().replace(/\/+$/, '');
  // The scheme becomes https, so 443 is the default port whatever was supplied.
  const port = parsed.port && parsed.port !== '443' && !(parsed.protocol === 'http:' && parsed.port === '80') ? `:${parsed.port}` : '';
  // Re-encode once; `?` and `#` decoded from the path must stay in the path.
  const url = `https://${host}${port}${encodeURI(path).replace(/\?/g, '%3F').replace(/#/g, '%23')}`;
  if (url.length > MAX_URL_LENGTH) return { ok: false, problem: 'too_long' };
  return { ok: true, url };
}

/**
 * A short handle for a profile URL, for people who have no name yet: the last
 * path segment, decoded (`https://pronet.example/in/jane-doe` → `jane-doe`),
 * or the host when the path is empty.
 */
export function profileHandle(url: string): string {
  try {
    const parsed = new URL(url);
    const segment = parsed.pathname.split('/').filter(Boolean).pop();
    return segment ? decodeURIComponent(segment) : parsed.host;
  } catch {
    return url;
  }
}
