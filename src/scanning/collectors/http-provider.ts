/**
 * The HTTP provider collector: asks the external data provider to collect one
 * scan item (`POST {baseUrl}/v1/collect`) and maps its answer to a
 * `CollectResult`. The provider contract is documented in docs/collectors.md.
 *
 * It does: one bounded HTTP exchange per attempt (timeout covers connect,
 * headers and body), a few in-call retries for transient failures, a size cap
 * on the body, and strict validation of everything the provider returns.
 * Each exchange first takes a permit from the provider quota (concurrency and
 * calls per second, shared through PostgreSQL: provider-quota.ts). A 429, or
 * a 503 with Retry-After, asks the queue to defer the item
 * (`CollectorError.deferMs`) instead of spending an attempt.
 * It does not: log, store media, store results, or decide the item's fate
 * beyond `CollectorError.retryable` / `deferMs` (the queue owns cross-attempt
 * backoff and deferral).
 *
 * Reasons are short fixed texts: they never carry the API key, the person's
 * URL or any part of the provider's answer.
 */

import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CollectorError,
  type ActivityEventType,
  type CollectRequest,
  type CollectResult,
  type CollectedActivityEvent,
  type CollectedCompany,
  type CollectedPosition,
  type CollectedProfile,
  type Collector,
  type ItemKind,
  type MediaType,
  type Screenshot,
} from './collector.js';
import { checkProviderBaseUrl, parseProviderSettings, type ProviderSettings } from '../../config.js';
import type { Db } from '../../store/database.js';
import {
  LocalProviderQuota,
  SharedProviderQuota,
  type ProviderPermit,
  type ProviderQuota,
} from './provider-quota.js';

export const PROVIDER_LIMITS = {
  /** Whole response body, as read from the wire. */
  maxResponseBytes: 50 * 1024 * 1024,
  /** One decoded screenshot. */
  maxScreenshotBytes: 10 * 1024 * 1024,
} as const;

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_ATTEMPTS_PER_CALL = 2;
const DEFAULT_BACKOFF_BASE_MS = 200;
const DEFAULT_MAX_RETRY_DELAY_MS = 2_000;
/** setTimeout's ceiling; larger values fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

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

/**
 * How long a quota slot stays leased after its call starts, beyond the
 * per-attempt timeout: the time a killed process's slot stays taken.
 */
export const PROVIDER_SLOT_LEASE_MARGIN_MS = 15_000;

export interface HttpProviderOptions {
  /** http(s) URL of the provider; `/v1/collect` is appended. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never appears in reasons. */
  apiKey: string;
  /** Per HTTP attempt, covering connect, headers and the whole body. Default 10000. */
  timeoutMs?: number;
  /** Attempts within one collect() call for connection errors, timeouts, 408, 429 and 5xx. Default 2. */
  maxAttemptsPerCall?: number;
  /** Base of the jittered exponential pause between in-call attempts. Default 200. */
  backoffBaseMs?: number;
  /** Cap on any pause between in-call attempts, Retry-After included. Default 2000. */
  maxRetryDelayMs?: number;
  /** Taken around each HTTP exchange (concurrency and rate limits). None: unlimited. */
  quota?: ProviderQuota;
}

const REASONS = {
  malformed: 'provider returned a malformed answer',
  tooLarge: 'provider answer too large',
  credentials: 'provider rejected credentials',
  timedOut: 'provider timed out',
  connection: 'provider connection failed',
  aborted: 'collection aborted',
  capacityWait: 'collection aborted while waiting for provider capacity',
  quotaUnavailable: 'provider quota unavailable',
  notFound: 'provider: not found',
} as const;

const USER_AGENT = `profile-scan/${packageVersion()}`;

function packageVersion(): string {
  try {
    const pkg: unknown = createRequire(import.meta.url)('../../../package.json');
    if (isRecord(pkg) && typeof pkg.version === 'string') return pkg.version;
  } catch {
    // Running from an unusual layout: the UA still identifies the product.
  }
  return 'unknown';
}

/** A transient failure that the in-call loop may retry. */
interface Transient {
  error: CollectorError;
  retryAfterMs: number | null;
}

type AttemptOutcome = { done: CollectResult } | { transient: Transient };

export class HttpProviderCollector implements Collector {
  readonly name = 'http_provider';
  readonly #endpoint: string;
  readonly #authorization: string;
  readonly #timeoutMs: number;
  readonly #maxAttempts: number;
  readonly #backoffBaseMs: number;
  readonly #maxRetryDelayMs: number;
  readonly #quota: ProviderQuota | null;

  constructor(options: HttpProviderOptions) {
    this.#endpoint = providerEndpoint(options.baseUrl);
    if (typeof options.apiKey !== 'string' || !/^[\x21-\x7e]+$/.test(options.apiKey)) {
      // Header-safe token only; the value itself is never echoed.
      throw new TypeError('provider apiKey must be a non-empty token of visible ASCII characters');
    }
    this.#authorization = `Bearer ${options.apiKey}`;
    this.#timeoutMs = positiveInt(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs', MAX_TIMER_MS);
    this.#maxAttempts = positiveInt(options.maxAttemptsPerCall ?? DEFAULT_MAX_ATTEMPTS_PER_CALL, 'maxAttemptsPerCall', 10);
    this.#backoffBaseMs = nonNegativeInt(options.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS, 'backoffBaseMs');
    this.#maxRetryDelayMs = nonNegativeInt(options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS, 'maxRetryDelayMs');
    this.#quota = options.quota ?? null;
  }

  async collect(request: CollectRequest): Promise<CollectResult> {
    for (let attempt = 1; ; attempt++) {
      if (request.signal.aborted) throw aborted(request.signal);
      const permit = await this.#permit(request.signal, attempt > 1);
      let outcome: AttemptOutcome;
      try {
        outcome = await this.#attempt(request);
      } finally {
        await permit?.release();
      }
      if ('done' in outcome) return outcome.done;
      if (attempt >= this.#maxAttempts) throw outcome.transient.error;
      await this.#pause(attempt, outcome.transient.retryAfterMs, request.signal);
    }
  }

  /** Waits for the quota (concurrency slot and start time) before an HTTP exchange. */
  async #permit(signal: AbortSignal, reachedProvider: boolean): Promise<ProviderPermit | null> {
    if (this.#quota === null) return null;
    try {
      return await this.#quota.acquire(signal);
    } catch (err) {
      if (!signal.aborted) throw new CollectorError(REASONS.quotaUnavailable, { retryable: true, cause: err });
      // Out of time while the provider was busy: an attempt that never reached it is not spent.
      if (reachedProvider) throw aborted(signal, err);
      throw new CollectorError(REASONS.capacityWait, { retryable: true, deferMs: PROVIDER_DEFER.capacityWaitMs, cause: err });
    }
  }

  async #attempt(request: CollectRequest): Promise<AttemptOutcome> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const local = new AbortController();
    const signal = AbortSignal.any([request.signal, timeout, local.signal]);
    try {
      let response: Response;
      try {
        response = await fetch(this.#endpoint, {
          method: 'POST',
          headers: {
            authorization: this.#authorization,
            accept: 'application/json',
            'content-type': 'application/json',
            'user-agent': USER_AGENT,
          },
          body: JSON.stringify({ kind: request.kind, mode: request.mode, url: request.url }),
          signal,
          // A redirect would be a misconfiguration; never replay the key elsewhere.
          redirect: 'manual',
        });
      } catch (err) {
        return { transient: transportFailure(err, request.signal, timeout) };
      }
      return await this.#handle(response, request);
    } catch (err) {
      if (err instanceof CollectorError) throw err;
      // Body read interrupted: connection dropped, timed out or aborted.
      return { transient: transportFailure(err, request.signal, timeout) };
    } finally {
      // Releases the connection when the body was not (fully) read.
      local.abort();
    }
  }

  async #handle(response: Response, request: CollectRequest): Promise<AttemptOutcome> {
    const status = response.status;
    if (status === 200) {
      const json = await readJson(response);
      return { done: parseAnswer(json, request.kind) };
    }
    if (status === 404 || status === 410) return { done: { outcome: 'inaccessible', reason: REASONS.notFound } };
    if (status === 401 || status === 403) throw new CollectorError(REASONS.credentials, { retryable: false });
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    if (status === 429 || (status === 503 && retryAfterMs !== null)) {
      // The provider says when to come back: the queue defers the item; no attempt is spent.
      throw new CollectorError(`provider answered ${status}`, { retryable: true, deferMs: deferDelayMs(retryAfterMs) });
    }
    if (status === 408 || (status >= 500 && status <= 599)) {
      return {
        transient: {
          error: new CollectorError(`provider answered ${status}`, { retryable: true }),
          retryAfterMs,
        },
      };
    }
    if (status >= 200 && status <= 299) throw malformed(`unexpected status ${status}`);
    // Other 3xx/4xx: our request or configuration is wrong; retrying cannot help.
    throw new CollectorError(`provider answered ${status}`, { retryable: false });
  }

  async #pause(attempt: number, retryAfterMs: number | null, signal: AbortSignal): Promise<void> {
    const exponential = this.#backoffBaseMs * 2 ** (attempt - 1);
    const jittered = exponential * (0.5 + Math.random() * 0.5);
    const wanted = retryAfterMs === null ? jittered : retryAfterMs + Math.random() * this.#backoffBaseMs * 0.25;
    const delay = Math.round(Math.min(wanted, this.#maxRetryDelayMs));
    try {
      await sleep(delay, undefined, { signal });
    } catch (err) {
      throw aborted(signal, err);
    }
  }
}

export interface ProviderCollectorDeps {
  /**
   * The service database: the provider limits are then shared by every
   * process using it. Without it they hold within this process only.
   */
  db?: Db;
}

/**
 * Builds the live collector from the environment, or null when
 * PROVIDER_BASE_URL is unset (the caller then falls back to the simulator and
 * warns). Throws a one-line error on invalid configuration (the settings are
 * parsed by config.ts: parseProviderSettings).
 */
export function providerCollectorFromEnv(env: NodeJS.ProcessEnv, deps: ProviderCollectorDeps = {}): HttpProviderCollector | null {
  return providerCollectorFromSettings(parseProviderSettings(env), deps);
}

/** The live collector of validated settings (`config.provider`), or null when there are none. */
export function providerCollectorFromSettings(settings: ProviderSettings | null, deps: ProviderCollectorDeps = {}): HttpProviderCollector | null {
  if (!settings) return null;
  const { baseUrl, apiKey, timeoutMs, maxConcurrency, maxPerSecond } = settings;
  const limits = { maxConcurrency, maxPerSecond };
  const quota = deps.db
    ? new SharedProviderQuota({
        db: deps.db,
        provider: providerEndpoint(baseUrl),
        ...limits,
        leaseMs: timeoutMs + PROVIDER_SLOT_LEASE_MARGIN_MS,
      })
    : new LocalProviderQuota(limits);
  return new HttpProviderCollector({ baseUrl, apiKey, timeoutMs, quota });
}

/** `{baseUrl}/v1/collect`; also the provider's key in the shared quota tables. */
export function providerEndpoint(baseUrl: string): string {
  return `${checkProviderBaseUrl(baseUrl).replace(/\/+$/, '')}/v1/collect`;
}

// ---------------------------------------------------------------------------
// Configuration checks

function positiveInt(value: number, name: string, max: number): number {
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new TypeError(`provider ${name} must be an integer between 1 and ${max}`);
  }
  return value;
}

function nonNegativeInt(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_TIMER_MS) {
    throw new TypeError(`provider ${name} must be a non-negative integer of milliseconds`);
  }
  return value;
}

// ---------------------------------------------------------------------------
// Transport

function aborted(signal: AbortSignal, cause: unknown = signal.reason): CollectorError {
  // Worker shutdown or the item's budget ran out: another attempt may succeed.
  return new CollectorError(REASONS.aborted, { retryable: true, cause });
}

function transportFailure(err: unknown, requestSignal: AbortSignal, timeout: AbortSignal): Transient {
  if (requestSignal.aborted) throw aborted(requestSignal, err);
  const reason = timeout.aborted ? REASONS.timedOut : REASONS.connection;
  // The cause is an undici error: no key, no person URL in it.
  return { error: new CollectorError(reason, { retryable: true, cause: err }), retryAfterMs: null };
}

/** How long a deferred item waits: Retry-After (or the default) clamped, plus jitter. */
function deferDelayMs(retryAfterMs: number | null): number {
  const base = Math.min(Math.max(retryAfterMs ?? PROVIDER_DEFER.defaultMs, PROVIDER_DEFER.minMs), PROVIDER_DEFER.maxMs);
  const jitter = Math.random() * Math.min(base * 0.1, 5_000);
  return Math.min(Math.ceil(base + jitter), PROVIDER_DEFER.maxMs);
}

/** Retry-After as delta-seconds or HTTP-date; null when absent or unusable. */
function parseRetryAfter(value: string | null): number | null {
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

async function readJson(response: Response): Promise<unknown> {
  const contentType = response.headers.get('content-type') ?? '';
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  if (mediaType !== 'application/json') throw malformed('content type');
  const bytes = await readCapped(response, PROVIDER_LIMITS.maxResponseBytes);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw malformed('not UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw malformed('not JSON');
  }
}

async function readCapped(response: Response, limit: number): Promise<Buffer> {
  const declared = response.headers.get('content-length');
  if (declared !== null && /^[0-9]+$/.test(declared.trim()) && Number(declared.trim()) > limit) {
    throw new CollectorError(REASONS.tooLarge, { retryable: true });
  }
  if (response.body === null) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early cancels the stream; the caller's finally aborts the socket.
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > limit) throw new CollectorError(REASONS.tooLarge, { retryable: true });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

// ---------------------------------------------------------------------------
// Answer validation. Builds fresh objects member by member: unknown members
// are ignored (additive provider changes stay compatible) and never copied.

/** Carries the JSON path of the first violation; paths name members, never values. */
class ShapeError extends Error {}

function malformed(detail: string): CollectorError {
  return new CollectorError(REASONS.malformed, { retryable: true, cause: new ShapeError(detail) });
}

function parseAnswer(json: unknown, kind: ItemKind): CollectResult {
  try {
    return answer(json, kind);
  } catch (err) {
    if (err instanceof ShapeError) throw malformed(err.message);
    throw err;
  }
}

function fail(path: string): never {
  throw new ShapeError(`invalid ${path}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function record(value: unknown, path: string): Record<string, unknown> {
  if (!isRecord(value)) fail(path);
  return value;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path);
  return value;
}

function string(value: unknown, path: string, maxLength = 100_000): string {
  if (typeof value !== 'string' || value.length > maxLength) fail(path);
  return value;
}

function nonEmptyString(value: unknown, path: string, maxLength?: number): string {
  const s = string(value, path, maxLength);
  if (s.trim() === '') fail(path);
  return s;
}

function stringOrNull(value: unknown, path: string): string | null {
  return value === null ? null : string(value, path);
}

function booleanOrNull(value: unknown, path: string): boolean | null {
  if (value === null) return null;
  if (typeof value !== 'boolean') fail(path);
  return value;
}

function countOrNull(value: unknown, path: string): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) fail(path);
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], path: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) fail(path);
  return value as T;
}

function stringListOrNull(value: unknown, path: string): string[] | null {
  if (value === null) return null;
  return array(value, path).map((item, i) => string(item, `${path}[${i}]`));
}

function yearMonthOrNull(value: unknown, path: string): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || !/^[0-9]{4}-(0[1-9]|1[0-2])$/.test(value)) fail(path);
  return value;
}

function httpUrl(value: unknown, path: string): string {
  const s = string(value, path, 2048);
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    fail(path);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(path);
  return s;
}

const RFC3339 =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[+-]([0-9]{2}):([0-9]{2}))$/;

function isRfc3339(value: string): boolean {
  const m = RFC3339.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return false;
  return true;
}

function instant(value: unknown, path: string): string {
  if (typeof value !== 'string' || !isRfc3339(value)) fail(path);
  return value;
}

function answer(json: unknown, kind: ItemKind): CollectResult {
  const body = record(json, '$');
  if (body.status === 'inaccessible') {
    const reason = nonEmptyString(body.reason, 'reason', 500);
    // The provider's text is content: only a plain code-like token is passed on.
    return {
      outcome: 'inaccessible',
      reason: /^[a-z][a-z0-9_]{0,63}$/.test(reason) ? `provider: ${reason}` : 'provider: inaccessible',
    };
  }
  if (body.status !== 'ok') fail('status');

  const captured_at = instant(body.captured_at, 'captured_at');
  const profile = body.profile === null ? null : parseProfile(body.profile);
  const activity = body.activity === null ? null : parseActivity(body.activity);
  const company = body.company === null ? null : parseCompany(body.company);
  // Which member belongs to which item kind is part of the contract.
  if (kind === 'company_page' && profile !== null) fail('profile');
  if (kind === 'person' && company !== null) fail('company');

  const missing_sections = array(body.missing_sections, 'missing_sections').map((item, i) => {
    const s = string(item, `missing_sections[${i}]`, 64);
    if (!/^[a-z][a-z0-9_]*$/.test(s)) fail(`missing_sections[${i}]`);
    return s;
  });
  if (new Set(missing_sections).size !== missing_sections.length) fail('missing_sections');

  const screenshots = array(body.screenshots, 'screenshots').map((item, i) => parseScreenshot(item, `screenshots[${i}]`));
  return { outcome: 'ok', profile, activity, company, screenshots, missing_sections, captured_at };
}

function parseProfile(value: unknown): CollectedProfile {
  const p = record(value, 'profile');
  return {
    name: stringOrNull(p.name, 'profile.name'),
    headline: stringOrNull(p.headline, 'profile.headline'),
    about: stringOrNull(p.about, 'profile.about'),
    location: stringOrNull(p.location, 'profile.location'),
    has_photo: booleanOrNull(p.has_photo, 'profile.has_photo'),
    has_banner: booleanOrNull(p.has_banner, 'profile.has_banner'),
    custom_url: booleanOrNull(p.custom_url, 'profile.custom_url'),
    connections: countOrNull(p.connections, 'profile.connections'),
    followers: countOrNull(p.followers, 'profile.followers'),
    positions:
      p.positions === null
        ? null
        : array(p.positions, 'profile.positions').map((item, i) => parsePosition(item, `profile.positions[${i}]`)),
    skills: stringListOrNull(p.skills, 'profile.skills'),
    featured_count: countOrNull(p.featured_count, 'profile.featured_count'),
    education_count: countOrNull(p.education_count, 'profile.education_count'),
    recommendations_received: countOrNull(p.recommendations_received, 'profile.recommendations_received'),
    languages: stringListOrNull(p.languages, 'profile.languages'),
    certifications_count: countOrNull(p.certifications_count, 'profile.certifications_count'),
  };
}

function parsePosition(value: unknown, path: string): CollectedPosition {
  const p = record(value, path);
  const start = yearMonthOrNull(p.start, `${path}.start`);
  const end = yearMonthOrNull(p.end, `${path}.end`);
  // 'YYYY-MM' compares correctly as text.
  if (start !== null && end !== null && end < start) fail(`${path}.end`);
  return {
    title: string(p.title, `${path}.title`),
    company: stringOrNull(p.company, `${path}.company`),
    start,
    end,
    description: stringOrNull(p.description, `${path}.description`),
  };
}

const EVENT_TYPES: readonly ActivityEventType[] = ['post', 'repost', 'comment', 'reaction', 'unknown'];
const ACTOR_KINDS: readonly ItemKind[] = ['person', 'company_page'];

function parseActivity(value: unknown): CollectedActivityEvent[] {
  const events = array(value, 'activity').map((item, i) => parseEvent(item, `activity[${i}]`));
  // external_id keys idempotent upserts: duplicates would be ambiguous.
  if (new Set(events.map((e) => e.external_id)).size !== events.length) fail('activity.external_id');
  return events;
}

function parseEvent(value: unknown, path: string): CollectedActivityEvent {
  const e = record(value, path);
  const actor = record(e.actor, `${path}.actor`);
  const counts = record(e.counts, `${path}.counts`);
  return {
    external_id: nonEmptyString(e.external_id, `${path}.external_id`, 512),
    event_type: oneOf(e.event_type, EVENT_TYPES, `${path}.event_type`),
    actor: {
      kind: oneOf(actor.kind, ACTOR_KINDS, `${path}.actor.kind`),
      url: httpUrl(actor.url, `${path}.actor.url`),
      name: stringOrNull(actor.name, `${path}.actor.name`),
    },
    source_url: e.source_url === null ? null : httpUrl(e.source_url, `${path}.source_url`),
    text: stringOrNull(e.text, `${path}.text`),
    occurred_at: e.occurred_at === null ? null : instant(e.occurred_at, `${path}.occurred_at`),
    counts: {
      reactions: countOrNull(counts.reactions, `${path}.counts.reactions`),
      comments: countOrNull(counts.comments, `${path}.counts.comments`),
      reposts: countOrNull(counts.reposts, `${path}.counts.reposts`),
    },
  };
}

function parseCompany(value: unknown): CollectedCompany {
  const c = record(value, 'company');
  return {
    name: stringOrNull(c.name, 'company.name'),
    tagline: stringOrNull(c.tagline, 'company.tagline'),
    industry: stringOrNull(c.industry, 'company.industry'),
    follower_count: countOrNull(c.follower_count, 'company.follower_count'),
    website: stringOrNull(c.website, 'company.website'),
  };
}

const SECTIONS = ['top_card', 'about', 'experience', 'skills', 'activity', 'company'] as const;
const MEDIA_TYPES: readonly MediaType[] = ['image/png', 'image/jpeg', 'image/webp'];

function parseScreenshot(value: unknown, path: string): Screenshot {
  const s = record(value, path);
  const section = oneOf(s.section, SECTIONS, `${path}.section`);
  const media_type = oneOf(s.media_type, MEDIA_TYPES, `${path}.media_type`);
  const data = s.data_base64;
  if (typeof data !== 'string' || data.length === 0) fail(`${path}.data_base64`);
  // Check the size before decoding so an oversized image costs no allocation.
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  if ((data.length / 4) * 3 - padding > PROVIDER_LIMITS.maxScreenshotBytes) fail(`${path}.data_base64 size`);
  // Node's decoder skips invalid characters; a canonical round trip proves strict base64.
  const bytes = Buffer.from(data, 'base64');
  if (data.length % 4 !== 0 || bytes.toString('base64') !== data) fail(`${path}.data_base64`);
  if (!hasSignature(bytes, media_type)) fail(`${path}.media_type does not match the bytes`);
  return { section, media_type, bytes };
}

function hasSignature(bytes: Buffer, mediaType: MediaType): boolean {
  switch (mediaType) {
    case 'image/png':
      return bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case 'image/jpeg':
      return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
    case 'image/webp':
      return bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP';
  }
}
