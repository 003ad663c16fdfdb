/**
 * A scan worker process's loop: keep up to `concurrency` items in flight,
 * claiming one item per free slot through the fair queue (claim_scan_item),
 * and run processItem on each. Collection is I/O-bound (a provider answers
 * in seconds), so many items run at once; the database pool bounds how many
 * statements run at once, not how many items wait on a provider.
 *
 * Leases: a claim holds its item for ITEM_LEASE_SECONDS; a heartbeat extends
 * the leases of every item in flight every lease/3, storing included, so a
 * slow store never lets a healthy item be claimed twice. When this process
 * dies, its leases run out and any other worker claims the items again (the
 * attempt counts). A claim found lost at a heartbeat aborts that item's
 * collection.
 *
 * Wake-ups: LISTEN on the queue channel (admission notifies at commit), a
 * finished item (a slot freed), and a poll every second as a fallback (for
 * items whose retry time came, and lost notifications).
 */
import path from 'node:path';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Runtime } from '../runtime.js';
import type { Db } from '../store/database.js';
import { claimItem, extendLeases, type Claim } from '../store/item-repository.js';
import type { Collector } from './collectors/collector.js';
import { providerCollectorFromEnv, providerCollectorFromSettings } from './collectors/http-provider.js';
import { SimulatorCollector } from './collectors/simulator/index.js';
import { processItem, type HandlerContext } from './item-handler.js';
import { FileMediaStore } from './media/media-store.js';
import { listenForItems } from './queue.js';
import type { KeyMode } from '../domain/keys.js';

export interface ScanWorker {
  /** Stops claiming, waits for the items in flight to finish. */
  stop(): Promise<void>;
  /** Items in flight now. */
  readonly inFlight: number;
}

export interface WorkerOptions {
  runtime: Runtime;
  config: Config;
  clock: Clock;
  concurrency: number;
  log: (message: string) => void;
  /** Provider settings (PROVIDER_*) to use instead of `config.provider` (tests). */
  providerEnv?: NodeJS.ProcessEnv;
  /** Fallback poll interval (ms) when no notification arrives. */
  pollMs?: number;
}

/**
 * Connections a worker of `concurrency` items needs: items spend most of their
 * time collecting, not in statements, so about one per two items in flight
 * (plus the LISTEN connection and the heartbeat), at most 40.
 */
export function workerPoolSize(concurrency: number): number {
  return Math.min(40, 4 + Math.ceil(concurrency / 2));
}

/** Test-mode work always runs on the simulator; live work on the provider when configured (decisions "Collectors"). */
export function collectorSelector(
  config: Config,
  log: (m: string) => void,
  providerEnv?: NodeJS.ProcessEnv,
  db?: Db,
): (keyMode: KeyMode) => Collector {
  const simulator = new SimulatorCollector({ delayMs: config.simulatorDelayMs });
  // With the database, the provider's limits hold across every worker process.
  const provider = providerEnv ? providerCollectorFromEnv(providerEnv, { db }) : providerCollectorFromSettings(config.provider, { db });
  if (!provider) log('WARNING: PROVIDER_BASE_URL is not set; work admitted by LIVE keys is collected by the built-in SIMULATOR (synthetic data)');
  return (keyMode) => (keyMode === 'live' && provider ? provider : simulator);
}

export async function startScanWorker(options: WorkerOptions): Promise<ScanWorker> {
  const { runtime, config, clock, log } = options;
  const leaseSeconds = config.itemLeaseSeconds;
  const ctx: HandlerContext = {
    db: runtime.db,
    clock,
    media: new FileMediaStore(path.join(config.dataDir, 'media')),
    collectorFor: collectorSelector(config, log, options.providerEnv, runtime.db),
    timeoutMs: Math.max(1000, Math.floor(leaseSeconds * 1000 * 0.8)),
    maxAttempts: config.itemMaxAttempts,
    log,
  };

  const inFlight = new Map<string, { claim: Claim; lost: AbortController; done: Promise<void> }>();
  let stopping = false;
  let wake: (() => void) | null = null;
  const wakeUp = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  const run = (claim: Claim) => {
    const lost = new AbortController();
    const done = processItem(ctx, claim, lost.signal)
      .then(() => undefined)
      .catch((error: unknown) => {
        // A store or database failure: the claim is kept until its lease runs
        // out, then the item is claimed again (the attempt counts).
        log(`item ${claim.itemId}: ${error instanceof Error ? error.message : String(error)}; it is retried after its lease`);
      })
      .finally(() => {
        inFlight.delete(claim.claimId);
        wakeUp();
      });
    inFlight.set(claim.claimId, { claim, lost, done });
  };

  const loop = (async () => {
    while (!stopping) {
      try {
        while (!stopping && inFlight.size < options.concurrency) {
          const claim = await claimItem(runtime.db, leaseSeconds);
          if (!claim) break;
          run(claim);
        }
      } catch (error) {
        log(`queue: claim failed (${error instanceof Error ? error.message : String(error)}); trying again`);
      }
      if (stopping) break;
      // Full, or nothing ready: sleep until woken (a notification, a freed slot) or the poll.
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(wakeUp, options.pollMs ?? 1000).unref();
      });
    }
  })();

  const listener = listenForItems(runtime.pool, wakeUp, log);
  const heartbeat = setInterval(
    () => {
      const claims = [...inFlight.keys()];
      if (claims.length === 0) return;
      extendLeases(runtime.db, claims, leaseSeconds).then(
        (held) => {
          for (const id of claims) {
            const entry = inFlight.get(id);
            if (entry && !held.has(id)) {
              log(`item ${entry.claim.itemId}: lease lost; abandoning this attempt`);
              entry.lost.abort();
            }
          }
        },
        (error: unknown) => log(`queue: heartbeat failed (${error instanceof Error ? error.message : String(error)})`),
      );
    },
    Math.max(500, Math.floor((leaseSeconds * 1000) / 3)),
  );
  heartbeat.unref();

  return {
    get inFlight() {
      return inFlight.size;
    },
    stop: async () => {
      stopping = true;
      wakeUp();
      await loop;
      await listener.stop();
      await Promise.all([...inFlight.values()].map((e) => e.done));
      clearInterval(heartbeat);
    },
  };
}
