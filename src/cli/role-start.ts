/**
 * What the two long-running roles, `serve` and `worker`, start and stop the
 * same way: the wait for a stop signal, the metrics and health listener
 * (METRICS_PORT), the evidence media store, and the maintenance runner with
 * its bounded stop. Each role's own story (the API and its first run; the
 * scan workers) stays in serve.ts and worker.ts.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { startOpsServer, type Health } from '../http/ops.js';
import { lifecycle, type Logger } from '../logger.js';
import { MaintenanceRunner } from '../maintenance.js';
import type { Metrics } from '../metrics.js';
import type { Runtime } from '../runtime.js';
import { createMediaStore } from '../scanning/media/create-media-store.js';
import type { MediaStore } from '../scanning/media/media-store.js';
import { onShutdown, withDeadline } from './lifecycle.js';

/** Resolves with the reason ("received SIGTERM") when the process is asked to stop; the handlers are in place from this call on. */
export function stopSignal(): Promise<string> {
  return new Promise<string>((resolve) => onShutdown((signal) => resolve(`received ${signal}`)));
}

/** The separate /metrics, /livez and /readyz listener when METRICS_PORT is set; null otherwise. */
export async function startOpsListener(config: Config, deps: { logger: Logger; health: Health; metrics: Metrics }) {
  if (config.metricsPort === null) return null;
  const ops = await startOpsServer({ host: config.metricsHost, port: config.metricsPort, metricsToken: config.metricsToken, ...deps });
  lifecycle(deps.logger).info({ address: ops.address }, 'metrics and health listener started');
  return ops;
}

/** The evidence media store of the configuration, checked (a missing bucket or an unwritable directory stops the start). */
export async function openMediaStore(config: Config): Promise<MediaStore> {
  const media = await createMediaStore(config.media);
  await media.check();
  return media;
}

/** Starts this process's maintenance runner (one runner at a time across all processes: maintenance.ts). */
export function startMaintenance(config: Config, deps: { runtime: Runtime; media: MediaStore; clock: Clock; logger: Logger; metrics: Metrics }) {
  const maintenance = new MaintenanceRunner({
    db: deps.runtime.db,
    media: deps.media,
    retention: config.retention,
    clock: deps.clock,
    logger: deps.logger,
    metrics: deps.metrics,
  });
  maintenance.start();
  return maintenance;
}

/** Stops the maintenance runner, waiting at most `timeoutMs` for a run in progress (it is then left to its own transaction). */
export async function stopMaintenance(maintenance: MaintenanceRunner, timeoutMs: number, logger: Logger): Promise<void> {
  await withDeadline(maintenance.stop(), timeoutMs, 'the maintenance run').catch((error: unknown) =>
    logger.warn({ err: error }, 'shutdown: maintenance still running'),
  );
}
