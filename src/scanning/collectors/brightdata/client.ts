/**
 * The Bright Data Scraper API transport (docs.brightdata.com: "Send your
 * first request", "Asynchronous requests", "Monitor progress", "Download
 * snapshot"):
 *
 *   POST /datasets/v3/scrape?dataset_id=…&format=json&include_errors=true
 *        {"input":[{"url":…}, …]}   up to 20 URLs, answers within a minute:
 *        200 with the records, or 202 with {snapshot_id} when it takes longer
 *   POST /datasets/v3/trigger?dataset_id=…&format=json&include_errors=true[&type=discover_new&discover_by=…]
 *        200 {snapshot_id}
 *   GET  /datasets/v3/progress/{snapshot_id}   {status: starting|running|ready|failed}
 *   GET  /datasets/v3/snapshot/{snapshot_id}?format=json   200 records; 409 not ready yet
 *
 * Statuses: 401/403 refuse the key (no retry helps); 402 (funds) and 429
 * (rate or concurrency limits, e.g. "Maximum limit of 100 jobs per dataset")
 * defer; 5xx, timeouts and dropped connections are transient. Each exchange
 * is bounded in time and size; redirects are never followed (the key would
 * go with them).
 *
 * It does not batch, map records, take quota permits or keep a budget
 * (collector.ts does), and its errors never carry the key or a person's URL.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeJson, parseRetryAfter, readCapped, USER_AGENT } from '../provider-http.js';
import type { BrightDataRecord } from './records.js';

/** A call's failure: what the collector does with every item of the batch. */
export class BrightDataCallError extends Error {
  constructor(
    readonly reason: string,
    readonly disposition: { kind: 'retry' } | { kind: 'fail' } | { kind: 'defer'; retryAfterMs: number | null },
  ) {
    super(reason);
    this.name = 'BrightDataCallError';
  }
}

export interface BrightDataClientOptions {
  baseUrl: string;
  apiKey: string;
  /** One HTTP exchange (a synchronous /scrape waits up to a minute on the provider's side). */
  exchangeTimeoutMs?: number;
  /** Pause between progress polls. */
  pollIntervalMs: number;
  maxResponseBytes?: number;
}

export type ScrapeAnswer = { records: BrightDataRecord[] } | { snapshotId: string };

const SNAPSHOT_ID = /^[A-Za-z0-9_-]{1,128}$/;

export class BrightDataClient {
  readonly #base: string;
  readonly #authorization: string;
  readonly #exchangeTimeoutMs: number;
  readonly #pollIntervalMs: number;
  readonly #maxBytes: number;

  constructor(options: BrightDataClientOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#authorization = `Bearer ${options.apiKey}`;
    this.#exchangeTimeoutMs = options.exchangeTimeoutMs ?? 90_000;
    this.#pollIntervalMs = options.pollIntervalMs;
    this.#maxBytes = options.maxResponseBytes ?? 100 * 1024 * 1024;
  }

  /** The synchronous endpoint: the records, or the snapshot it turned into. */
  async scrape(datasetId: string, urls: string[], signal: AbortSignal): Promise<ScrapeAnswer> {
    const { status, json } = await this.#exchange(
      'POST',
      '/datasets/v3/scrape',
      { dataset_id: datasetId, format: 'json', include_errors: 'true' },
      urls,
      signal,
    );
    if (status === 202) return { snapshotId: snapshotIdOf(json) };
    const snapshot = json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>).snapshot_id : undefined;
    if (typeof snapshot === 'string') return { snapshotId: snapshotIdOf(json) };
    return { records: recordsOf(json) };
  }

  /** The asynchronous endpoint: a snapshot id. `discover` adds discovery parameters (e.g. posts by profile URL). */
  async trigger(datasetId: string, urls: string[], signal: AbortSignal, discover?: Record<string, string>): Promise<string> {
    const query = { dataset_id: datasetId, format: 'json', include_errors: 'true', ...discover };
    const { json } = await this.#exchange('POST', '/datasets/v3/trigger', query, urls, signal);
    return snapshotIdOf(json);
  }

  /** Polls the snapshot until it is ready, then downloads its records. */
  async collectSnapshot(snapshotId: string, signal: AbortSignal): Promise<BrightDataRecord[]> {
    for (;;) {
      const { json } = await this.#exchange('GET', `/datasets/v3/progress/${encodeURIComponent(snapshotId)}`, {}, null, signal);
      const state = json !== null && typeof json === 'object' ? (json as Record<string, unknown>).status : undefined;
      if (state === 'failed') throw new BrightDataCallError('provider snapshot failed', { kind: 'retry' });
      if (state === 'ready') {
        const download = await this.#exchange('GET', `/datasets/v3/snapshot/${encodeURIComponent(snapshotId)}`, { format: 'json' }, null, signal, [409]);
        if (download.status === 200) return recordsOf(download.json);
        // 409: "Snapshot is not ready for download" although progress said ready: poll again.
      } else if (state !== 'starting' && state !== 'running' && state !== 'building' && state !== 'collecting' && state !== 'digesting') {
        throw new BrightDataCallError('provider returned a malformed answer', { kind: 'retry' });
      }
      try {
        await sleep(this.#pollIntervalMs, undefined, { signal });
      } catch {
        throw new BrightDataCallError('collection aborted', { kind: 'retry' });
      }
    }
  }

  async #exchange(
    method: 'GET' | 'POST',
    path: string,
    query: Record<string, string>,
    urls: string[] | null,
    callerSignal: AbortSignal,
    acceptedStatuses: number[] = [],
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
            ...(urls ? { 'content-type': 'application/json' } : {}),
          },
          body: urls ? JSON.stringify({ input: urls.map((u) => ({ url: u })) }) : undefined,
          signal,
          redirect: 'manual',
        });
      } catch {
        throw transportError(callerSignal, timeout);
      }
      const status = response.status;
      if (status === 200 || status === 202 || acceptedStatuses.includes(status)) {
        let bytes: Buffer;
        try {
          bytes = await readCapped(response, this.#maxBytes, () => new BrightDataCallError('provider answer too large', { kind: 'retry' }));
        } catch (error) {
          if (error instanceof BrightDataCallError) throw error;
          throw transportError(callerSignal, timeout);
        }
        if (status !== 200 && status !== 202) return { status, json: null };
        const json = bytes.length === 0 ? null : decodeJson(bytes);
        if (json === undefined) throw new BrightDataCallError('provider returned a malformed answer', { kind: 'retry' });
        return { status, json };
      }
      if (status === 401 || status === 403) throw new BrightDataCallError('provider rejected credentials', { kind: 'fail' });
      if (status === 402) throw new BrightDataCallError('provider account has insufficient funds', { kind: 'defer', retryAfterMs: 15 * 60_000 });
      if (status === 429)
        throw new BrightDataCallError('provider answered 429', { kind: 'defer', retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) });
      if (status === 503 && response.headers.get('retry-after') !== null) {
        throw new BrightDataCallError('provider answered 503', { kind: 'defer', retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) });
      }
      if (status === 408 || status >= 500) throw new BrightDataCallError(`provider answered ${status}`, { kind: 'retry' });
      // 3xx, 400, 404 …: our request or configuration is wrong; retrying cannot help.
      throw new BrightDataCallError(`provider answered ${status}`, { kind: 'fail' });
    } finally {
      local.abort();
    }
  }
}

function transportError(callerSignal: AbortSignal, timeout: AbortSignal): BrightDataCallError {
  if (callerSignal.aborted) return new BrightDataCallError('collection aborted', { kind: 'retry' });
  return new BrightDataCallError(timeout.aborted ? 'provider timed out' : 'provider connection failed', { kind: 'retry' });
}

function snapshotIdOf(json: unknown): string {
  const id = json !== null && typeof json === 'object' ? (json as Record<string, unknown>).snapshot_id : undefined;
  if (typeof id !== 'string' || !SNAPSHOT_ID.test(id)) throw new BrightDataCallError('provider returned a malformed answer', { kind: 'retry' });
  return id;
}

/** The records of an answer: a JSON array of objects (a lone object is one record). */
function recordsOf(json: unknown): BrightDataRecord[] {
  const items = Array.isArray(json) ? json : json !== null && typeof json === 'object' ? [json] : null;
  if (items === null) throw new BrightDataCallError('provider returned a malformed answer', { kind: 'retry' });
  return items.filter((r): r is BrightDataRecord => r !== null && typeof r === 'object' && !Array.isArray(r));
}
