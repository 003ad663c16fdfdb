/**
 * `profile-scan serve` (npm start): the API server plus, by default, a scan
 * worker on a thread of its own (src/scanning/worker-thread.ts). On an empty
 * store it creates the workspace "Default" and a `*`-scoped test key and
 * prints the secret once, with a one-time sign-in link for the first owner.
 */
import { OffsetClock, systemClock, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import { buildServer } from '../http/server.js';
import { openRuntime } from '../runtime.js';
import { ScanItemQueue } from '../scanning/queue.js';
import { startWorkerThread, type WorkerThreadHandle } from '../scanning/worker-thread.js';
import { pruneRateCounters } from '../store/rate-limit-repository.js';
import { cursorSecret } from '../store/settings-repository.js';
import { firstRun } from './first-run.js';
import { accessLinkPath } from '../use-cases/workspace-members.js';

export function serviceClock(config: Config): Clock {
  return config.clockOffsetMs !== 0 ? new OffsetClock(config.clockOffsetMs) : systemClock;
}

export async function runServe(config: Config): Promise<number> {
  const log = (m: string) => console.error(`profile-scan: ${m}`);
  const runtime = await openRuntime(config, { poolSize: 20, log });
  const clock = serviceClock(config);
  let worker: WorkerThreadHandle | null = null;
  let app: Awaited<ReturnType<typeof buildServer>> | null = null;
  let pruneTimer: NodeJS.Timeout | null = null;

  let stopping: Promise<void> | null = null;
  const stop = (reason: string) =>
    (stopping ??= (async () => {
      log(`${reason}: shutting down (draining requests and workers)`);
      if (pruneTimer) clearInterval(pruneTimer);
      await app?.close().catch(() => {});
      await worker?.stop().catch(() => {});
      await runtime.close();
      log('stopped');
    })());

  try {
    const secret = await cursorSecret(runtime.db, config.cursorSecret);
    app = await buildServer({ db: runtime.db, config, clock, cursorSecret: secret, queue: new ScanItemQueue() });
    const address = await app.listen({ port: config.port, host: config.host });
    if (!process.env.PUBLIC_BASE_URL) config.publicBaseUrl = address.replace('0.0.0.0', '127.0.0.1');

    const created = await firstRun(runtime.db, clock);
    if (created) {
      const curl = `curl -s -H 'Authorization: Bearer ${created.secret}' ${config.publicBaseUrl}/api/v1/context`;
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
          `  ${config.publicBaseUrl}${accessLinkPath(created.signInToken)}`,
          '',
        ].join('\n'),
      );
    }

    if (config.workerConcurrency > 0) {
      worker = await startWorkerThread({ config, databaseUrl: runtime.databaseUrl, concurrency: config.workerConcurrency, log });
    }
    pruneTimer = setInterval(() => {
      pruneRateCounters(runtime.db, new Date(clock.now().getTime() - 5 * 60_000)).catch(() => {});
    }, 60_000);
    pruneTimer.unref();
    log(`API listening on ${address} (public base ${config.publicBaseUrl}); ${worker ? `scan worker thread with concurrency ${config.workerConcurrency}` : 'no in-process worker'}`);
  } catch (error) {
    await stop('start failed');
    throw error;
  }

  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => void stop(`received ${signal}`).then(resolve));
    }
  });
  return 0;
}
