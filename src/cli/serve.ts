/**
 * `profile-scan serve` (npm start): the API server plus, by default, a scan
 * worker on a thread of its own (src/scanning/worker-thread.ts). On an empty
 * store it creates the workspace "Default" and a `*`-scoped test key and
 * prints the secret once, with a one-time sign-in link for the first owner.
 *
 * Lifecycle (docs/operations.md): signal handlers are in place before
 * anything starts (src/cli/lifecycle.ts). On SIGTERM / SIGINT: /readyz turns
 * 503, the listener stops accepting, requests in flight and the worker's
 * items drain for at most SHUTDOWN_TIMEOUT_SECONDS, items still in flight
 * then go back to the queue, and the process exits.
 */
import { OffsetClock, systemClock, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import { Health } from '../http/ops.js';
import { buildServer } from '../http/server.js';
import { announceTestHooks, createLogger, lifecycle, type Logger } from '../logger.js';
import type { MaintenanceRunner } from '../maintenance.js';
import { Metrics } from '../metrics.js';
import { openRuntime, scanQueue, startRollupSweep, type RollupSweep, type Runtime } from '../runtime.js';
import { RefreshScheduler } from './refresh-scheduler.js';
import { startWorkerThread, type WorkerThreadHandle } from '../scanning/worker-thread.js';
import { setTestPauseBeforeCommit } from '../use-cases/idempotent-write.js';
import { signingSecret } from '../use-cases/service-state.js';
import { accessLinkPath } from '../use-cases/workspace-members.js';
import { firstRun } from '../use-cases/first-run.js';
import { withDeadline } from './lifecycle.js';
import { openMediaStore, startMaintenance, startOpsListener, stopMaintenance, stopSignal } from './role-start.js';

export function serviceClock(config: Config): Clock {
  return config.clockOffsetMs !== 0 ? new OffsetClock(config.clockOffsetMs) : systemClock;
}

/** Logs test hooks loudly and applies them (every role calls this at start). */
export function applyTestHooks(config: Config, logger: Logger): void {
  announceTestHooks(logger, config.testHooks, {
    CLOCK_OFFSET_MS: config.clockOffsetMs,
    PS_TEST_PAUSE_BEFORE_COMMIT_MS: config.testHooks.pauseBeforeCommitMs,
  });
  setTestPauseBeforeCommit(config.testHooks.pauseBeforeCommitMs);
}

export async function runServe(config: Config, logger: Logger = createLogger(config.logLevel, 'serve')): Promise<number> {
  const stopRequested = stopSignal();
  applyTestHooks(config, logger);

  const clock = serviceClock(config);
  const metrics = new Metrics({ role: 'serve' });
  const log = (message: string) => logger.info(message);
  let runtime: Runtime | null = null;
  let health: Health | null = null;
  let app: Awaited<ReturnType<typeof buildServer>> | null = null;
  let worker: WorkerThreadHandle | null = null;
  let ops: Awaited<ReturnType<typeof startOpsListener>> = null;
  let maintenance: MaintenanceRunner | null = null;
  let sweep: RollupSweep | null = null;
  let scheduler: RefreshScheduler | null = null;

  const start = async () => {
    if (config.dataDirReason) {
      // Said first, on the terminal and in the log: where this start keeps its data.
      console.log(`profile-scan: ${config.dataDirReason}`);
      lifecycle(logger).info({ data_dir: config.dataDir }, config.dataDirReason);
    }
    runtime = await openRuntime(config, { poolSize: 20, log, logger });
    const db = runtime.db;
    metrics.useDatabase(db);
    metrics.watchDatabase('api', runtime.availability);
    metrics.watchPool('api', runtime.pool);
    health = new Health(db, runtime.availability);
    if (config.workerConcurrency > 0) health.queue = 'starting';
    const media = await openMediaStore(config);
    const secret = await signingSecret(db, config.cursorSecret);
    app = await buildServer({
      db,
      config,
      clock,
      cursorSecret: secret,
      queue: scanQueue(),
      media,
      logger,
      health,
      metrics,
      availability: runtime.availability,
    });
    const address = await app.listen({ port: config.port, host: config.host });
    // PORT=0 and the like: the address is known only now (app.publicBaseUrl reads it from the listener).
    const publicBaseUrl = app.publicBaseUrl;
    ops = await startOpsListener(config, { logger, health, metrics });

    const created = await firstRun(db, clock);
    if (created) {
      // Shown once, on the terminal (stdout), not as a log record.
      const curl = `curl -s -H 'Authorization: Bearer ${created.secret}' ${publicBaseUrl}/api/v1/context`;
      console.log(
        [
          '',
          'First run: created the workspace "Default" and a test key with scope "*".',
          'Its secret is shown only this once; store it now:',
          '',
          `  ${created.secret}`,
          '',
          'Try it:',
          '',
          `  ${curl}`,
          '',
          'Sign in to the web workspace as its first owner with this one-time link',
          '(it sets your name, email and password; valid for 3 days):',
          '',
          `  ${publicBaseUrl}${accessLinkPath(created.signInToken)}`,
          '',
        ].join('\n'),
      );
    }

    if (config.workerConcurrency > 0) {
      const state = health;
      worker = await startWorkerThread({
        config,
        databaseUrl: runtime.databaseUrl,
        concurrency: config.workerConcurrency,
        logger,
        metrics,
        onUnexpectedExit: () => (state.queue = 'failed'),
      });
      health.queue = 'ready';
      // Scheduled refreshes are run where scan workers are (each due one once across all processes).
      scheduler = new RefreshScheduler({ db, clock, queue: scanQueue(), logger, intervalMs: config.refreshScheduleIntervalMs });
      scheduler.start();
    } else {
      // No worker here to fold roll-up deltas left behind: this API node does, so readers never wait for one.
      sweep = startRollupSweep({ db, clock, logger, timer: true });
    }
    maintenance = startMaintenance(config, { runtime, media, clock, logger, metrics });
    lifecycle(logger).info(
      {
        address,
        public_base_url: publicBaseUrl,
        worker_concurrency: worker ? config.workerConcurrency : 0,
        media: media.description,
      },
      `API listening on ${address} (${worker ? `scan worker thread with concurrency ${config.workerConcurrency}` : 'no in-process worker'})`,
    );
  };

  const shutdown = async (reason: string) => {
    const deadline = Date.now() + config.shutdownTimeoutMs;
    const remaining = () => Math.max(0, deadline - Date.now());
    lifecycle(logger).info({ reason, timeout_seconds: config.shutdownTimeoutMs / 1000 }, 'shutting down: draining requests and items in flight');
    if (health) health.draining = true;
    const steps: Promise<unknown>[] = [];
    if (sweep) steps.push(sweep.stop());
    if (scheduler) steps.push(scheduler.stop());
    if (maintenance) steps.push(stopMaintenance(maintenance, remaining(), logger));
    if (app) {
      const server = app;
      steps.push(
        withDeadline(server.close(), remaining(), 'draining HTTP requests').catch((error: unknown) => {
          logger.warn({ err: error }, 'shutdown: closing the connections still open');
          server.server.closeAllConnections();
        }),
      );
    }
    // The thread hands back what it has not finished a little before the deadline.
    if (worker)
      steps.push(
        worker
          .stop(Math.max(0, remaining() - Math.min(3000, config.shutdownTimeoutMs / 5)))
          .catch((error: unknown) => logger.error({ err: error }, 'shutdown: stopping the scan worker failed')),
      );
    await Promise.all(steps);
    await ops?.close().catch((error: unknown) => logger.warn({ err: error }, 'shutdown: closing the metrics listener failed'));
    await runtime?.close();
    lifecycle(logger).info('stopped');
  };

  const started = start().then(() => null);
  const first = await Promise.race([started.then(() => 'started' as const), stopRequested]).catch(async (error: unknown) => {
    await shutdown('start failed');
    throw error;
  });
  if (first !== 'started') {
    // A signal during start-up: stop what has started so far (the start itself is abandoned).
    started.catch(() => undefined);
    await shutdown(`${first} while starting`);
    return 0;
  }
  await shutdown(await stopRequested);
  return 0;
}
