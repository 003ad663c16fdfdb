/**
 * `profile-scan worker [--concurrency N]`: scan workers only, against the same
 * database as the API (scale out by starting more of them).
 */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { openRuntime } from '../runtime.js';
import { startScanWorker, workerPoolSize } from '../scanning/worker.js';
import { UsageError } from './admin.js';
import { serviceClock } from './serve.js';

export async function runWorker(config: Config, argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { concurrency: { type: 'string' } }, strict: true });
  const concurrency = values.concurrency === undefined ? Math.max(1, config.workerConcurrency) : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024) throw new UsageError('--concurrency takes an integer from 1 to 1024');
  const log = (m: string) => console.error(`profile-scan worker[${process.pid}]: ${m}`);
  const runtime = await openRuntime(config, { poolSize: workerPoolSize(concurrency), log });
  const worker = await startScanWorker({ runtime, config, clock: serviceClock(config), concurrency, log });
  log(`started with concurrency ${concurrency}`);
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  log('stopping: finishing items in progress');
  await worker.stop();
  await runtime.close();
  log('stopped');
  return 0;
}
