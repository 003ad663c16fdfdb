/**
 * One HTTP exchange with the API, with the contract's retry rules. Runtime
 * dependency-free: global `fetch` (or an injected one).
 *
 * What it does: sends `Authorization: Bearer <key>` to the configured origin
 * only (redirects are refused, so the key never travels elsewhere); sends the
 * caller's `Idempotency-Key` unchanged on every retry of a write, so a retry
 * after an uncertain result (dropped connection, timeout, 5xx) replays the
 * saved result instead of writing twice (4.4 rule 9, 4.8 rule 6); retries a
 * bounded number of times: a 429 after `Retry-After` seconds (section 7) when
 * the wait fits `maxRetryAfterMs`, and no response, 500/502/503/504 or 409
 * `idempotency_request_in_progress` after an exponential backoff with jitter.
 * Every other error is thrown at once as a typed exception (./errors.ts).
 *
 * What it does not: no caching, no retry of other 4xx, no traversal restarts
 * (./client.ts owns the 409 `results_changed` policy). The key stays in a
 * closure: never logged, never in a URL, an error or a returned value.
 */
import { ConnectionError, ConflictError, ProfileScanError, ProtocolError, RateLimitError, ServerError, errorFromResponse } from './errors.js';

export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  redirect: 'error';
  signal?: AbortSignal;
}
export type FetchLike = (input: string, init: FetchInit) => Promise<Response>;

/** Reported after every attempt (for logs, progress and tests); never contains the key. */
export interface RequestEvent {
  method: string;
  /** Path and query below the origin, e.g. `/api/v1/reports?limit=50`. */
  path: string;
  /** 0 for the first try, then 1, 2, … for retries. */
  attempt: number;
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  /** Error code when the attempt failed. */
  code?: string;
  /** Delay before the next retry, when one follows. */
  retry_in_ms?: number;
}

export interface TransportOptions {
  /** Service origin (`https://scan.example.com`); a trailing `/api/v1` is accepted. */
  baseUrl: string;
  apiKey: string;
  fetch?: FetchLike;
  sleep?: (ms: number) => Promise<void>;
  /** In [0, 1); injectable for tests. */
  random?: () => number;
  /** Retries of one request after no response, a 5xx, a 429 or a write still in progress (default 2, so 3 tries). */
  requestRetries?: number;
  /** Base of the backoff after no response or a 5xx (default 500 ms, doubled per retry, jittered into its upper half). */
  retryBackoffMs?: number;
  /** A 429 whose `Retry-After` asks for longer than this is thrown, not waited for (default 60 s). */
  maxRetryAfterMs?: number;
  /** Per-attempt timeout until the response headers (JSON: until the body) arrived (default 30 s). */
  timeoutMs?: number;
  onRequest?: (event: RequestEvent) => void;
  userAgent?: string;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  /** Below `/api/v1`, e.g. `/reports`. */
  path?: string;
  /** An absolute URL on the configured origin (evidence downloads). */
  url?: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface JsonResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

const TRANSIENT = new Set([500, 502, 503, 504]);
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A delay in [base/2, base): the upper half of full jitter. */
export function jittered(baseMs: number, random: () => number): number {
  return Math.floor(baseMs / 2 + (baseMs / 2) * random());
}

/** `https://host[:port]` from a base URL that may end in `/` or `/api/v1`. */
export function originOf(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError('baseUrl must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('baseUrl must be an absolute http(s) URL');
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `${url.origin}${path}`;
}

export class Transport {
  readonly origin: string;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  readonly #apiKey: string;
  readonly #fetch: FetchLike;
  readonly #retries: number;
  readonly #backoffMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #timeoutMs: number;
  readonly #onRequest?: (event: RequestEvent) => void;
  readonly #userAgent: string;

  constructor(options: TransportOptions) {
    if (!options.apiKey) throw new TypeError('apiKey is required');
    this.origin = originOf(options.baseUrl);
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
    this.#retries = Math.max(0, options.requestRetries ?? 2);
    this.#backoffMs = options.retryBackoffMs ?? 500;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#onRequest = options.onRequest;
    this.#userAgent = options.userAgent ?? 'profile-scan-client/1';
  }

  /** The absolute URL of a request; `url` must be on the configured origin under /api/v1. */
  urlOf(spec: Pick<RequestSpec, 'path' | 'url' | 'query'>): string {
    let url: URL;
    if (spec.url !== undefined) {
      try {
        url = new URL(spec.url);
      } catch {
        throw new TypeError('not an absolute URL');
      }
      // The key goes only to the configured service (4.12: from a trusted server, never in a URL).
      if (!`${url.origin}${url.pathname}`.startsWith(`${this.origin}/api/v1/`)) {
        throw new TypeError(`refusing to send the API key to ${url.origin}${url.pathname}: not under ${this.origin}/api/v1/`);
      }
    } else {
      url = new URL(`${this.origin}/api/v1${spec.path ?? ''}`);
    }
    for (const [name, value] of Object.entries(spec.query ?? {})) if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    return url.toString();
  }

  /** A JSON request; resolves the parsed success body or throws a `ProfileScanError`. */
  async json<T>(spec: RequestSpec): Promise<JsonResponse<T>> {
    return this.#withRetries(spec, async (res) => {
      const text = await res.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new ProtocolError(`HTTP ${res.status} without a JSON body`, {
          status: res.status,
          request_id: res.headers.get('x-request-id'),
        });
      }
      if (!body || typeof body !== 'object') throw new ProtocolError(`HTTP ${res.status} without a JSON object`, { status: res.status });
      return { status: res.status, headers: res.headers, body: body as T };
    });
  }

  /** A request whose success body is returned unread (a stream), for downloads. */
  async raw(spec: RequestSpec): Promise<Response> {
    return this.#withRetries(spec, async (res) => res, { bodyTimeout: false });
  }

  async #withRetries<R>(spec: RequestSpec, onSuccess: (res: Response) => Promise<R>, options: { bodyTimeout?: boolean } = {}): Promise<R> {
    const url = this.urlOf(spec);
    const path = url.slice(new URL(url).origin.length);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: 'application/json',
      'user-agent': this.#userAgent,
    };
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    }
    if (spec.idempotencyKey !== undefined) headers['idempotency-key'] = spec.idempotencyKey;

    for (let attempt = 0; ; attempt++) {
      let error: ProfileScanError;
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), this.#timeoutMs);
      const signal = spec.signal ? AbortSignal.any([spec.signal, timeout.signal]) : timeout.signal;
      let status: number | null = null;
      try {
        const res = await this.#fetch(url, { method: spec.method, headers, body, redirect: 'error', signal });
        status = res.status;
        if (options.bodyTimeout === false) clearTimeout(timer);
        if (res.ok) {
          const result = await onSuccess(res);
          this.#onRequest?.({ method: spec.method, path, attempt, status });
          return result;
        }
        const text = await res.text().catch(() => '');
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = null;
        }
        error = errorFromResponse(res.status, parsed, res.headers);
      } catch (caught) {
        if (spec.signal?.aborted) throw spec.signal.reason ?? caught;
        if (caught instanceof ProfileScanError) error = caught;
        else {
          // Only the failure's message: the request and its headers are never echoed.
          const reason = timeout.signal.aborted
            ? `no response within ${this.#timeoutMs} ms`
            : caught instanceof Error
              ? caught.cause instanceof Error
                ? `${caught.message} (${caught.cause.message})`
                : caught.message
              : String(caught);
          error = new ConnectionError(`${spec.method} ${path.split('?')[0]} failed: ${reason}`);
        }
      } finally {
        clearTimeout(timer);
      }
      const delay = attempt < this.#retries ? this.#retryDelay(error, attempt) : null;
      this.#onRequest?.({
        method: spec.method,
        path,
        attempt,
        status,
        code: error.code,
        ...(delay !== null ? { retry_in_ms: delay } : {}),
      });
      if (delay === null) throw error;
      await this.sleep(delay);
    }
  }

  /** Milliseconds to wait before retrying after `error`, or null when it is not retried. */
  #retryDelay(error: ProfileScanError, attempt: number): number | null {
    if (error instanceof RateLimitError) {
      const waitMs = error.retry_after_seconds * 1000;
      // Section 7: wait until the window ends; a little jitter spreads clients sharing a workspace.
      return waitMs <= this.#maxRetryAfterMs ? waitMs + Math.floor(250 * this.random()) : null;
    }
    const transient =
      error instanceof ConnectionError ||
      (error instanceof ServerError && TRANSIENT.has(error.status ?? 0)) ||
      (error instanceof ConflictError && error.code === 'idempotency_request_in_progress');
    return transient ? jittered(this.#backoffMs * 2 ** attempt, this.random) : null;
  }
}
