/**
 * The Bright Data collector (COLLECTOR=brightdata; docs/collectors.md,
 * "Bright Data"): a person's profile from the profiles dataset, a person's
 * posts from the posts dataset (discovered by profile URL), the company page
 * from the companies dataset.
 *
 * Batching. The worker claims items one at a time, fairly (the queue's order
 * is unchanged); their collect() calls wait here, per dataset, for at most
 * `batchWindowMs` or until `batchMax` URLs are waiting, and go to the
 * provider as one call: up to 20 URLs to the synchronous /scrape (which may
 * turn into a snapshot), more — and every posts discovery — to the
 * asynchronous /trigger → progress → snapshot flow (client.ts). Each item
 * gets its own answer from the records of its input URL: one item's error
 * row or missing record never fails its batch-mates; a failed call fails,
 * retries or defers every item of the batch alike. An item whose signal
 * aborts (its time budget, a worker shutting down, a lost claim) leaves the
 * batch; the call goes on for the others.
 *
 * Cost. Each call takes one permit of the provider quota (concurrency and
 * start rate shared by every process: provider-quota.ts); polls and
 * downloads of a started job do not. With a daily record budget, a call first
 * reserves what it may be billed (one record per profile or company, up to
 * `postsPerPerson` per posts discovery) in PostgreSQL; when the budget is
 * spent the batch is deferred to the next UTC day (no attempt spent), and
 * what was not billed is given back after the call. The records billed for
 * an item are returned as `billed_records` and counted per workspace when its
 * result is stored.
 *
 * It does not download images (records' image URLs go to `linked_images`,
 * fetched by the scanning layer's safe fetcher), render evidence, or store
 * anything but the budget reservation.
 */
import type { BrightDataSettings } from '../../../config.js';
import type { CollectResult } from '../../../domain/collected.js';
import { isRfc3339 } from '../../../domain/rfc3339.js';
import type { Db } from '../../../store/database.js';
import { releaseProviderRecords, reserveProviderRecords } from '../../../store/provider-usage-repository.js';
import { CollectorError, type CollectRequest, type Collector } from '../collector.js';
import { PROVIDER_SLOT_LEASE_MARGIN_MS } from '../http-provider.js';
import { deferDelayMs } from '../provider-http.js';
import { LocalProviderQuota, SharedProviderQuota, type ProviderQuota } from '../provider-quota.js';
import { BrightDataCallError, BrightDataClient } from './client.js';
import { mapCompany, mapPost, mapProfile, recordError, recordInputUrl, recordWarning, type BrightDataRecord } from './records.js';

/** The synchronous endpoint's limit (docs: "Synchronous requests support up to 20 URLs"). */
export const SYNC_MAX_URLS = 20;
/** An error row asking us to slow down ("sending too many requests"): the item waits this long. */
const THROTTLED_ROW_DEFER_MS = 60_000;

type Group = 'profiles' | 'posts' | 'companies';

interface Waiting {
  request: CollectRequest;
  resolve(result: CollectResult): void;
  reject(error: CollectorError): void;
  settled: boolean;
}

export interface BrightDataCollectorOptions {
  settings: BrightDataSettings;
  /** Shares the quota and the daily budget with every process on the database; without it both hold in this process only (no budget). */
  db?: Db;
}

export class BrightDataCollector implements Collector {
  readonly name = 'brightdata';
  readonly timeoutMs: number;
  readonly #settings: BrightDataSettings;
  readonly #client: BrightDataClient;
  readonly #quota: ProviderQuota;
  readonly #db: Db | null;
  /** The provider's key in the shared quota table (its endpoint); the budget and billed records are keyed by `name`. */
  readonly #provider: string;
  readonly #queues = new Map<Group, { waiting: Waiting[]; timer: NodeJS.Timeout | null }>();

  constructor(options: BrightDataCollectorOptions) {
    const { settings } = options;
    this.#settings = settings;
    this.timeoutMs = settings.timeoutMs;
    this.#db = options.db ?? null;
    this.#provider = `${settings.baseUrl}/datasets/v3`;
    this.#client = new BrightDataClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, pollIntervalMs: settings.pollIntervalMs });
    const limits = { maxConcurrency: settings.maxConcurrency, maxPerSecond: settings.maxPerSecond };
    this.#quota = this.#db
      ? new SharedProviderQuota({ db: this.#db, provider: this.#provider, ...limits, leaseMs: 90_000 + PROVIDER_SLOT_LEASE_MARGIN_MS })
      : new LocalProviderQuota(limits);
  }

  collect(request: CollectRequest): Promise<CollectResult> {
    if (request.signal.aborted) return Promise.reject(aborted());
    const group: Group = request.kind === 'company_page' ? 'companies' : request.mode === 'activity' ? 'posts' : 'profiles';
    return new Promise<CollectResult>((resolve, reject) => {
      const waiting: Waiting = { request, resolve, reject, settled: false };
      const settle = (fn: () => void) => {
        if (waiting.settled) return;
        waiting.settled = true;
        request.signal.removeEventListener('abort', onAbort);
        fn();
      };
      const onAbort = () => settle(() => reject(aborted()));
      waiting.resolve = (result) => settle(() => resolve(result));
      waiting.reject = (error) => settle(() => reject(error));
      request.signal.addEventListener('abort', onAbort, { once: true });
      this.#enqueue(group, waiting);
    });
  }

  #enqueue(group: Group, waiting: Waiting): void {
    let queue = this.#queues.get(group);
    if (!queue) this.#queues.set(group, (queue = { waiting: [], timer: null }));
    queue.waiting.push(waiting);
    if (queue.waiting.filter((w) => !w.settled).length >= this.#settings.batchMax) this.#flush(group);
    else if (queue.timer === null) queue.timer = setTimeout(() => this.#flush(group), this.#settings.batchWindowMs);
  }

  #flush(group: Group): void {
    const queue = this.#queues.get(group);
    if (!queue) return;
    if (queue.timer !== null) clearTimeout(queue.timer);
    queue.timer = null;
    const batch = queue.waiting.filter((w) => !w.settled);
    queue.waiting = [];
    if (batch.length === 0) return;
    void this.#send(group, batch).catch((error: unknown) => {
      // A store failure (budget, quota): every item goes back to the queue.
      for (const w of batch) w.reject(new CollectorError('provider call failed', { retryable: true, cause: error }));
    });
  }

  async #send(group: Group, batch: Waiting[]): Promise<void> {
    const settings = this.#settings;
    const urls = [...new Set(batch.map((w) => w.request.url))];
    const expected = group === 'posts' ? urls.length * settings.postsPerPerson : urls.length;

    let reservedDay: string | null = null;
    if (settings.dailyRecordBudget !== null && this.#db) {
      reservedDay = await reserveProviderRecords(this.#db, this.name, expected, settings.dailyRecordBudget);
      if (reservedDay === null) {
        const deferMs = msUntilNextUtcDay(new Date()) + Math.floor(Math.random() * 60_000);
        for (const w of batch) w.reject(new CollectorError('provider daily record budget spent', { retryable: true, deferMs }));
        return;
      }
    }

    // The call goes on while any item of the batch still waits for it.
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), this.timeoutMs);
    const watch = setInterval(() => {
      if (batch.every((w) => w.settled)) stop.abort();
    }, 250);
    let billed = 0;
    try {
      const records = await this.#call(group, urls, stop.signal);
      billed = this.#answer(group, batch, records);
    } catch (error) {
      const failure = error instanceof BrightDataCallError ? error : new BrightDataCallError('provider connection failed', { kind: 'retry' });
      for (const w of batch) w.reject(collectorError(failure));
    } finally {
      clearTimeout(timer);
      clearInterval(watch);
      if (reservedDay !== null && this.#db) await releaseProviderRecords(this.#db, this.name, reservedDay, expected - billed);
    }
  }

  /** One provider job for the batch's URLs: its records. */
  async #call(group: Group, urls: string[], signal: AbortSignal): Promise<BrightDataRecord[]> {
    const { datasets, postsPerPerson } = this.#settings;
    const permit = await this.#quota.acquire(signal).catch(() => {
      throw new BrightDataCallError(signal.aborted ? 'collection aborted' : 'provider quota unavailable', { kind: 'retry' });
    });
    let snapshotId: string;
    try {
      if (group === 'posts') {
        snapshotId = await this.#client.trigger(datasets.posts, urls, signal, {
          type: 'discover_new',
          discover_by: 'profile_url',
          limit_per_input: String(postsPerPerson),
        });
      } else {
        const dataset = group === 'profiles' ? datasets.profiles : datasets.companies;
        if (urls.length <= SYNC_MAX_URLS) {
          const answer = await this.#client.scrape(dataset, urls, signal);
          if ('records' in answer) return answer.records;
          snapshotId = answer.snapshotId;
        } else {
          snapshotId = await this.#client.trigger(dataset, urls, signal);
        }
      }
    } finally {
      await permit.release();
    }
    return this.#client.collectSnapshot(snapshotId, signal);
  }

  /** Answers each waiting item from the records of its URL; returns the records billed. */
  #answer(group: Group, batch: Waiting[], records: BrightDataRecord[]): number {
    const byUrl = new Map<string, BrightDataRecord[]>();
    for (const record of records) {
      const url = recordInputUrl(record);
      if (url === null) continue;
      const key = urlKey(url);
      byUrl.set(key, [...(byUrl.get(key) ?? []), record]);
    }
    let billed = 0;
    const answered = new Set<string>();
    for (const w of batch) {
      const key = urlKey(w.request.url);
      const own = byUrl.get(key) ?? [];
      const data = own.filter((r) => recordError(r) === null);
      // Two items of one URL in one batch (two reports) share the records, billed once.
      if (!answered.has(key)) billed += data.length;
      answered.add(key);
      try {
        w.resolve(this.#result(group, w.request, own, data));
      } catch (error) {
        w.reject(error instanceof CollectorError ? error : new CollectorError('provider returned a malformed answer', { retryable: true, cause: error }));
      }
    }
    return billed;
  }

  #result(group: Group, request: CollectRequest, own: BrightDataRecord[], data: BrightDataRecord[]): CollectResult {
    if (data.length === 0) {
      const error = own.map(recordError).find((e) => e !== null) ?? null;
      if (error?.kind === 'inaccessible') return { outcome: 'inaccessible', reason: error.reason };
      if (error?.kind === 'deferred')
        throw new CollectorError('provider asked to slow down', { retryable: true, deferMs: deferDelayMs(THROTTLED_ROW_DEFER_MS) });
      if (error?.kind === 'failed') throw new CollectorError(error.reason, { retryable: true });
    }
    const base = { screenshots: [], billed_records: data.length };
    if (group === 'posts') {
      // No post for the profile: verified empty activity (the discovery ran and found none).
      const seen = new Set<string>();
      const activity = data
        .map((r) => mapPost(r, request.url))
        .filter((e): e is NonNullable<typeof e> => e !== null && !seen.has(e.external_id) && (seen.add(e.external_id), true));
      const warned = data.some((r) => recordWarning(r) !== null);
      return {
        outcome: 'ok',
        profile: null,
        activity,
        company: null,
        ...base,
        missing_sections: warned ? ['provider_warning'] : [],
        captured_at: capturedAt(data),
      };
    }
    if (data.length === 0) throw new CollectorError('provider returned no record', { retryable: true });
    const record = data[0];
    if (group === 'profiles') {
      const mapped = mapProfile(record);
      return {
        outcome: 'ok',
        profile: mapped.profile,
        activity: null,
        company: null,
        ...base,
        billed_records: 1,
        linked_images: mapped.images,
        missing_sections: mapped.missing,
        captured_at: capturedAt([record]),
      };
    }
    const mapped = mapCompany(record, request.url);
    return {
      outcome: 'ok',
      profile: null,
      activity: request.mode === 'activity' ? mapped.activity : null,
      company: mapped.company,
      ...base,
      billed_records: 1,
      linked_images: mapped.images,
      missing_sections: mapped.missing,
      captured_at: capturedAt([record]),
    };
  }
}

function aborted(): CollectorError {
  return new CollectorError('collection aborted', { retryable: true });
}

function collectorError(failure: BrightDataCallError): CollectorError {
  const d = failure.disposition;
  if (d.kind === 'fail') return new CollectorError(failure.reason, { retryable: false });
  if (d.kind === 'defer') return new CollectorError(failure.reason, { retryable: true, deferMs: deferDelayMs(d.retryAfterMs) });
  return new CollectorError(failure.reason, { retryable: true });
}

/** URLs compare as the provider may echo them: case, `www.` and a trailing slash aside. */
function urlKey(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname.toLowerCase().replace(/^www\./, '')}${decodeURIComponent(u.pathname).toLowerCase().replace(/\/+$/, '')}`;
  } catch {
    return url.trim().toLowerCase();
  }
}

/** The records' `timestamp` (when the provider collected them), else now. */
function capturedAt(records: BrightDataRecord[]): string {
  const stamps = records.map((r) => r.timestamp).filter((t): t is string => typeof t === 'string' && isRfc3339(t));
  return stamps.length > 0 ? new Date(Math.min(...stamps.map((t) => Date.parse(t)))).toISOString() : new Date().toISOString();
}

/** Milliseconds until the next UTC midnight, when the daily budget starts again. */
export function msUntilNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return next - now.getTime();
}
