/**
 * `profile-scan worker [--concurrency N]`: scan workers only, against the same
 * database as the API (scale out by starting more of them). With METRICS_PORT
 * it also serves /livez, /readyz and /metrics there.
 *
 * On SIGTERM / SIGINT it stops claiming, lets the items in flight finish for
 * at most SHUTDOWN_TIMEOUT_SECONDS, hands the rest back to the queue, and
 * exits (src/scanning/worker.ts: stop).
 */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { Health } from '../http/ops.js';
import { createLogger, lifecycle, type Logger } from '../logger.js';
import type { MaintenanceRunner } from '../maintenance.js';
import { Metrics } from '../metrics.js';
import { openRuntime, scanQueue } from '../runtime.js';
import { RefreshScheduler } from './refresh-scheduler.js';
import { startScanWorker, workerPoolSizes } from '../scanning/worker.js';
import { UsageError } from './admin.js';
import { openMediaStore, startMaintenance, startOpsListener, stopMaintenance, stopSignal } from './role-start.js';
import { applyTestHooks, serviceClock } from './serve.js';

export async function runWorker(config: Config, argv: string[], logger: Logger = createLogger(config.logLevel, 'worker')): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { concurrency: { type: 'string' } }, strict: true });
  const concurrency = values.concurrency === undefined ? Math.max(1, config.workerConcurrency) : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024) throw new UsageError('--concurrency takes an integer from 1 to 1024');
  const stopRequested = stopSignal();
  applyTestHooks(config, logger);

  const log = (message: string) => logger.info(message);
  const clock = serviceClock(config);
  const metrics = new Metrics({ role: 'worker' });
  const runtime = await openRuntime(config, { ...workerPoolSizes(concurrency), log, logger });
  const health = new Health(runtime.db, runtime.availability);
  health.queue = 'starting';
  metrics.useDatabase(runtime.db);
  metrics.watchDatabase('worker', runtime.availability);
  metrics.watchPool('worker', runtime.scanPool ?? runtime.pool);
  metrics.watchPool('worker-durable', runtime.pool);
  let ops: Awaited<ReturnType<typeof startOpsListener>> = null;
  let worker: Awaited<ReturnType<typeof startScanWorker>> | null = null;
  let maintenance: MaintenanceRunner | null = null;
  const scheduler = new RefreshScheduler({ db: runtime.db, clock, queue: scanQueue(), logger, intervalMs: config.refreshScheduleIntervalMs });
  try {
    ops = await startOpsListener(config, { logger, health, metrics });
    const media = await openMediaStore(config);
    worker = await startScanWorker({ runtime, config, clock, concurrency, log, logger, metrics, media });
    health.queue = 'ready';
    maintenance = startMaintenance(config, { runtime, media, clock, logger, metrics });
    scheduler.start();
    lifecycle(logger).info({ concurrency, media: media.description }, `started with concurrency ${concurrency}`);
  } catch (error) {
    await ops?.close();
    await runtime.close();
    throw error;
  }

  const reason = await stopRequested;
  const deadline = Date.now() + config.shutdownTimeoutMs;
  lifecycle(logger).info({ reason, timeout_seconds: config.shutdownTimeoutMs / 1000 }, 'stopping: finishing items in progress');
  health.draining = true;
  await stopMaintenance(maintenance, config.shutdownTimeoutMs, logger);
  await scheduler.stop();
  const result = await worker.stop({ timeoutMs: Math.max(0, deadline - Date.now()) });
  await ops?.close();
  await runtime.close();
  lifecycle(logger).info(result, 'stopped');
  return 0;
}
