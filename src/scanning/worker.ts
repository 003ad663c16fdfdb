/**
 * Scan workers on pg-boss: `concurrency` polling loops take scan-item jobs
 * one at a time and run processItem. A job's lease is its pg-boss expiry
 * (ITEM_LEASE_SECONDS): when a worker dies mid-item, pg-boss's maintenance
 * fails the job by timeout and retries it on any live worker. A job that
 * runs out of attempts that way lands in the dead-letter queue, whose
 * handler ends the item `failed`, so no run waits forever.
 */
import path from 'node:path';
import type PgBoss from 'pg-boss';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Runtime } from '../runtime.js';
import { markItemFailed } from '../store/item-repository.js';
import type { Collector } from './collectors/collector.js';
import { providerCollectorFromEnv } from './collectors/http-provider.js';
import { SimulatorCollector } from './collectors/simulator.js';
import { processItem, type HandlerContext } from './item-handler.js';
import { FileMediaStore } from './media/media-store.js';
import { SCAN_ITEM_DEAD_QUEUE, SCAN_ITEM_QUEUE, type ScanItemJob } from './queue.js';

export interface ScanWorker {
  stop(): Promise<void>;
}

export interface WorkerOptions {
  runtime: Runtime;
  config: Config;
  clock: Clock;
  concurrency: number;
  log: (message: string) => void;
  /** Where the provider settings (PROVIDER_BASE_URL, PROVIDER_API_KEY, PROVIDER_TIMEOUT_MS) are read; process.env by default. */
  providerEnv?: NodeJS.ProcessEnv;
}

/** Test-mode work always runs on the simulator; live work on the provider when configured (decisions "Collectors"). */
export function collectorSelector(
  config: Config,
  log: (m: string) => void,
  providerEnv: NodeJS.ProcessEnv = process.env,
): (keyMode: 'test' | 'live') => Collector {
  const simulator = new SimulatorCollector({ delayMs: config.simulatorDelayMs });
  const provider = providerCollectorFromEnv(providerEnv);
  if (!provider) log('WARNING: PROVIDER_BASE_URL is not set; work admitted by LIVE keys is collected by the built-in SIMULATOR (synthetic data)');
  return (keyMode) => (keyMode === 'live' && provider ? provider : simulator);
}

export async function startScanWorker(options: WorkerOptions): Promise<ScanWorker> {
  const { runtime, config, clock, log } = options;
  const boss: PgBoss = runtime.boss;
  const ctx: HandlerContext = {
    db: runtime.db,
    clock,
    media: new FileMediaStore(path.join(config.dataDir, 'media')),
    collectorFor: collectorSelector(config, log, options.providerEnv),
    timeoutMs: Math.max(1000, Math.floor(config.itemLeaseSeconds * 1000 * 0.8)),
    log,
  };
  let active = 0;
  let idle: (() => void) | null = null;

  const work = async (jobs: PgBoss.JobWithMetadata<ScanItemJob>[]) => {
    active++;
    try {
      for (const job of jobs) {
        await processItem(ctx, job.data.item_id, { number: job.retryCount + 1, isLast: job.retryCount >= job.retryLimit });
      }
    } finally {
      active--;
      if (active === 0 && idle) idle();
    }
  };
  const workOptions = { batchSize: 1, pollingIntervalSeconds: 0.5, includeMetadata: true as const };
  for (let i = 0; i < options.concurrency; i++) {
    await boss.work<ScanItemJob>(SCAN_ITEM_QUEUE, workOptions, work);
  }
  await boss.work<ScanItemJob>(SCAN_ITEM_DEAD_QUEUE, workOptions, async (jobs) => {
    for (const job of jobs) await markItemFailed(runtime.db, job.data.item_id, 'worker lost the item on every attempt', clock.now());
  });

  return {
    stop: async () => {
      await boss.offWork(SCAN_ITEM_QUEUE).catch(() => {});
      await boss.offWork(SCAN_ITEM_DEAD_QUEUE).catch(() => {});
      if (active > 0) await new Promise<void>((resolve) => (idle = resolve));
    },
  };
}
