/**
 * What every HTTP data-provider collector shares (http-provider.ts, the
 * bridge; brightdata/, Bright Data's Scraper API): the User-Agent, reading a
 * body under a size cap, decoding it as UTF-8 JSON, `Retry-After`, and how
 * long a deferred item waits (docs/collectors.md, "Deferral").
 *
 * It does not make requests or decide what a status means: each collector
 * maps its provider's answers itself.
 */
import { createRequire } from 'node:module';

/**
 * Deferral on 429 (any) and 503 with Retry-After: the item comes back no
 * earlier than Retry-After, clamped to [minMs, maxMs], plus up to 10 % jitter
 * (at most 5 s) so deferred items do not return all at once; defaultMs when a
 * 429 has no usable Retry-After. `capacityWaitMs`: an attempt aborted while
 * waiting for a quota permit (it never reached the provider) is deferred too.
 */
export const PROVIDER_DEFER = {
  defaultMs: 30_000,
  minMs: 1_000,
  maxMs: 15 * 60_000,
  capacityWaitMs: 1_000,
} as const;

export const USER_AGENT = `profile-scan/${packageVersion()}`;

function packageVersion(): string {
  try {
    const pkg = createRequire(import.meta.url)('../../../package.json') as { version?: unknown } | null;
    if (typeof pkg?.version === 'string') return pkg.version;
  } catch {
    // Running from an unusual layout: the UA still identifies the product.
  }
  return 'unknown';
}

/** How long a deferred item waits: Retry-After (or the default) clamped, plus jitter. */
export function deferDelayMs(retryAfterMs: number | null): number {
  const base = Math.min(Math.max(retryAfterMs ?? PROVIDER_DEFER.defaultMs, PROVIDER_DEFER.minMs), PROVIDER_DEFER.maxMs);
  const jitter = Math.random() * Math.min(base * 0.1, 5_000);
  return Math.min(Math.ceil(base + jitter), PROVIDER_DEFER.maxMs);
}

/** Retry-After as delta-seconds or HTTP-date; null when absent or unusable. */
export function parseRetryAfter(value: string | null): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^[0-9]{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = parseHttpDate(trimmed);
  return at === null ? null : Math.max(0, at - Date.now());
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const HTTP_DATES: Array<[RegExp, (m: RegExpExecArray) => [string, string, string, string]]> = [
  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
  [/^[A-Z][a-z]{2}, ([0-9]{2}) ([A-Z][a-z]{2}) ([0-9]{4}) ([0-9]{2}:[0-9]{2}:[0-9]{2}) GMT$/, (m) => [m[1], m[2], m[3], m[4]]],
  // RFC 850 (obsolete): Sunday, 06-Nov-94 08:49:37 GMT
  [/^[A-Z][a-z]+, ([0-9]{2})-([A-Z][a-z]{2})-([0-9]{2}) ([0-9]{2}:[0-9]{2}:[0-9]{2}) GMT$/, (m) => [m[1], m[2], `${Number(m[3]) < 70 ? 20 : 19}${m[3]}`, m[4]]],
  // asctime (obsolete): Sun Nov  6 08:49:37 1994
  [/^[A-Z][a-z]{2} ([A-Z][a-z]{2}) ([ 0-9][0-9]) ([0-9]{2}:[0-9]{2}:[0-9]{2}) ([0-9]{4})$/, (m) => [m[2].trim(), m[1], m[4], m[3]]],
];

/** The three HTTP-date forms (RFC 9110 §5.6.7), always UTC; null for anything else. */
function parseHttpDate(value: string): number | null {
  for (const [pattern, parts] of HTTP_DATES) {
    const m = pattern.exec(value);
    if (!m) continue;
    const [day, monthName, year, time] = parts(m);
    const month = MONTHS.indexOf(monthName);
    const [hour, minute, second] = time.split(':').map(Number);
    const at = Date.UTC(Number(year), month, Number(day), hour, minute, second);
    const check = new Date(at);
    // Rejects unknown months and impossible dates such as 31 Feb.
    if (month < 0 || check.getUTCDate() !== Number(day) || check.getUTCMonth() !== month || hour > 23 || minute > 59 || second > 60) return null;
    return at;
  }
  return null;
}

/** The bytes as UTF-8 JSON; undefined when they are not valid UTF-8 or not JSON. */
export function decodeJson(bytes: Buffer): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The body, at most `limit` bytes: a larger declared Content-Length is
 * refused before reading, a longer stream while reading (`tooLarge()` is
 * thrown). Leaving the loop early cancels the stream; the caller aborts the
 * socket.
 */
export async function readCapped(response: Response, limit: number, tooLarge: () => Error): Promise<Buffer> {
  const declared = response.headers.get('content-length');
  if (declared !== null && /^[0-9]+$/.test(declared.trim()) && Number(declared.trim()) > limit) {
    throw tooLarge();
  }
  if (response.body === null) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early cancels the stream; the caller's finally aborts the socket.
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
