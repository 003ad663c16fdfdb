/**
 * A minimal HTTP client for the analysis reads (4.10-4.11a), for integrators.
 * Dependency-free: global `fetch` (or an injected one), JSON only.
 *
 * What it does: sends `Authorization: Bearer <key>` on every GET, parses the
 * success and error envelopes (2.1, 7.1), and retries one request a bounded
 * number of times on transient failures: network errors and 500/502/503/504
 * with exponential backoff and jitter, 429 after `Retry-After` seconds
 * (section 7: integer seconds until the minute window ends) as long as the
 * wait fits `maxRetryAfterMs`.
 *
 * What it does not: no caching, no redirects (a redirect is an error, so the
 * key never travels to another origin), no retry of 4xx other than 429. The
 * key is kept in a closure; it is never logged, never put in a URL, an error
 * message or a returned value (5 rule 7).
 */

export type FetchLike = (input: string, init: { method: string; headers: Record<string, string>; redirect: 'error'; signal?: AbortSignal }) => Promise<Response>;

export interface HttpOptions {
  /** Service origin, e.g. `https://scan.example.com` (the `/api/v1` prefix is added). */
  baseUrl: string;
  apiKey: string;
  fetch?: FetchLike;
  sleep?: (ms: number) => Promise<void>;
  /** In [0, 1); injectable for tests. */
  random?: () => number;
  /** Retries of one request after a network error, a 5xx or a 429 (default 2, so 3 tries). */
  requestRetries?: number;
  /** Base of the per-request backoff after a network error or a 5xx (default 500 ms, doubled each retry). */
  retryBackoffMs?: number;
  /** A 429 whose `Retry-After` asks for longer than this is not waited for (default 60 s). */
  maxRetryAfterMs?: number;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
}

export type ApiFailureKind = 'network' | 'http' | 'rate_limited' | 'protocol';

/** A request that failed after its bounded retries. The message never contains the key. */
export class ApiFailure extends Error {
  constructor(
    readonly kind: ApiFailureKind,
    message: string,
    readonly details: { status?: number; code?: string; retryable?: boolean; nextAction?: string; requestId?: string; retryAfterMs?: number } = {},
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

export interface HttpClient {
  /** GET `/api/v1${path}` with the query; resolves the parsed success body or throws `ApiFailure`. */
  get<T>(path: string, query?: Record<string, string | number | undefined>): Promise<T>;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
}

const TRANSIENT_STATUSES = new Set([500, 502, 503, 504]);
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Full-range jitter on the upper half: a delay in [base/2, base). */
export function jittered(baseMs: number, random: () => number): number {
  return Math.round(baseMs / 2 + (baseMs / 2) * random());
}

export function createHttpClient(options: HttpOptions): HttpClient {
  const apiKey = options.apiKey;
  if (!apiKey) throw new TypeError('apiKey is required');
  const origin = options.baseUrl.replace(/\/+$/, '');
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const retries = Math.max(0, options.requestRetries ?? 2);
  const retryBackoffMs = options.retryBackoffMs ?? 500;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function once<T>(url: string): Promise<T> {
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'GET',
        headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      // Only the error's class and message: the request (and its headers) are never echoed.
      throw new ApiFailure('network', `request failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    const text = await res.text().catch(() => '');
    let body: any = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    if (res.ok) {
      if (body === null || typeof body !== 'object') throw new ApiFailure('protocol', `HTTP ${res.status} without a JSON body`, { status: res.status });
      return body as T;
    }
    const error = body && typeof body === 'object' && body.error && typeof body.error === 'object' ? body.error : {};
    const details = {
      status: res.status,
      code: typeof error.code === 'string' ? error.code : undefined,
      retryable: typeof error.retryable === 'boolean' ? error.retryable : undefined,
      nextAction: typeof error.next_action === 'string' ? error.next_action : undefined,
      requestId: typeof body?.request_id === 'string' ? body.request_id : undefined,
    };
    if (res.status === 429) {
      const seconds = Number(res.headers.get('retry-after'));
      const retryAfterMs = Number.isFinite(seconds) && seconds >= 0 ? Math.max(1, Math.ceil(seconds)) * 1000 : 1000;
      throw new ApiFailure('rate_limited', `HTTP 429 ${details.code ?? ''}`.trim(), { ...details, retryAfterMs });
    }
    throw new ApiFailure('http', `HTTP ${res.status} ${details.code ?? ''}`.trim(), details);
  }

  return {
    sleep,
    random,
    async get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
      const qs = params.toString();
      const url = `${origin}/api/v1${path}${qs ? `?${qs}` : ''}`;
      for (let retry = 0; ; retry++) {
        try {
          return await once<T>(url);
        } catch (error) {
          if (!(error instanceof ApiFailure) || retry >= retries) throw error;
          if (error.kind === 'network' || (error.kind === 'http' && TRANSIENT_STATUSES.has(error.details.status ?? 0))) {
            await sleep(jittered(retryBackoffMs * 2 ** retry, random));
          } else if (error.kind === 'rate_limited' && (error.details.retryAfterMs ?? Infinity) <= maxRetryAfterMs) {
            // Section 7: wait until the window ends; a little jitter spreads clients sharing a workspace.
            await sleep(error.details.retryAfterMs! + Math.round(250 * random()));
          } else {
            throw error;
          }
        }
      }
    },
  };
}
