/**
 * The in-process scan worker of `serve`, on a thread of its own
 * (node:worker_threads): its event loop, its database pool. Collection,
 * storing and check evaluation then never delay an API response on the main
 * thread, whatever backlog the worker drains (image work runs in sharp's own
 * thread pool in either case).
 *
 * `startWorkerThread` is called on the main thread; the same file is the
 * thread's entry (it runs `runThread` when loaded as a worker). The thread
 * connects to the database URL the main thread already resolved (the
 * embedded PostgreSQL is started once, by the main thread).
 *
 * What crosses the thread boundary (messages): the thread's log records,
 * already serialized and redacted by its own logger, which the main thread
 * writes to its destination (one log stream per process); its metrics
 * (items, provider calls, its pool and event-loop lag), recorded in the main
 * thread's registry (src/metrics.ts); and start / stop. `stop` carries the
 * shutdown budget: the thread drains its items for at most that long, then
 * hands the rest back to the queue (ScanWorker.stop).
 *
 * It knows nothing of HTTP; it is `profile-scan worker` inside `serve`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Metrics, ThreadMetric } from '../metrics.js';

interface ThreadData {
  config: Config;
  databaseUrl: string;
  concurrency: number;
}

type ToThread = { type: 'stop'; timeoutMs: number };
type FromThread =
  | { type: 'log'; line: string }
  | { type: 'metric'; metric: ThreadMetric }
  | { type: 'started' }
  | { type: 'stopped'; finished: number; released: number }
  | { type: 'failed'; message: string };

export interface WorkerThreadHandle {
  /** Drains for at most `timeoutMs`, hands what is left back to the queue, and ends the thread. */
  stop(timeoutMs?: number): Promise<void>;
}

/** Starts the scan worker thread and waits until it is claiming items. */
export async function startWorkerThread(options: {
  config: Config;
  databaseUrl: string;
  concurrency: number;
  logger: Logger;
  metrics?: Metrics | null;
  /** Called when the thread ends without being asked to (readiness then fails). */
  onUnexpectedExit?: () => void;
}): Promise<WorkerThreadHandle> {
  const { logger } = options;
  const { forwardLine } = await import('../logger.js');
  // sharp (libvips) must be loaded by the main thread before any worker
  // thread loads it, or unloading the thread can crash the process.
  await import('sharp');
  const data: ThreadData = { config: options.config, databaseUrl: options.databaseUrl, concurrency: options.concurrency };
  const self = import.meta.url;
  let thread: Worker;
  if (self.endsWith('.ts')) {
    // Running from the TypeScript sources (tests): the thread needs tsx's loader too.
    const tsx = import.meta.resolve('tsx/esm/api');
    const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(self)}); })`;
    thread = new Worker(boot, { eval: true, workerData: data });
  } else {
    thread = new Worker(new URL(self), { workerData: data });
  }

  let stopping = false;
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  const stopped = new Promise<void>((resolve) => {
    thread.on('message', (message: FromThread) => {
      if (message.type === 'log') forwardLine(logger, message.line);
      else if (message.type === 'metric') options.metrics?.applyThreadMetric(message.metric);
      else if (message.type === 'stopped') resolve();
    });
  });
  await new Promise<void>((resolve, reject) => {
    thread.on('message', (message: FromThread) => {
      if (message.type === 'started') resolve();
      if (message.type === 'failed') reject(new Error(`scan worker thread: ${message.message}`));
    });
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`scan worker thread exited with code ${code} while starting`)));
  });
  thread.on('error', (error) => logger.error({ err: error }, 'scan worker thread failed'));
  void exited.then(() => {
    if (stopping) return;
    logger.error('the scan worker thread exited unexpectedly; this process no longer scans');
    options.onUnexpectedExit?.();
  });

  return {
    stop: async (timeoutMs = options.config.shutdownTimeoutMs) => {
      stopping = true;
      thread.postMessage({ type: 'stop', timeoutMs } satisfies ToThread);
      await Promise.race([stopped, exited]);
      await exited;
    },
  };
}

async function runThread(data: ThreadData): Promise<void> {
  const port = parentPort!;
  const send = (message: FromThread) => port.postMessage(message);
  const [{ openRuntime }, { startScanWorker, workerPoolSizes }, { OffsetClock, systemClock }, { lineLogger }, { ThreadMetricsSink }, { narrowImageWork }] =
    await Promise.all([
      import('../runtime.js'),
      import('./worker.js'),
      import('../clock.js'),
      import('../logger.js'),
      import('../metrics.js'),
      import('./media/image-work.js'),
    ]);
  // The API shares this process's cores: image work takes at most one of them.
  narrowImageWork(1);
  const config: Config = { ...data.config, databaseUrl: data.databaseUrl };
  const logger = lineLogger(config.logLevel, 'worker-thread', (line) => send({ type: 'log', line }));
  const log = (message: string) => logger.info(message);
  let runtime;
  try {
    runtime = await openRuntime(config, { ...workerPoolSizes(data.concurrency), log });
  } catch (error) {
    send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  const metrics = new ThreadMetricsSink((metric) => send({ type: 'metric', metric }));
  // The thread's view of database outages, counted by the main thread's registry.
  runtime.availability.subscribe((event) => {
    if (event.kind === 'lost') send({ type: 'metric', metric: { kind: 'database', part: 'worker', event: 'outage', session: '' } });
    else
      send({ type: 'metric', metric: { kind: 'database', part: 'worker', event: 'reconnect', session: event.kind === 'restored' ? 'pool' : event.session } });
  });
  let worker;
  try {
    worker = await startScanWorker({
      runtime,
      config,
      clock: config.clockOffsetMs !== 0 ? new OffsetClock(config.clockOffsetMs) : systemClock,
      concurrency: data.concurrency,
      log,
      logger,
      metrics,
    });
  } catch (error) {
    await runtime.close();
    send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  // The thread's pool and event-loop delay, for the main thread's /metrics.
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  const pools = { worker: runtime.scanPool ?? runtime.pool, 'worker-durable': runtime.pool };
  const gauges = setInterval(() => {
    send({
      type: 'metric',
      metric: {
        kind: 'gauges',
        pools: Object.fromEntries(Object.entries(pools).map(([name, p]) => [name, { total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount }])),
        eventLoopLagSeconds: delay.percentile(99) / 1e9,
      },
    });
    delay.reset();
  }, 5000);
  gauges.unref();
  send({ type: 'started' });
  port.on('message', (message: ToThread) => {
    if (message.type !== 'stop') return;
    void (async () => {
      clearInterval(gauges);
      const result = await worker.stop({ timeoutMs: message.timeoutMs });
      await runtime.close();
      send({ type: 'stopped', ...result });
      port.close();
    })();
  });
}

if (!isMainThread && parentPort && (workerData as ThreadData | undefined)?.databaseUrl) {
  void runThread(workerData as ThreadData);
}
