/**
 * The HTTP provider collector: asks the external data provider to collect one
 * scan item (`POST {baseUrl}/v1/collect`). The provider contract is documented
 * in docs/collectors.md.
 *
 * This module is the transport: one bounded HTTP exchange per attempt
 * (timeout covers connect, headers and body), a few in-call retries for
 * transient failures, status handling, a size cap on the body, and decoding
 * the body as UTF-8 JSON. The answer's validation and its mapping to a
 * `CollectResult` live in provider-answer.ts (a TypeBox schema checked by Ajv).
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

import { setTimeout as sleep } from 'node:timers/promises';
import { CollectorError, type CollectRequest, type CollectResult, type Collector } from './collector.js';
import { MAX_SCREENSHOT_BYTES, malformedAnswer, parseProviderAnswer } from './provider-answer.js';
import { decodeJson, deferDelayMs, parseRetryAfter, PROVIDER_DEFER, readCapped, USER_AGENT } from './provider-http.js';
import { providerBaseUrl, MAX_TIMER_MS, parseProviderSettings, SETTINGS, type ProviderSettings } from '../../config.js';
import type { Db } from '../../store/database.js';
import { LocalProviderQuota, SharedProviderQuota, type ProviderPermit, type ProviderQuota } from './provider-quota.js';

export const PROVIDER_LIMITS = {
  /** Whole response body, as read from the wire. */
  maxResponseBytes: 50 * 1024 * 1024,
  /** One decoded screenshot (checked by provider-answer.ts). */
  maxScreenshotBytes: MAX_SCREENSHOT_BYTES,
} as const;

const DEFAULT_MAX_ATTEMPTS_PER_CALL = 2;
const DEFAULT_BACKOFF_BASE_MS = 200;
const DEFAULT_MAX_RETRY_DELAY_MS = 2_000;

export { PROVIDER_DEFER };

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
  /** Told of each HTTP exchange: its outcome, duration and, for failures, the (fixed-text) reason. Metrics. */
  onCall?: (outcome: ProviderCallOutcome, seconds: number, reason: string | null) => void;
}

export type ProviderCallOutcome = 'ok' | 'inaccessible' | 'retryable' | 'deferred' | 'error';

const REASONS = {
  tooLarge: 'provider answer too large',
  credentials: 'provider rejected credentials',
  timedOut: 'provider timed out',
  connection: 'provider connection failed',
  aborted: 'collection aborted',
  capacityWait: 'collection aborted while waiting for provider capacity',
  quotaUnavailable: 'provider quota unavailable',
  notFound: 'provider: not found',
} as const;

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
  readonly #onCall: HttpProviderOptions['onCall'] | null;

  constructor(options: HttpProviderOptions) {
    this.#endpoint = providerEndpoint(options.baseUrl);
    if (typeof options.apiKey !== 'string' || !/^[\x21-\x7e]+$/.test(options.apiKey)) {
      // Header-safe token only; the value itself is never echoed.
      throw new TypeError('provider apiKey must be a non-empty token of visible ASCII characters');
    }
    this.#authorization = `Bearer ${options.apiKey}`;
    this.#timeoutMs = positiveInt(options.timeoutMs ?? SETTINGS.PROVIDER_TIMEOUT_MS.fallback, 'timeoutMs', MAX_TIMER_MS);
    this.#maxAttempts = positiveInt(options.maxAttemptsPerCall ?? DEFAULT_MAX_ATTEMPTS_PER_CALL, 'maxAttemptsPerCall', 10);
    this.#backoffBaseMs = nonNegativeInt(options.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS, 'backoffBaseMs');
    this.#maxRetryDelayMs = nonNegativeInt(options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS, 'maxRetryDelayMs');
    this.#quota = options.quota ?? null;
    this.#onCall = options.onCall ?? null;
  }

  async collect(request: CollectRequest): Promise<CollectResult> {
    for (let attempt = 1; ; attempt++) {
      if (request.signal.aborted) throw aborted(request.signal);
      const permit = await this.#permit(request.signal, attempt > 1);
      let outcome: AttemptOutcome;
      const began = performance.now();
      try {
        outcome = await this.#attempt(request);
      } catch (err) {
        this.#observe(began, err);
        throw err;
      } finally {
        await permit?.release();
      }
      this.#observe(began, outcome);
      if ('done' in outcome) return outcome.done;
      if (attempt >= this.#maxAttempts) throw outcome.transient.error;
      await this.#pause(attempt, outcome.transient.retryAfterMs, request.signal);
    }
  }

  #observe(began: number, result: AttemptOutcome | unknown): void {
    if (!this.#onCall) return;
    const seconds = (performance.now() - began) / 1000;
    const r = result as Partial<{ done: CollectResult; transient: Transient }>;
    if (r && typeof r === 'object' && 'done' in r && r.done) this.#onCall(r.done.outcome === 'ok' ? 'ok' : 'inaccessible', seconds, null);
    else if (r && typeof r === 'object' && 'transient' in r && r.transient) this.#onCall('retryable', seconds, r.transient.error.reason);
    else if (result instanceof CollectorError) this.#onCall(result.deferMs !== undefined ? 'deferred' : 'error', seconds, result.reason);
    else this.#onCall('error', seconds, 'unexpected failure');
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
      return { done: parseProviderAnswer(json, request.kind, request.mode) };
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
    if (status >= 200 && status <= 299) throw malformedAnswer(`unexpected status ${status}`);
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
  /** See HttpProviderOptions.onCall (metrics). */
  onCall?: HttpProviderOptions['onCall'];
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
  return new HttpProviderCollector({ baseUrl, apiKey, timeoutMs, quota, onCall: deps.onCall });
}

/** `{baseUrl}/v1/collect`; also the provider's key in the shared quota tables. */
export function providerEndpoint(baseUrl: string): string {
  return `${providerBaseUrl(baseUrl)}/v1/collect`;
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

async function readJson(response: Response): Promise<unknown> {
  const contentType = response.headers.get('content-type') ?? '';
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  if (mediaType !== 'application/json') throw malformedAnswer('content type');
  const bytes = await readCapped(response, PROVIDER_LIMITS.maxResponseBytes, () => new CollectorError(REASONS.tooLarge, { retryable: true }));
  const json = decodeJson(bytes);
  if (json === undefined) throw malformedAnswer('not UTF-8 JSON');
  return json;
}
