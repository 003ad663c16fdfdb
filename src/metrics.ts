/**
 * Prometheus metrics (prom-client), one registry per process, served by
 * GET /metrics (src/http/ops.ts) behind METRICS_TOKEN or on METRICS_PORT.
 * Names and what to alert on: docs/operations.md, "Metrics".
 *
 * - HTTP: requests and their latency by method, route pattern and status;
 *   rate-limit refusals (429 rate_limited) by request kind.
 * - Queue: read from `scan_items` at scrape time (so every process shows the
 *   whole queue, whoever works it): items per mode and state, and the age of
 *   the oldest ready item per mode.
 * - Scan work: items processed by mode and outcome, item duration, provider
 *   calls by provider, dataset, endpoint and outcome with their latency,
 *   provider errors by reason; records billed, bought again after the
 *   provider lost a snapshot it had built, and dropped as unattributable,
 *   snapshot wait time; the circuit breaker's state is read from
 *   `provider_breakers` at scrape time (every process's worker). The scan
 *   worker of `serve` runs on a thread: it posts these observations to the
 *   main thread (`ThreadMetricsSink` → `applyThreadMetric`), which records them
 *   here, so one scrape of the process shows its thread's work too.
 * - Pool: connections in use, idle and waiting, per pool (api, worker).
 * - Database outages: times the process found the database unreachable, and
 *   its reconnections (the pools, the LISTEN session, the heartbeat).
 * - Process: prom-client's default metrics, event-loop lag included; the
 *   worker thread's event-loop lag as its own gauge.
 */
import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from './store/database.js';
import type { DatabaseAvailability, DatabaseEvent } from './store/database-availability.js';
import { BREAKER_FRESH_MS, readBreakerStates } from './store/brightdata-repository.js';
import { queueStatsByMode, type QueueStats } from './queue/stats.js';

const BREAKER_STATES = ['closed', 'open', 'half_open'] as const;

/** One exchange with a data provider, as /metrics counts it. */
export interface ProviderExchange {
  /** `http` (the bridge protocol) or `brightdata`. */
  provider: string;
  /** The dataset it was for (Bright Data), else `-`. */
  dataset: string;
  /** The endpoint (`scrape`, `trigger`, `progress`, `snapshot`; the bridge's `collect`). */
  endpoint: string;
  outcome: string;
  seconds: number;
  reason: string | null;
}

/** What a provider's records and breaker did, as /metrics counts it. */
export type ProviderEvent =
  | { kind: 'billed'; provider: string; dataset: string; records: number }
  | { kind: 'rebought'; provider: string; dataset: string; records: number }
  | { kind: 'unattributable'; provider: string; dataset: string; records: number }
  | { kind: 'snapshot_wait'; provider: string; dataset: string; seconds: number }
  | { kind: 'breaker'; provider: string; state: 'closed' | 'open' | 'half_open' };

/** What scan work reports; implemented on the registry, or by posting to the main thread. */
export interface WorkerMetrics {
  itemProcessed(mode: string, outcome: string, seconds: number): void;
  providerCall(outcome: string, seconds: number, reason: string | null): void;
  providerExchange(exchange: ProviderExchange): void;
  providerEvent(event: ProviderEvent): void;
}

export type ThreadMetric =
  | { kind: 'item'; mode: string; outcome: string; seconds: number }
  | { kind: 'provider'; outcome: string; seconds: number; reason: string | null }
  | { kind: 'exchange'; exchange: ProviderExchange }
  | { kind: 'provider_event'; event: ProviderEvent }
  | { kind: 'gauges'; pools: Record<string, PoolSnapshot>; eventLoopLagSeconds: number }
  | { kind: 'database'; part: string; event: 'outage' | 'reconnect'; session: string };

export interface PoolSnapshot {
  total: number;
  idle: number;
  waiting: number;
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const ITEM_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export class Metrics implements WorkerMetrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly rateLimited: Counter<'kind'>;
  readonly items: Counter<'mode' | 'outcome'>;
  readonly itemDuration: Histogram<'mode' | 'outcome'>;
  readonly providerCalls: Counter<'provider' | 'dataset' | 'endpoint' | 'outcome'>;
  readonly providerDuration: Histogram<'provider' | 'endpoint' | 'outcome'>;
  readonly providerErrors: Counter<'provider' | 'reason'>;
  readonly providerRecordsBilled: Counter<'provider' | 'dataset'>;
  readonly providerRecordsRebought: Counter<'provider' | 'dataset'>;
  readonly providerRecordsUnattributable: Counter<'provider' | 'dataset'>;
  readonly providerSnapshotWait: Histogram<'provider' | 'dataset'>;
  readonly providerBreaker: Gauge<'provider' | 'state'>;
  readonly maintenanceRuns: Counter<'task' | 'result'>;
  readonly maintenanceDeleted: Counter<'task'>;
  readonly #pools = new Map<string, () => PoolSnapshot>();
  readonly #threadGauges = new Map<string, PoolSnapshot>();
  readonly #threadLag: Gauge;
  #db: Db | null = null;

  constructor(options: { role: string; defaultMetrics?: boolean }) {
    const registry = this.registry;
    registry.setDefaultLabels({ role: options.role });
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'profile_scan_' });
    this.httpRequests = new Counter({
      name: 'profile_scan_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.httpDuration = new Histogram({
      name: 'profile_scan_http_request_duration_seconds',
      help: 'HTTP request latency (from receipt to the response sent), by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'],
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    });
    this.rateLimited = new Counter({
      name: 'profile_scan_rate_limit_refusals_total',
      help: 'Requests refused with 429 rate_limited, by request kind (read or write)',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.items = new Counter({
      name: 'profile_scan_items_processed_total',
      help: 'Scan items processed by this process, by mode and outcome (succeeded, inaccessible, failed, cancelled, retry, deferred, skipped, error)',
      labelNames: ['mode', 'outcome'],
      registers: [registry],
    });
    this.itemDuration = new Histogram({
      name: 'profile_scan_item_duration_seconds',
      help: 'Time from claim to the end of processing of one scan item, by mode and outcome',
      labelNames: ['mode', 'outcome'],
      buckets: ITEM_BUCKETS,
      registers: [registry],
    });
    this.providerCalls = new Counter({
      name: 'profile_scan_provider_calls_total',
      help: 'HTTP exchanges with a data provider, by provider (http, brightdata), dataset, endpoint and outcome',
      labelNames: ['provider', 'dataset', 'endpoint', 'outcome'],
      registers: [registry],
    });
    this.providerDuration = new Histogram({
      name: 'profile_scan_provider_call_duration_seconds',
      help: 'Latency of one HTTP exchange with a data provider, by provider, endpoint and outcome',
      labelNames: ['provider', 'endpoint', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
    this.providerErrors = new Counter({
      name: 'profile_scan_provider_errors_total',
      help: 'Failed exchanges with a data provider, by provider and reason (fixed texts, never the answer)',
      labelNames: ['provider', 'reason'],
      registers: [registry],
    });
    this.providerRecordsBilled = new Counter({
      name: 'profile_scan_provider_records_billed_total',
      help: 'Records a data provider bills (delivered, or built into a snapshot it then lost), by provider and dataset',
      labelNames: ['provider', 'dataset'],
      registers: [registry],
    });
    this.providerRecordsRebought = new Counter({
      name: 'profile_scan_provider_records_rebought_total',
      help: 'Records a data provider billed twice because it lost a snapshot it had built (also in records_billed), by provider and dataset',
      labelNames: ['provider', 'dataset'],
      registers: [registry],
    });
    this.providerRecordsUnattributable = new Counter({
      name: 'profile_scan_provider_records_unattributable_total',
      help: 'Delivered records that named no input of their call and were dropped, by provider and dataset',
      labelNames: ['provider', 'dataset'],
      registers: [registry],
    });
    this.providerSnapshotWait = new Histogram({
      name: 'profile_scan_provider_snapshot_wait_seconds',
      help: 'Time from waiting on a snapshot to its records, by provider and dataset',
      labelNames: ['provider', 'dataset'],
      buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers: [registry],
    });
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    this.providerBreaker = new Gauge({
      name: 'profile_scan_provider_breaker_state',
      help: "1 for a provider's circuit-breaker state, as stored for all processes (closed, open: collection paused, half_open: probing)",
      labelNames: ['provider', 'state'],
      registers: [registry],
      async collect() {
        // The stored state is every process's (a worker's breaker is not this process's); without a database, this process's own.
        const db = self.#db;
        if (!db) return;
        const rows = await readBreakerStates(db, BREAKER_FRESH_MS).catch(() => null);
        if (rows === null) return;
        this.reset();
        for (const row of rows) for (const state of BREAKER_STATES) this.set({ provider: row.provider, state }, state === row.state ? 1 : 0);
      },
    });
    this.maintenanceRuns = new Counter({
      name: 'profile_scan_maintenance_runs_total',
      help: 'Maintenance tasks run by this process, by task and result (ok, error)',
      labelNames: ['task', 'result'],
      registers: [registry],
    });
    this.maintenanceDeleted = new Counter({
      name: 'profile_scan_maintenance_rows_total',
      help: 'Rows (or media objects) removed or tombstoned by maintenance in this process, by task',
      labelNames: ['task'],
      registers: [registry],
    });

    const pools = this.#pools;
    const threadGauges = this.#threadGauges;
    const poolGauge = (name: string, help: string, pick: (s: PoolSnapshot) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['pool'],
        registers: [registry],
        collect() {
          this.reset();
          for (const [pool, snapshot] of pools) this.set({ pool }, pick(snapshot()));
          for (const [pool, snapshot] of threadGauges) this.set({ pool }, pick(snapshot));
        },
      });
    poolGauge('profile_scan_db_pool_connections', 'Open database connections, by pool', (s) => s.total);
    poolGauge('profile_scan_db_pool_in_use', 'Database connections checked out, by pool', (s) => s.total - s.idle);
    poolGauge('profile_scan_db_pool_waiting', 'Callers waiting for a database connection, by pool', (s) => s.waiting);
    this.#threadLag = new Gauge({
      name: 'profile_scan_worker_thread_eventloop_lag_seconds',
      help: "The scan worker thread's event-loop delay (p99 over the last interval)",
      registers: [registry],
    });

    // prom-client calls collect() with `this` bound to the gauge; the store's rows come from this object.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const metrics = this;
    // One query per scrape feeds both queue gauges (the registry collects metrics concurrently).
    new Gauge({
      name: 'profile_scan_queue_items',
      help: 'Scan items in the queue (all processes), by mode and state: ready (claimable now), scheduled (retry or deferral later), running',
      labelNames: ['mode', 'state'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const row of await metrics.#queueRows()) {
          this.set({ mode: row.mode, state: 'ready' }, row.ready);
          this.set({ mode: row.mode, state: 'scheduled' }, row.scheduled);
          this.set({ mode: row.mode, state: 'running' }, row.running);
        }
      },
    });
    new Gauge({
      name: 'profile_scan_queue_oldest_ready_age_seconds',
      help: 'Age of the oldest claimable scan item since it became ready, by mode (0 when none)',
      labelNames: ['mode'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const row of await metrics.#queueRows()) this.set({ mode: row.mode }, Math.max(0, row.oldest ?? 0));
      },
    });
  }

  #queue: Promise<QueueStats[]> | null = null;

  /** The queue's state per mode, read once per scrape (both gauges' collects share the query in flight). */
  #queueRows(): Promise<QueueStats[]> {
    const db = this.#db;
    if (!db) return Promise.resolve([]);
    if (this.#queue) return this.#queue;
    const rows = queueStatsByMode(db)
      .then((found) =>
        ['full_profile', 'activity'].map((mode) => found.find((r) => r.mode === mode) ?? { mode, ready: 0, scheduled: 0, running: 0, oldest: null }),
      )
      // The database not answering must not fail the scrape: the queue series are then absent (alert on them missing).
      .catch(() => []);
    this.#queue = rows;
    void rows.finally(() => {
      if (this.#queue === rows) this.#queue = null;
    });
    return rows;
  }

  /** The database the queue gauges are read from at scrape time. */
  useDatabase(db: Db): void {
    this.#db = db;
  }

  /** A pool whose use is reported under `name`. */
  watchPool(name: string, pool: pg.Pool): void {
    this.#pools.set(name, () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }));
  }

  itemProcessed(mode: string, outcome: string, seconds: number): void {
    this.items.inc({ mode, outcome });
    this.itemDuration.observe({ mode, outcome }, seconds);
  }

  providerCall(outcome: string, seconds: number, reason: string | null): void {
    this.providerExchange({ provider: 'http', dataset: '-', endpoint: 'collect', outcome, seconds, reason });
  }

  providerExchange(e: ProviderExchange): void {
    this.providerCalls.inc({ provider: e.provider, dataset: e.dataset, endpoint: e.endpoint, outcome: e.outcome });
    this.providerDuration.observe({ provider: e.provider, endpoint: e.endpoint, outcome: e.outcome }, e.seconds);
    if (e.reason !== null) this.providerErrors.inc({ provider: e.provider, reason: e.reason });
  }

  providerEvent(event: ProviderEvent): void {
    if (event.kind === 'billed') this.providerRecordsBilled.inc({ provider: event.provider, dataset: event.dataset }, event.records);
    else if (event.kind === 'rebought') this.providerRecordsRebought.inc({ provider: event.provider, dataset: event.dataset }, event.records);
    else if (event.kind === 'unattributable') this.providerRecordsUnattributable.inc({ provider: event.provider, dataset: event.dataset }, event.records);
    else if (event.kind === 'snapshot_wait') this.providerSnapshotWait.observe({ provider: event.provider, dataset: event.dataset }, event.seconds);
    else for (const state of BREAKER_STATES) this.providerBreaker.set({ provider: event.provider, state }, state === event.state ? 1 : 0);
  }

  // --- Database outages (store/database-availability.ts) ---------------------------------------

  readonly #databaseOutages = new Counter({
    name: 'profile_scan_database_outages_total',
    help: 'Times this process (part: api, worker) found the database unreachable after it had answered',
    labelNames: ['part'],
    registers: [this.registry],
  });
  readonly #databaseReconnects = new Counter({
    name: 'profile_scan_database_reconnects_total',
    help: 'Reconnections after the database was unreachable: the process reaching it again (session "pool"), and its long-lived sessions made again (listen, heartbeat)',
    labelNames: ['part', 'session'],
    registers: [this.registry],
  });

  /** Counts the outages and reconnections `availability` sees, under `part`. */
  watchDatabase(part: string, availability: DatabaseAvailability): void {
    availability.subscribe((event) => this.databaseEvent(part, event));
  }

  databaseEvent(part: string, event: DatabaseEvent): void {
    if (event.kind === 'lost') this.#databaseOutages.inc({ part });
    else this.#databaseReconnects.inc({ part, session: event.kind === 'restored' ? 'pool' : event.session });
  }

  // ----------------------------------------------------------------------------------------------

  /** Records an observation posted by the worker thread. */
  applyThreadMetric(metric: ThreadMetric): void {
    if (metric.kind === 'database') {
      if (metric.event === 'outage') this.#databaseOutages.inc({ part: metric.part });
      else this.#databaseReconnects.inc({ part: metric.part, session: metric.session });
    } else if (metric.kind === 'item') this.itemProcessed(metric.mode, metric.outcome, metric.seconds);
    else if (metric.kind === 'provider') this.providerCall(metric.outcome, metric.seconds, metric.reason);
    else if (metric.kind === 'exchange') this.providerExchange(metric.exchange);
    else if (metric.kind === 'provider_event') this.providerEvent(metric.event);
    else {
      for (const [name, snapshot] of Object.entries(metric.pools)) this.#threadGauges.set(name, snapshot);
      this.#threadLag.set(metric.eventLoopLagSeconds);
    }
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** Worker metrics of the worker thread: each observation is posted to the main thread. */
export class ThreadMetricsSink implements WorkerMetrics {
  constructor(private readonly post: (metric: ThreadMetric) => void) {}
  itemProcessed(mode: string, outcome: string, seconds: number): void {
    this.post({ kind: 'item', mode, outcome, seconds });
  }
  providerCall(outcome: string, seconds: number, reason: string | null): void {
    this.post({ kind: 'provider', outcome, seconds, reason });
  }
  providerExchange(exchange: ProviderExchange): void {
    this.post({ kind: 'exchange', exchange });
  }
  providerEvent(event: ProviderEvent): void {
    this.post({ kind: 'provider_event', event });
  }
}
