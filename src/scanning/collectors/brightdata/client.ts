/**
 * The Bright Data Scraper API transport (docs.brightdata.com: "Synchronous
 * requests", "Asynchronous requests", "Monitor progress", "Download
 * snapshot"), each endpoint with the body its API reference documents:
 *
 *   POST /datasets/v3/scrape?dataset_id=…&format=json&include_errors=true
 *        {"input":[{"url":…}, …]}   up to 20 URLs, answers within a minute:
 *        200 with the records, or 202 (some captures: 200) with {snapshot_id, message}
 *   POST /datasets/v3/trigger?dataset_id=…&format=json&include_errors=true[&type=discover_new&discover_by=…&limit_per_input=N]
 *        [{"url":…}, …]   (a bare array; the options are in the query)   200 {snapshot_id}
 *   GET  /datasets/v3/progress/{snapshot_id}   {status: starting|running|building|collecting|digesting|ready|failed}
 *   GET  /datasets/v3/snapshot/{snapshot_id}?format=json   200 records; not ready yet: 409, or 200/202 with
 *        {"status":"running"|"building","message":"Snapshot is not ready yet, try again in 10s"}
 *
 * "Not ready" is recognised by its shape, never by its status code: a 2xx
 * body that is one object with `status`/`message` and no record fields is an
 * interim answer (the SDKs expect it under 202, the troubleshooting page and
 * captures show it under 200, also after progress said `ready`).
 *
 * Statuses: 401/403 refuse the key (no retry helps); 402 (funds) and 429
 * (rate or concurrency limits) defer; 5xx, 408, timeouts, refused and dropped
 * connections are an outage (the collector's breaker counts them); 400 is
 * logged with the provider's own message, URLs taken out. Each exchange is
 * bounded in time and size; redirects are never followed (the key would go
 * with them).
 *
 * It does not batch, map records, take quota permits, poll or keep a budget
 * (index.ts does), and its errors never carry the key or a person's URL.
 */
import { decodeJson, parseRetryAfter, readCapped, USER_AGENT } from '../provider-http.js';
import type { BrightDataRecord } from './records.js';

export type BrightDataEndpoint = 'scrape' | 'trigger' | 'progress' | 'snapshot';

export type CallDisposition = { kind: 'retry' } | { kind: 'fail' } | { kind: 'defer'; retryAfterMs: number | null };

/** A call's failure: what the collector does with every item of the batch. */
export class BrightDataCallError extends Error {
  constructor(
    readonly reason: string,
    readonly disposition: CallDisposition,
    /** The provider is down or unreachable (5xx, 408, timeout, refused or dropped connection): the breaker counts it. */
    readonly outage = false,
  ) {
    super(reason);
    this.name = 'BrightDataCallError';
  }
}

/** One HTTP exchange, as the metrics count it. */
export interface ExchangeObservation {
  dataset: string;
  endpoint: BrightDataEndpoint;
  /** ok, not_ready, refused (4xx), deferred (402/429), outage (5xx, timeout, connection). */
  outcome: 'ok' | 'not_ready' | 'refused' | 'deferred' | 'outage';
  seconds: number;
  reason: string | null;
}

export interface BrightDataClientOptions {
  baseUrl: string;
  apiKey: string;
  /** One HTTP exchange (a synchronous /scrape waits up to a minute on the provider's side). */
  exchangeTimeoutMs?: number;
  maxResponseBytes?: number;
  /** Runs every exchange (the collector's circuit breaker). */
  guard?: <T>(fn: () => Promise<T>, signal: AbortSignal) => Promise<T>;
  onExchange?: (observation: ExchangeObservation) => void;
  /** Operator log: a 400's message from the provider (URLs removed). */
  log?: (message: string) => void;
}

export type ScrapeAnswer = { records: BrightDataRecord[] } | { snapshotId: string };
export type ProgressState = 'ready' | 'pending' | 'failed' | 'gone';
export type DownloadAnswer = { kind: 'records'; records: BrightDataRecord[] } | { kind: 'not_ready' } | { kind: 'gone' };

const SNAPSHOT_ID = /^[A-Za-z0-9_-]{1,128}$/;
const PENDING_STATES = new Set(['starting', 'running', 'building', 'collecting', 'digesting', 'queued', 'pending']);
/** The members an interim ("not ready") answer has; a record has others (input, url, id, timestamp, error …). */
const INTERIM_KEYS = new Set(['status', 'message', 'snapshot_id', 'dataset_id', 'progress']);

/** A 2xx body that says "not ready" instead of carrying records: one object with status/message and nothing else of a record. */
export function isInterimAnswer(json: unknown): boolean {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return false;
  const object = json as Record<string, unknown>;
  const keys = Object.keys(object);
  if (!(typeof object.status === 'string' || typeof object.message === 'string')) return false;
  return keys.every((k) => INTERIM_KEYS.has(k));
}

/** The provider's message of a refusal, fit for a log line: URLs and control characters out, capped. */
export function refusalMessage(json: unknown): string {
  const object = json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  const raw = [object.error, object.message, object.error_message].find((v): v is string => typeof v === 'string') ?? '';
  return raw
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>')
    .replace(/\b(?:www\.)?linkedin\.com\/\S+/gi, '<url>')
    .replace(/[^\x20-\x7e]/g, ' ')
    .slice(0, 200)
    .trim();
}

export class BrightDataClient {
  readonly #base: string;
  readonly #authorization: string;
  readonly #exchangeTimeoutMs: number;
  readonly #maxBytes: number;
  readonly #guard: <T>(fn: () => Promise<T>, signal: AbortSignal) => Promise<T>;
  readonly #onExchange: (observation: ExchangeObservation) => void;
  readonly #log: (message: string) => void;

  constructor(options: BrightDataClientOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#authorization = `Bearer ${options.apiKey}`;
    this.#exchangeTimeoutMs = options.exchangeTimeoutMs ?? 90_000;
    this.#maxBytes = options.maxResponseBytes ?? 100 * 1024 * 1024;
    this.#guard = options.guard ?? ((fn) => fn());
    this.#onExchange = options.onExchange ?? (() => {});
    this.#log = options.log ?? (() => {});
  }

  /** The synchronous endpoint: the records, or the snapshot it turned into. */
  async scrape(datasetId: string, urls: string[], signal: AbortSignal): Promise<ScrapeAnswer> {
    const query = { dataset_id: datasetId, format: 'json', include_errors: 'true' };
    const { json } = await this.#exchange(datasetId, 'scrape', 'POST', '/datasets/v3/scrape', query, { input: urls.map((url) => ({ url })) }, signal);
    const snapshot = json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>).snapshot_id : undefined;
    if (typeof snapshot === 'string') return { snapshotId: snapshotIdOf(json) };
    if (isInterimAnswer(json)) throw new BrightDataCallError('provider answered not ready without a snapshot', { kind: 'retry' }, true);
    return { records: recordsOf(json) };
  }

  /** The asynchronous endpoint: a snapshot id. `discover` adds discovery parameters (e.g. posts by profile URL). */
  async trigger(datasetId: string, urls: string[], signal: AbortSignal, discover?: Record<string, string>): Promise<string> {
    const query = { dataset_id: datasetId, format: 'json', include_errors: 'true', ...discover };
    const { json } = await this.#exchange(
      datasetId,
      'trigger',
      'POST',
      '/datasets/v3/trigger',
      query,
      urls.map((url) => ({ url })),
      signal,
    );
    return snapshotIdOf(json);
  }

  /** Where a snapshot stands. */
  async progress(datasetId: string, snapshotId: string, signal: AbortSignal): Promise<ProgressState> {
    const { status, json } = await this.#exchange(
      datasetId,
      'progress',
      'GET',
      `/datasets/v3/progress/${encodeURIComponent(snapshotId)}`,
      {},
      undefined,
      signal,
      [404],
    );
    if (status === 404) return 'gone';
    const state = json !== null && typeof json === 'object' ? (json as Record<string, unknown>).status : undefined;
    if (state === 'ready') return 'ready';
    if (state === 'failed') return 'failed';
    if (typeof state === 'string' && PENDING_STATES.has(state)) return 'pending';
    throw new BrightDataCallError('provider returned a malformed answer', { kind: 'retry' }, true);
  }

  /** A snapshot's records, or "not ready" (409, or an interim answer under any 2xx), or gone (404). */
  async download(datasetId: string, snapshotId: string, signal: AbortSignal): Promise<DownloadAnswer> {
    const path = `/datasets/v3/snapshot/${encodeURIComponent(snapshotId)}`;
    const { status, json } = await this.#exchange(datasetId, 'snapshot', 'GET', path, { format: 'json' }, undefined, signal, [404, 409]);
    if (status === 404) return { kind: 'gone' };
    if (status === 409 || isInterimAnswer(json)) return { kind: 'not_ready' };
    return { kind: 'records', records: recordsOf(json) };
  }

  async #exchange(
    dataset: string,
    endpoint: BrightDataEndpoint,
    method: 'GET' | 'POST',
    path: string,
    query: Record<string, string>,
    body: unknown,
    callerSignal: AbortSignal,
    acceptedStatuses: number[] = [],
  ): Promise<{ status: number; json: unknown }> {
    const started = performance.now();
    const observe = (outcome: ExchangeObservation['outcome'], reason: string | null) =>
      this.#onExchange({ dataset, endpoint, outcome, seconds: (performance.now() - started) / 1000, reason });
    try {
      const answer = await this.#guard(() => this.#send(endpoint, method, path, query, body, callerSignal, acceptedStatuses), callerSignal);
      observe(answer.status === 409 || isInterimAnswer(answer.json) ? 'not_ready' : 'ok', null);
      return answer;
    } catch (error) {
      if (error instanceof BrightDataCallError) {
        const d = error.disposition.kind;
        observe(error.outage ? 'outage' : d === 'defer' ? 'deferred' : 'refused', error.reason);
      }
      throw error;
    }
  }

  async #send(
    endpoint: BrightDataEndpoint,
    method: 'GET' | 'POST',
    path: string,
    query: Record<string, string>,
    body: unknown,
    callerSignal: AbortSignal,
    acceptedStatuses: number[],
  ): Promise<{ status: number; json: unknown }> {
    const url = new URL(`${this.#base}${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const timeout = AbortSignal.timeout(this.#exchangeTimeoutMs);
    const local = new AbortController();
    const signal = AbortSignal.any([callerSignal, timeout, local.signal]);
    try {
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers: {
            authorization: this.#authorization,
            accept: 'application/json',
            'user-agent': USER_AGENT,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: body !== undefined ? JSON.stringify(body) : undefined,
          signal,
          redirect: 'manual',
        });
      } catch {
        throw transportError(callerSignal, timeout);
      }
      const status = response.status;
      const read = async (): Promise<Buffer> => {
        try {
          return await readCapped(response, this.#maxBytes, () => new BrightDataCallError('provider answer too large', { kind: 'retry' }));
        } catch (error) {
          if (error instanceof BrightDataCallError) throw error;
          throw transportError(callerSignal, timeout);
        }
      };
      if ((status >= 200 && status < 300) || acceptedStatuses.includes(status)) {
        const bytes = await read();
        if (status < 200 || status >= 300) return { status, json: null };
        const json = bytes.length === 0 ? null : decodeJson(bytes);
        if (json === undefined) throw new BrightDataCallError('provider returned a malformed answer', { kind: 'retry' }, true);
        return { status, json };
      }
      if (status === 401 || status === 403) throw new BrightDataCallError('provider rejected credentials', { kind: 'fail' });
      if (status === 402) throw new BrightDataCallError('provider account has insufficient funds', { kind: 'defer', retryAfterMs: 15 * 60_000 });
      if (status === 429)
        throw new BrightDataCallError('provider answered 429', { kind: 'defer', retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) });
      if (status === 503 && response.headers.get('retry-after') !== null) {
        throw new BrightDataCallError('provider answered 503', { kind: 'defer', retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) });
      }
      if (status === 408 || status >= 500) throw new BrightDataCallError(`provider answered ${status}`, { kind: 'retry' }, true);
      if (status === 400) {
        let message = '';
        try {
          message = refusalMessage(decodeJson(await read()));
        } catch {
          // The message is for the operator only; its absence changes nothing.
        }
        this.#log(`brightdata: ${endpoint} refused with 400: ${message || '(no message)'}`);
      }
      // 3xx, 400, 404 …: our request or configuration is wrong; retrying cannot help.
      throw new BrightDataCallError(`provider answered ${status}`, { kind: 'fail' });
    } finally {
      local.abort();
    }
  }
}

function transportError(callerSignal: AbortSignal, timeout: AbortSignal): BrightDataCallError {
  if (callerSignal.aborted) return new BrightDataCallError('collection aborted', { kind: 'retry' });
  return new BrightDataCallError(timeout.aborted ? 'provider timed out' : 'provider connection failed', { kind: 'retry' }, true);
}

function snapshotIdOf(json: unknown): string {
  const id = json !== null && typeof json === 'object' ? (json as Record<string, unknown>).snapshot_id : undefined;
  if (typeof id !== 'string' || !SNAPSHOT_ID.test(id)) throw new BrightDataCallError('provider returned a malformed answer', { kind: 'retry' }, true);
  return id;
}

/** The records of an answer: a JSON array of objects (a lone object is one record). */
function recordsOf(json: unknown): BrightDataRecord[] {
  const items = Array.isArray(json) ? json : json !== null && typeof json === 'object' ? [json] : null;
  if (items === null) throw new BrightDataCallError('provider returned a malformed answer', { kind: 'retry' }, true);
  return items.filter((r): r is BrightDataRecord => r !== null && typeof r === 'object' && !Array.isArray(r));
}
