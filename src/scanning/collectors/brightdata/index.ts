/**
 * The Bright Data collector (COLLECTOR=brightdata; docs/collectors.md,
 * "Bright Data"): a person's profile from the profiles dataset, a person's
 * posts from the posts dataset (discovered by profile URL), the company page
 * from the companies dataset.
 *
 * Batching. The worker claims items one at a time, fairly (the queue's order
 * is unchanged); their collect() calls wait here, per dataset, and go to the
 * provider as one call once `batchMax` URLs wait, or once no URL has joined
 * for `batchWindowMs`, and at the latest BATCH_HOLD_WINDOWS windows after the
 * first: up to 20 URLs to the synchronous /scrape (which may turn into a
 * snapshot), more — and every posts discovery — to the asynchronous
 * /trigger → progress → snapshot flow (client.ts).
 *
 * Attribution. Each record goes to the item it names (records.ts,
 * `recordClaims`: `discovery_input`, then the input echo, then the author),
 * URLs compared by profile identity (domain/profile-url.ts). A record that
 * names no item of the call is counted and logged (no personal data), never
 * attributed. One item's error row or missing record never fails its
 * batch-mates. In activity mode a person's posts are `[]` only when the
 * provider observed there are none (its "No public posts were found" row);
 * when nothing was delivered for them, or only records that could not be
 * attributed, or their row failed, `activity` is null with `activity_gap`.
 *
 * Snapshots. A triggered snapshot is stored (store/brightdata-repository.ts)
 * with the inputs waiting on it before it is polled, soon at first and then
 * with pauses that grow with its age (domain/snapshot-polling.ts, capped by
 * `pollIntervalMs`); polls and downloads are
 * retried through outages, and an item claimed again (after a timeout, a
 * restart, another process) joins the stored snapshot instead of triggering
 * again, if it is of a workspace the snapshot was bought for (another
 * workspace buys its own). A downloaded snapshot settles its budget reservation once; a second
 * download (an item whose result was not stored) bills nothing. A snapshot
 * the provider built (its progress said ready) and then no longer has was
 * billed all the same: its items are bought again at once, and each counts
 * the records of both purchases (`purchases`; the progress answer carries no
 * record count, so the lost one is taken to have billed what the second
 * delivers for the same inputs).
 *
 * Outages. Every exchange runs through a circuit breaker (cockatiel): after
 * consecutive outage failures (5xx, 408, timeouts, refused or dropped
 * connections) it opens, items are deferred without spending an attempt, and
 * after growing pauses one probe call tests recovery. Its state is written to
 * PostgreSQL for the report page and /metrics.
 *
 * Cost. Each call takes one permit of the provider quota (provider-quota.ts).
 * With a daily record budget, a call reserves what it may be billed in
 * PostgreSQL, as much of the batch as fits: the rest waits (a little while
 * other calls' reservations are unsettled, else until the next UTC day), and
 * a posts discovery never asks for more posts per person than fit. What was
 * not billed is given back once the answer is in. A company page bought less
 * than `companyMaxAgeMs` ago for the same workspace is reused with its
 * capture time.
 *
 * It does not download images (records' image URLs go to `linked_images`,
 * fetched by the scanning layer's safe fetcher) or render evidence.
 */
import { BrokenCircuitError, circuitBreaker, CircuitState, ConsecutiveBreaker, ExponentialBackoff, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BrightDataSettings } from '../../../config.js';
import type { WorkerMetrics } from '../../../metrics.js';
import type { ActivityGap, CollectResult } from '../../../domain/collected.js';
import { normalizeProfileUrl } from '../../../domain/profile-url.js';
import { isRfc3339 } from '../../../domain/rfc3339.js';
import { snapshotPollPauseMs } from '../../../domain/snapshot-polling.js';
import {
  dropSnapshot,
  findSnapshots,
  pruneSnapshots,
  readCompanyPage,
  recordSnapshot,
  settleSnapshot,
  storeCompanyPage,
  writeBreakerState,
  type BreakerState,
  type StoredSnapshot,
} from '../../../store/brightdata-repository.js';
import type { Db } from '../../../store/database.js';
import { releaseProviderRecords, reserveProviderRecordsUpTo } from '../../../store/provider-usage-repository.js';
import { CollectorError, type CollectRequest, type Collector } from '../collector.js';
import { PROVIDER_SLOT_LEASE_MARGIN_MS } from '../http-provider.js';
import { deferDelayMs } from '../provider-http.js';
import { LocalProviderQuota, SharedProviderQuota, type ProviderQuota } from '../provider-quota.js';
import { BrightDataCallError, BrightDataClient, type ExchangeObservation } from './client.js';
import { mapCompany, mapPost, mapProfile, recordClaims, recordError, recordWarning, type BrightDataRecord } from './records.js';

/** The synchronous endpoint's limit (docs: "Synchronous requests support up to 20 URLs"). */
export const SYNC_MAX_URLS = 20;
/** An error row asking us to slow down ("sending too many requests"): the item waits this long. */
const THROTTLED_ROW_DEFER_MS = 60_000;
/** How long a stored snapshot is tried before its items go back to the queue: well within the days the provider keeps results. */
export const SNAPSHOT_KEEP_MS = 2 * 86_400_000;
/** A delivered snapshot is downloaded again (free) for an item claimed again within this time (its result was not stored). */
const REDELIVER_MS = 60 * 60_000;
/**
 * A batch that keeps growing (claims trickling in, each within a window of
 * the last: a loaded worker) goes out at the latest this many windows after
 * its first URL, so that its first items do not wait on an endless trickle.
 */
export const BATCH_HOLD_WINDOWS = 10;
/** How often a process deletes stored snapshots past SNAPSHOT_KEEP_MS. */
const PRUNE_EVERY_MS = 60 * 60_000;
/** Consecutive outage failures that open the breaker. */
const BREAKER_FAILURES = 5;
/** The breaker's pauses before a probe: growing from the first to the last. */
const BREAKER_FIRST_PAUSE_MS = 1_000;
const BREAKER_MAX_PAUSE_MS = 60_000;
/** While other calls' reservations are unsettled, what does not fit the budget waits this long (what they do not bill comes back). */
const BUDGET_SETTLE_WAIT_MS = 5_000;
/** A paused breaker's row is refreshed this often, so the report page can tell it from a process that is gone. */
const BREAKER_REFRESH_MS = 10_000;

type Group = 'profiles' | 'posts' | 'companies';

interface Waiting {
  request: CollectRequest;
  key: string;
  resolve(result: CollectResult): void;
  reject(error: CollectorError): void;
  settled: boolean;
}

/** What the collector reports to /metrics. */
export interface BrightDataObserver {
  exchange(observation: ExchangeObservation): void;
  recordsBilled(dataset: string, records: number): void;
  /** Records a lost snapshot had billed, bought again (also counted in recordsBilled). */
  recordsRebought(dataset: string, records: number): void;
  recordsUnattributable(dataset: string, records: number): void;
  snapshotWait(dataset: string, seconds: number): void;
  breaker(state: BreakerState): void;
}

export interface BrightDataCollectorOptions {
  settings: BrightDataSettings;
  /** Shares the quota, the daily budget, snapshots, company pages and the breaker's state with every process on the database. */
  db?: Db;
  log?: (message: string) => void;
  observer?: BrightDataObserver;
}

/** The collector's observations as worker metrics (provider `brightdata`). */
export function brightDataObserver(metrics: WorkerMetrics): BrightDataObserver {
  const provider = 'brightdata';
  return {
    exchange: (o) => metrics.providerExchange({ provider, dataset: o.dataset, endpoint: o.endpoint, outcome: o.outcome, seconds: o.seconds, reason: o.reason }),
    recordsBilled: (dataset, records) => metrics.providerEvent({ kind: 'billed', provider, dataset, records }),
    recordsRebought: (dataset, records) => metrics.providerEvent({ kind: 'rebought', provider, dataset, records }),
    recordsUnattributable: (dataset, records) => metrics.providerEvent({ kind: 'unattributable', provider, dataset, records }),
    snapshotWait: (dataset, seconds) => metrics.providerEvent({ kind: 'snapshot_wait', provider, dataset, seconds }),
    breaker: (state) => metrics.providerEvent({ kind: 'breaker', provider, state }),
  };
}

/** A URL's identity key: the normalized profile URL (domain/profile-url.ts). */
export function identityKey(url: string): string {
  const normalized = normalizeProfileUrl(url);
  return normalized.ok ? normalized.url : url.trim().toLowerCase();
}

/** The last path segment of an identity key (a profile's public id). */
function handleOf(key: string): string | null {
  try {
    return new URL(key).pathname.split('/').filter(Boolean).pop()?.toLowerCase() ?? null;
  } catch {
    return null;
  }
}

export class BrightDataCollector implements Collector {
  readonly name = 'brightdata';
  readonly timeoutMs: number;
  readonly #settings: BrightDataSettings;
  readonly #client: BrightDataClient;
  readonly #quota: ProviderQuota;
  readonly #db: Db | null;
  readonly #log: (message: string) => void;
  readonly #observer: BrightDataObserver | null;
  readonly #breaker: CircuitBreakerPolicy;
  #breakerOpens = 0;
  #breakerReason: string | null = null;
  #breakerWrittenAt = 0;
  /** The provider's key in the shared quota table (its endpoint); the budget and billed records are keyed by `name`. */
  readonly #provider: string;
  readonly #queues = new Map<Group, { waiting: Waiting[]; timer: NodeJS.Timeout | null; firstAt: number }>();
  #dataset: (group: Group) => string;
  #prunedAt = 0;

  constructor(options: BrightDataCollectorOptions) {
    const { settings } = options;
    this.#settings = settings;
    this.timeoutMs = settings.timeoutMs;
    this.#db = options.db ?? null;
    this.#log = options.log ?? (() => {});
    this.#observer = options.observer ?? null;
    this.#provider = `${settings.baseUrl}/datasets/v3`;
    this.#dataset = (group) => settings.datasets[group];
    this.#breaker = circuitBreaker(
      handleWhen((error) => error instanceof BrightDataCallError && error.outage),
      {
        halfOpenAfter: new ExponentialBackoff({ initialDelay: BREAKER_FIRST_PAUSE_MS, maxDelay: BREAKER_MAX_PAUSE_MS }),
        breaker: new ConsecutiveBreaker(BREAKER_FAILURES),
      },
    );
    this.#breaker.onBreak((failure) => {
      this.#breakerOpens++;
      const error = 'error' in failure ? failure.error : null;
      this.#breakerReason = error instanceof BrightDataCallError ? error.reason : 'provider unavailable';
      this.#log(`brightdata: provider unavailable (${this.#breakerReason}); collection paused, probing again after a pause`);
    });
    this.#breaker.onReset(() => {
      this.#breakerOpens = 0;
      this.#log('brightdata: provider answers again; collection resumed');
    });
    this.#breaker.onStateChange((state) => this.#publishBreaker(state));
    this.#client = new BrightDataClient({
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      exchangeTimeoutMs: settings.exchangeTimeoutMs,
      guard: (fn) => this.#breaker.execute(() => fn()),
      onExchange: (observation) => this.#observer?.exchange(observation),
      log: this.#log,
    });
    const limits = { maxConcurrency: settings.maxConcurrency, maxPerSecond: settings.maxPerSecond };
    this.#quota = this.#db
      ? new SharedProviderQuota({ db: this.#db, provider: this.#provider, ...limits, leaseMs: settings.exchangeTimeoutMs + PROVIDER_SLOT_LEASE_MARGIN_MS })
      : new LocalProviderQuota(limits);
  }

  /** Whether the breaker holds calls back now (for tests and tools). */
  get paused(): boolean {
    return this.#breaker.state === CircuitState.Open || this.#breaker.state === CircuitState.HalfOpen;
  }

  #publishBreaker(circuit: CircuitState): void {
    const state: BreakerState = circuit === CircuitState.Closed ? 'closed' : circuit === CircuitState.HalfOpen ? 'half_open' : 'open';
    this.#observer?.breaker(state);
    this.#breakerWrittenAt = Date.now();
    if (this.#db)
      void writeBreakerState(this.#db, this.name, state, state === 'closed' ? null : this.#breakerReason).catch(() => {
        // Only what the report page shows; the breaker itself holds in memory.
      });
  }

  /** How long an item waits while the breaker is open: growing with each reopening, jittered. */
  #pauseMs(): number {
    const base = Math.min(BREAKER_MAX_PAUSE_MS, BREAKER_FIRST_PAUSE_MS * 2 ** Math.max(0, this.#breakerOpens));
    if (this.paused && Date.now() - this.#breakerWrittenAt > BREAKER_REFRESH_MS) {
      this.#publishBreaker(this.#breaker.state);
    }
    return Math.ceil(base + Math.random() * base * 0.5);
  }

  collect(request: CollectRequest): Promise<CollectResult> {
    if (request.signal.aborted) return Promise.reject(aborted());
    const group: Group = request.kind === 'company_page' ? 'companies' : request.mode === 'activity' ? 'posts' : 'profiles';
    return new Promise<CollectResult>((resolve, reject) => {
      const waiting: Waiting = { request, key: identityKey(request.url), resolve, reject, settled: false };
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
      if (group === 'companies') {
        void this.#reusedCompany(waiting)
          .then((result) => (result ? waiting.resolve(result) : this.#enqueue(group, waiting)))
          .catch(() => this.#enqueue(group, waiting));
      } else {
        this.#enqueue(group, waiting);
      }
    });
  }

  /** A company page bought recently for the same workspace, as a result with its capture time; null when there is none. */
  async #reusedCompany(waiting: Waiting): Promise<CollectResult | null> {
    const workspaceId = waiting.request.imageShare?.workspaceId;
    if (!this.#db || !workspaceId || this.#settings.companyMaxAgeMs <= 0) return null;
    const page = await readCompanyPage(this.#db, { workspaceId, urlKey: waiting.key, maxAgeMs: this.#settings.companyMaxAgeMs });
    if (!page) return null;
    const result = this.#result('companies', waiting.request, [page.record], [page.record], { billable: false, gap: null, purchases: 1 });
    return result.outcome === 'ok' ? { ...result, captured_at: page.capturedAt.toISOString(), billed_records: 0 } : result;
  }

  #enqueue(group: Group, waiting: Waiting): void {
    if (waiting.settled) return;
    let queue = this.#queues.get(group);
    if (!queue) this.#queues.set(group, (queue = { waiting: [], timer: null, firstAt: 0 }));
    const now = Date.now();
    if (queue.waiting.length === 0) queue.firstAt = now;
    queue.waiting.push(waiting);
    if (queue.waiting.filter((w) => !w.settled).length >= this.#settings.batchMax) {
      this.#flush(group);
      return;
    }
    // The window starts again with each URL: claims that trickle in make one call, not one per window.
    const windowMs = this.#settings.batchWindowMs;
    const holdUntil = queue.firstAt + BATCH_HOLD_WINDOWS * windowMs;
    if (queue.timer !== null) clearTimeout(queue.timer);
    queue.timer = setTimeout(() => this.#flush(group), Math.max(0, Math.min(windowMs, holdUntil - now)));
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
      // A store failure (budget, quota, snapshots): every item goes back to the queue.
      for (const w of batch) w.reject(new CollectorError('provider call failed', { retryable: true, cause: error }));
    });
  }

  async #send(group: Group, batch: Waiting[]): Promise<void> {
    // The calls go on while any item of the batch still waits for them.
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), this.timeoutMs);
    const watch = setInterval(() => {
      if (batch.every((w) => w.settled)) stop.abort();
    }, 250);
    try {
      let rest = batch;
      if (this.#db) {
        if (Date.now() - this.#prunedAt > PRUNE_EVERY_MS) {
          this.#prunedAt = Date.now();
          // Snapshots the provider no longer keeps are of no use to anyone.
          await pruneSnapshots(this.#db, this.name, SNAPSHOT_KEEP_MS);
        }
        // Inputs a stored snapshot answers join it: never triggered (and paid) twice.
        const keys = [...new Set(batch.map((w) => w.key))];
        const stored = await findSnapshots(this.#db, { provider: this.name, group, urlKeys: keys, keepMs: SNAPSHOT_KEEP_MS, redeliverMs: REDELIVER_MS });
        const joined: Array<Promise<unknown>> = [];
        const taken = new Set<string>();
        for (const snapshot of stored) {
          // Only the workspaces it was bought for: another workspace buys its own (never records someone else paid for).
          const mine = rest.filter((w) => snapshot.urlKeys.includes(w.key) && !taken.has(w.key) && boughtFor(snapshot, w));
          if (mine.length === 0) continue;
          for (const w of mine) taken.add(w.key);
          rest = rest.filter((w) => !mine.includes(w));
          joined.push(this.#answerFromSnapshot(group, mine, snapshot, stop.signal));
        }
        await Promise.all([this.#buy(group, rest, stop.signal), ...joined]);
      } else {
        await this.#buy(group, rest, stop.signal);
      }
    } finally {
      clearTimeout(timer);
      clearInterval(watch);
    }
  }

  /**
   * Buys the records of these items: as many as the budget allows now; the
   * rest waits. `purchases` > 1: the provider lost that many minus one
   * snapshots it had built for them (each billed): every record delivered
   * counts that many times.
   */
  async #buy(group: Group, batch: Waiting[], signal: AbortSignal, purchases = 1): Promise<void> {
    if (batch.length === 0) return;
    const settings = this.#settings;
    let keys = [...new Set(batch.map((w) => w.key))];
    let limit = settings.postsPerPerson;
    let reservation: { day: string; records: number } | null = null;
    if (settings.dailyRecordBudget !== null && this.#db) {
      const perInput = group === 'posts' ? settings.postsPerPerson : 1;
      // Fewer posts left than a person's share: one person, with what is left.
      const grant = await reserveProviderRecordsUpTo(this.#db, this.name, {
        budget: settings.dailyRecordBudget,
        perInput,
        inputs: keys.length,
        partial: group === 'posts',
      });
      const inputs = grant.granted === 0 ? 0 : grant.granted >= perInput ? grant.granted / perInput : 1;
      if (group === 'posts' && grant.granted > 0) limit = Math.min(settings.postsPerPerson, grant.granted);
      const now = new Set(keys.slice(0, inputs));
      const later = batch.filter((w) => !now.has(w.key));
      if (later.length > 0) {
        const deferMs =
          grant.inFlightBefore > 0 || grant.granted > 0
            ? deferDelayMs(BUDGET_SETTLE_WAIT_MS)
            : msUntilNextUtcDay(new Date()) + Math.floor(Math.random() * 60_000);
        for (const w of later) w.reject(new CollectorError('provider daily record budget spent', { retryable: true, deferMs }));
      }
      keys = [...now];
      batch = batch.filter((w) => now.has(w.key));
      if (batch.length === 0) return;
      reservation = { day: grant.day, records: grant.granted };
    }

    const urls = keys.map((k) => batch.find((w) => w.key === k)!.request.url);
    let billed = 0;
    let settledHere = true;
    try {
      const answer = await this.#start(group, urls, limit, signal);
      if ('records' in answer) {
        // The budget counts every record billed, attributable or not.
        billed = answer.records.filter((r) => recordError(r) === null).length;
        this.#countBilled(group, billed, purchases);
        this.#answer(group, batch, answer.records, { billable: true, purchases });
      } else {
        settledHere = false;
        if (this.#db) {
          await recordSnapshot(this.#db, {
            snapshotId: answer.snapshotId,
            provider: this.name,
            datasetId: this.#dataset(group),
            group,
            urlKeys: keys,
            workspaceIds: batch.map((w) => w.request.imageShare?.workspaceId).filter((id): id is string => id !== undefined),
            reservedDay: reservation?.day ?? null,
            reserved: reservation?.records ?? 0,
          });
        } else {
          settledHere = true;
        }
        billed = await this.#answerFromSnapshot(group, batch, { snapshotId: answer.snapshotId, urlKeys: keys, delivered: false, workspaceIds: null }, signal, {
          stored: !settledHere,
          purchases,
        });
      }
    } catch (error) {
      for (const w of batch) w.reject(this.#collectorError(error));
    } finally {
      if (settledHere && reservation !== null && this.#db) {
        await releaseProviderRecords(this.#db, this.name, reservation.day, reservation.records - billed, reservation.records);
      }
    }
  }

  /** One provider job for these URLs: its records, or the snapshot it became. */
  async #start(group: Group, urls: string[], limit: number, signal: AbortSignal): Promise<{ records: BrightDataRecord[] } | { snapshotId: string }> {
    const dataset = this.#dataset(group);
    const permit = await this.#quota.acquire(signal).catch(() => {
      throw new BrightDataCallError(signal.aborted ? 'collection aborted' : 'provider quota unavailable', { kind: 'retry' });
    });
    try {
      if (group === 'posts') {
        return {
          snapshotId: await this.#client.trigger(dataset, urls, signal, { type: 'discover_new', discover_by: 'profile_url', limit_per_input: String(limit) }),
        };
      }
      if (urls.length <= SYNC_MAX_URLS) return await this.#client.scrape(dataset, urls, signal);
      return { snapshotId: await this.#client.trigger(dataset, urls, signal) };
    } finally {
      await permit.release();
    }
  }

  /** Counts records billed: `purchases` times each (the lost purchases among them also as bought again). */
  #countBilled(group: Group, records: number, purchases: number): void {
    const dataset = this.#dataset(group);
    this.#observer?.recordsBilled(dataset, records * purchases);
    if (purchases > 1) this.#observer?.recordsRebought(dataset, records * (purchases - 1));
  }

  /**
   * Waits for a snapshot and answers these items from it; returns the records
   * it billed (all of them, attributable or not). Outages and "not ready"
   * answers are waited through. A snapshot the provider failed or no longer
   * has is forgotten and its items retried; when its progress had said ready
   * (it was built, and billed), they are bought again at once, counting both
   * purchases.
   */
  async #answerFromSnapshot(
    group: Group,
    batch: Waiting[],
    snapshot: StoredSnapshot,
    signal: AbortSignal,
    options: { stored: boolean; purchases: number } = { stored: true, purchases: 1 },
  ): Promise<number> {
    const dataset = this.#dataset(group);
    const started = performance.now();
    const stored = options.stored && this.#db !== null;
    // Whether a progress answer said ready: the provider built the snapshot and bills it, delivered or not.
    let built = false;
    /** Forgets the snapshot the provider no longer has; unless it was built and this call forgot it, its items go back to the queue. */
    const forget = async (reason: string): Promise<void> => {
      const forgotten = stored ? await dropSnapshot(this.#db, this.name, snapshot.snapshotId, { built }) : true;
      // Only whoever forgot it counts the lost purchase (by buying again here); anyone else's items are retried.
      if (!built || !forgotten) throw new BrightDataCallError(reason, { kind: 'retry' });
      this.#log(`brightdata: a ${group} snapshot the provider had built is gone (${reason}); its ${batch.length} items are bought again`);
    };
    let rebuy = false;
    try {
      // A fresh snapshot is rarely ready at once: its first poll comes a little later.
      if (!snapshot.delivered) await pause(snapshotPollPauseMs(0, this.#settings.pollIntervalMs), signal);
      for (;;) {
        if (signal.aborted) throw new BrightDataCallError('collection aborted', { kind: 'retry' });
        let pauseMs = snapshotPollPauseMs(performance.now() - started, this.#settings.pollIntervalMs);
        try {
          const state = snapshot.delivered ? 'ready' : await this.#client.progress(dataset, snapshot.snapshotId, signal);
          if (state === 'failed' || state === 'gone') {
            await forget(state === 'failed' ? 'provider snapshot failed' : 'provider snapshot expired');
            rebuy = true;
            break;
          }
          if (state === 'ready') {
            built ||= !snapshot.delivered;
            const download = await this.#client.download(dataset, snapshot.snapshotId, signal);
            if (download.kind === 'gone') {
              await forget('provider snapshot expired');
              rebuy = true;
              break;
            }
            if (download.kind === 'records') {
              const billable = download.records.filter((r) => recordError(r) === null).length;
              const first = stored ? await settleSnapshot(this.#db, this.name, snapshot.snapshotId, billable) : true;
              if (first) this.#countBilled(group, billable, options.purchases);
              this.#observer?.snapshotWait(dataset, (performance.now() - started) / 1000);
              this.#answer(group, batch, download.records, { billable: first, purchases: options.purchases });
              return billable;
            }
            // Not ready although progress said ready ("building"): poll again.
          }
        } catch (error) {
          const paused = error instanceof BrokenCircuitError;
          if (!paused && !(error instanceof BrightDataCallError && error.outage)) throw error;
          // An outage: the snapshot is kept and polled again after a pause; never abandoned.
          pauseMs = Math.max(pauseMs, this.#pauseMs());
        }
        await pause(pauseMs, signal);
      }
    } catch (error) {
      const stillStored = stored && error instanceof BrightDataCallError && error.reason === 'collection aborted';
      // The snapshot stays stored: its items wait (no attempt spent) and join it when claimed again.
      const failure = stillStored
        ? new CollectorError('provider snapshot pending', { retryable: true, deferMs: deferDelayMs(this.#settings.pollIntervalMs) })
        : null;
      for (const w of batch) w.reject(failure ?? this.#collectorError(error));
      return 0;
    }
    // Built, billed and lost: bought again for the items still waiting, the lost purchase counted with it.
    if (rebuy)
      await this.#buy(
        group,
        batch.filter((w) => !w.settled),
        signal,
        options.purchases + 1,
      );
    return 0;
  }

  /** Answers each waiting item from the records attributed to it. */
  #answer(group: Group, batch: Waiting[], records: BrightDataRecord[], options: { billable: boolean; purchases: number }): void {
    const keys = new Set(batch.map((w) => w.key));
    const byHandle = new Map<string, string | null>();
    for (const key of keys) {
      const handle = handleOf(key);
      if (handle === null) continue;
      // Two inputs with one handle (different hosts): an id cannot tell them apart.
      byHandle.set(handle, byHandle.has(handle) ? null : key);
    }
    const byKey = new Map<string, BrightDataRecord[]>();
    let unattributable = 0;
    for (const record of records) {
      const claims = recordClaims(record);
      let owner = claims.urls.map(identityKey).find((k) => keys.has(k)) ?? null;
      owner ??= claims.ids.map((id) => byHandle.get(id.toLowerCase()) ?? null).find((k) => k !== null) ?? null;
      if (owner === null) {
        unattributable++;
        continue;
      }
      byKey.set(owner, [...(byKey.get(owner) ?? []), record]);
    }
    const dataset = this.#dataset(group);
    if (unattributable > 0) {
      this.#observer?.recordsUnattributable(dataset, unattributable);
      this.#log(`brightdata: ${unattributable} of ${records.length} records of a ${group} call named no input of the call; not attributed`);
    }
    const answered = new Set<string>();
    for (const w of batch) {
      const own = byKey.get(w.key) ?? [];
      const data = own.filter((r) => recordError(r) === null);
      // Two items of one URL in one batch (two reports) share the records, billed once.
      const billable = options.billable && !answered.has(w.key);
      answered.add(w.key);
      const gap: ActivityGap = unattributable > 0 ? 'unattributable' : 'not_delivered';
      try {
        const result = this.#result(group, w.request, own, data, { billable, gap, purchases: options.purchases });
        if (group === 'companies' && result.outcome === 'ok' && data.length > 0) this.#keepCompany(w, data[0], result.captured_at);
        w.resolve(result);
      } catch (error) {
        w.reject(error instanceof CollectorError ? error : new CollectorError('provider returned a malformed answer', { retryable: true, cause: error }));
      }
    }
  }

  #keepCompany(w: Waiting, record: BrightDataRecord, capturedAt: string): void {
    const workspaceId = w.request.imageShare?.workspaceId;
    if (!this.#db || !workspaceId || this.#settings.companyMaxAgeMs <= 0) return;
    void storeCompanyPage(this.#db, { workspaceId, urlKey: w.key, record, capturedAt }).catch(() => {
      // A page not kept is bought again next time; nothing is lost.
    });
  }

  #result(
    group: Group,
    request: CollectRequest,
    own: BrightDataRecord[],
    data: BrightDataRecord[],
    options: { billable: boolean; gap: ActivityGap | null; purchases: number },
  ): CollectResult {
    const billedRecords = (n: number) => (options.billable ? n * options.purchases : 0);
    let noPosts = false;
    if (data.length === 0) {
      const errors = own.map(recordError).filter((e) => e !== null);
      noPosts = errors.some((e) => e.kind === 'no_posts');
      const error = errors.find((e) => e.kind !== 'no_posts') ?? null;
      if (!noPosts) {
        if (error?.kind === 'inaccessible') return { outcome: 'inaccessible', reason: error.reason };
        if (error?.kind === 'deferred')
          throw new CollectorError('provider asked to slow down', { retryable: true, deferMs: deferDelayMs(THROTTLED_ROW_DEFER_MS) });
        if (error?.kind === 'failed' && group !== 'posts') throw new CollectorError(error.reason, { retryable: true });
      }
    }
    const base = { screenshots: [], billed_records: billedRecords(data.length) };
    if (group === 'posts') {
      const warned = data.some((r) => recordWarning(r) !== null);
      const common = { outcome: 'ok' as const, profile: null, company: null, ...base, missing_sections: warned ? ['provider_warning'] : [] };
      if (data.length === 0 && !noPosts) {
        // Nothing observed for this person: never "no posts".
        const gap: ActivityGap = own.length > 0 ? 'failed' : (options.gap ?? 'not_delivered');
        return { ...common, activity: null, activity_gap: gap, captured_at: new Date().toISOString() };
      }
      const seen = new Set<string>();
      const activity = data
        .map((r) => mapPost(r, request.url))
        .filter((e): e is NonNullable<typeof e> => e !== null && !seen.has(e.external_id) && (seen.add(e.external_id), true));
      return { ...common, activity, captured_at: capturedAt(data.length > 0 ? data : own) };
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
        billed_records: billedRecords(1),
        linked_images: mapped.images,
        missing_sections: mapped.missing,
        captured_at: capturedAt([record]),
      };
    }
    const mapped = mapCompany(record, request.url);
    const activity = request.mode === 'activity' ? mapped.activity : null;
    return {
      outcome: 'ok',
      profile: null,
      activity,
      ...(request.mode === 'activity' && activity === null ? { activity_gap: 'not_delivered' as const } : {}),
      company: mapped.company,
      ...base,
      billed_records: billedRecords(1),
      linked_images: mapped.images,
      missing_sections: mapped.missing,
      captured_at: capturedAt([record]),
    };
  }

  /** What a failed call means for each item of it. */
  #collectorError(error: unknown): CollectorError {
    if (error instanceof CollectorError) return error;
    if (error instanceof BrokenCircuitError) {
      return new CollectorError('provider unavailable: collection paused', { retryable: true, deferMs: this.#pauseMs() });
    }
    const failure = error instanceof BrightDataCallError ? error : new BrightDataCallError('provider connection failed', { kind: 'retry' }, true);
    // The provider being down is no fault of the item: it waits without spending an attempt.
    if (failure.outage) return new CollectorError(failure.reason, { retryable: true, deferMs: this.#pauseMs() });
    const d = failure.disposition;
    if (d.kind === 'fail') return new CollectorError(failure.reason, { retryable: false });
    if (d.kind === 'defer') return new CollectorError(failure.reason, { retryable: true, deferMs: deferDelayMs(d.retryAfterMs) });
    return new CollectorError(failure.reason, { retryable: true });
  }
}

/** Whether a waiting item may join a stored snapshot: one of the workspaces it was bought for (a snapshot stored without them: anyone). */
function boughtFor(snapshot: StoredSnapshot, w: Waiting): boolean {
  const workspaceId = w.request.imageShare?.workspaceId;
  return snapshot.workspaceIds === null || (workspaceId !== undefined && snapshot.workspaceIds.includes(workspaceId));
}

/** Waits, or ends the collection when its signal aborts. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw new BrightDataCallError('collection aborted', { kind: 'retry' });
  }
}

function aborted(): CollectorError {
  return new CollectorError('collection aborted', { retryable: true });
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
