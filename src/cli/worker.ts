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
import { Health, startOpsServer } from '../http/ops.js';
import { createLogger, lifecycle, type Logger } from '../logger.js';
import { MaintenanceRunner } from '../maintenance.js';
import { Metrics } from '../metrics.js';
import { openRuntime } from '../runtime.js';
import { createMediaStore } from '../scanning/media/create-media-store.js';
import { startScanWorker, workerPoolSize } from '../scanning/worker.js';
import { UsageError } from './admin.js';
import { onShutdown, withDeadline } from './lifecycle.js';
import { applyTestHooks, serviceClock } from './serve.js';

export async function runWorker(config: Config, argv: string[], logger: Logger = createLogger(config.logLevel, 'worker')): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { concurrency: { type: 'string' } }, strict: true });
  const concurrency = values.concurrency === undefined ? Math.max(1, config.workerConcurrency) : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024) throw new UsageError('--concurrency takes an integer from 1 to 1024');
  let resolveStop!: (reason: string) => void;
  const stopRequested = new Promise<string>((resolve) => (resolveStop = resolve));
  onShutdown((signal) => resolveStop(`received ${signal}`));
  applyTestHooks(config, logger);

  const log = (message: string) => logger.info(message);
  const clock = serviceClock(config);
  const metrics = new Metrics({ role: 'worker' });
  const runtime = await openRuntime(config, { poolSize: workerPoolSize(concurrency), log, logger });
  const health = new Health(runtime.db);
  health.queue = 'starting';
  metrics.useDatabase(runtime.db);
  metrics.watchPool('worker', runtime.pool);
  let ops: Awaited<ReturnType<typeof startOpsServer>> | null = null;
  let worker: Awaited<ReturnType<typeof startScanWorker>> | null = null;
  let maintenance: MaintenanceRunner | null = null;
  try {
    if (config.metricsPort !== null) {
      ops = await startOpsServer({
        host: config.metricsHost,
        port: config.metricsPort,
        logger,
        health,
        metrics,
        metricsToken: config.metricsToken,
      });
      lifecycle(logger).info({ address: ops.address }, 'metrics and health listener started');
    }
    const media = await createMediaStore(config.media);
    await media.check();
    worker = await startScanWorker({ runtime, config, clock, concurrency, log, logger, metrics, media });
    health.queue = 'ready';
    maintenance = new MaintenanceRunner({ db: runtime.db, media, retention: config.retention, clock, logger, metrics });
    maintenance.start();
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
  await withDeadline(maintenance.stop(), config.shutdownTimeoutMs, 'the maintenance run').catch((error: unknown) =>
    logger.warn({ err: error }, 'shutdown: maintenance still running'),
  );
  const result = await worker.stop({ timeoutMs: Math.max(0, deadline - Date.now()) });
  await ops?.close();
  await runtime.close();
  lifecycle(logger).info(result, 'stopped');
  return 0;
}
