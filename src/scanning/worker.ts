/**
 * A scan worker process's loop: keep up to `concurrency` items in flight,
 * claiming one item per free slot through the fair queue (claim_scan_item),
 * and run processItem on each. Collection is I/O-bound (a provider answers
 * in seconds), so many items run at once; the database pool bounds how many
 * statements run at once, not how many items wait on a provider.
 *
 * Heartbeat: the worker registers in scan_workers and beats every
 * WORKER_HEARTBEAT_MS from a connection of its own, which holds a lock for as
 * long as this process lives; its items are its own while it lives, however
 * long they take, storing included. When this process dies, the next claim
 * anywhere after WORKER_DEAD_SECONDS without a beat takes its items again
 * (the attempt counts); late beats of a living process (a starved event loop)
 * lose nothing until WORKER_HUNG_SECONDS. A claim found lost at a beat
 * (cancelled, or taken while this worker was taken for dead) aborts that
 * item's collection.
 *
 * Roll-ups: each transition folds its report's deltas after its commit; a
 * sweep every second folds those left behind (settleStaleRollups).
 *
 * Wake-ups: LISTEN on the queue channel (admission notifies at commit), a
 * finished item (a slot freed), and a poll every second as a fallback (for
 * items whose retry time came, and lost notifications).
 *
 * The database going away (a restart, a failover: store/database-availability.ts)
 * ends nothing: the claim loop waits with growing pauses and wakes as soon as
 * any session of the process reaches the database again; an item whose
 * attempt met the outage is handed back (pending at once, its attempt given
 * back) as soon as the database answers; the heartbeat's connection and its
 * liveness lock, and the LISTEN, are made again. Every worker was silent
 * while the database was away, so for a while after it returns a claim does
 * not take a worker for dead for that silence (`claimer`).
 */
import type { Clock } from '../clock.js';
import { parseBrightDataSettings, type Config } from '../config.js';
import type { Runtime } from '../runtime.js';
import type { Db } from '../store/database.js';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { claimItem } from '../queue/claim.js';
import { releaseItem, requeueItem } from '../queue/transitions.js';
import { type Claim } from '../queue/item.js';
import { databaseBackoff, untilDatabaseAnswers } from '../store/database-availability.js';
import type { IBackoff } from 'cockatiel';
import { beatWorker, handToLease, openWorkerConnection, registerWorker, retireWorker, unknownClaims } from '../queue/heartbeat.js';
import { loggerFromFunction, type Logger } from '../logger.js';
import type { WorkerMetrics } from '../metrics.js';
import type { Collector } from './collectors/collector.js';
import { providerCollectorFromEnv, providerCollectorFromSettings, type ProviderCallOutcome } from './collectors/http-provider.js';
import { BrightDataCollector, brightDataObserver } from './collectors/brightdata/index.js';
import { SimulatorCollector } from './collectors/simulator/index.js';
import { editsReader } from './collectors/simulator/edits.js';
import { processItem, type HandlerContext } from './item-handler.js';
import { createMediaStore } from './media/create-media-store.js';
import { SafeFetcher } from './media/safe-fetch.js';
import type { MediaStore } from './media/media-store.js';
import { listenForItems } from '../store/queue-channel.js';
import { startRollupSweep } from '../queue/sweep.js';
import type { KeyMode } from '../domain/keys.js';

/**
 * A worker beats this often, and is taken for dead after WORKER_DEAD_SECONDS
 * without a beat once its process is gone (its liveness lock free): its items
 * are claimed again within about WORKER_DEAD_SECONDS + the claim poll (1 s) of
 * its death. A living worker silent for WORKER_HUNG_SECONDS (a hung process,
 * a host cut off) is taken for dead whatever its lock says: a starved event
 * loop's late beats must not make a healthy worker's items run twice.
 */
export const WORKER_HEARTBEAT_MS = 2000;
export const WORKER_DEAD_SECONDS = 10;
export const WORKER_HUNG_SECONDS = 60;
/** Rows of workers silent this long, with no item left, are deleted. */
const WORKER_FORGET_SECONDS = 3600;

export interface ScanWorker {
  /**
   * Stops claiming and waits for the items in flight to finish, for at most
   * `timeoutMs` (default: config.shutdownTimeoutMs); items still in flight
   * then are aborted and handed back to the queue (releaseItem: pending at
   * once, their attempt given back). Resolves when every item has settled.
   */
  stop(options?: { timeoutMs?: number }): Promise<{ finished: number; released: number }>;
  /** Items in flight now. */
  readonly inFlight: number;
}

export interface WorkerOptions {
  runtime: Runtime;
  config: Config;
  clock: Clock;
  concurrency: number;
  log: (message: string) => void;
  /** Structured logger for errors of the queue and the items (default: records go to `log`). */
  logger?: Logger;
  /** Items processed, provider calls (src/metrics.ts). */
  metrics?: WorkerMetrics;
  /** The evidence media store (default: from config.media). */
  media?: MediaStore;
  /** Provider settings (PROVIDER_*) to use instead of `config.provider` (tests). */
  providerEnv?: NodeJS.ProcessEnv;
  /** Fallback poll interval (ms) when no notification arrives. */
  pollMs?: number;
}

/**
 * Connections a worker of `concurrency` items needs. The scan pool (claims,
 * transitions, folds, the LISTEN connection): an item holds a connection only
 * for its single statements (about 4 in its life, none across an await), so
 * even a full worker's items in flight keep well under one session busy on
 * average (bench:pipeline's "sessions on average"): one per eight items, at
 * least 5 and at most 12. Each connection of that pool prepares and plans the
 * pipeline's statements for itself, again after every ANALYZE or VACUUM of
 * their tables, and is kept while idle (runtime.ts): more connections only
 * cost PostgreSQL more planning, and connections closed and opened again
 * (docs/scaling.md, "What limits one machine"). The durable pool (the
 * collectors' quotas and usage, maintenance, health and the queue gauges:
 * single short statements): 4. The heartbeat has a connection of its own.
 */
export function workerPoolSizes(concurrency: number): { poolSize: number; scanPoolSize: number } {
  return { poolSize: 4, scanPoolSize: Math.min(12, 4 + Math.ceil(concurrency / 8)) };
}

/**
 * Test-mode work always runs on the simulator; live work on the configured
 * collector (COLLECTOR: Bright Data, or the HTTP provider bridge), or on the
 * simulator, with a loud warning, when none is configured (decisions "Collectors").
 */
export function collectorSelector(
  config: Config,
  log: (m: string) => void,
  providerEnv?: NodeJS.ProcessEnv,
  db?: Db,
  metrics?: WorkerMetrics,
): (keyMode: KeyMode) => Collector {
  const simulator = new SimulatorCollector({ delayMs: config.simulatorDelayMs, edits: editsReader(config.simulatorEdits, log) });
  const onCall = metrics && ((o: ProviderCallOutcome, s: number, r: string | null) => metrics.providerCall(o, s, r));
  // With the database, the provider's limits (and Bright Data's daily budget) hold across every worker process.
  const brightData = providerEnv ? parseBrightDataSettings(providerEnv) : config.brightData;
  const live: Collector | null = brightData
    ? new BrightDataCollector({ settings: brightData, db, log, observer: metrics && brightDataObserver(metrics) })
    : providerEnv
      ? providerCollectorFromEnv(providerEnv, { db, onCall })
      : providerCollectorFromSettings(config.provider, { db, onCall });
  if (!live)
    log(
      'WARNING: no collector is configured (COLLECTOR, PROVIDER_BASE_URL); work admitted by LIVE keys is collected by the built-in SIMULATOR (synthetic data)',
    );
  return (keyMode) => (keyMode === 'live' && live ? live : simulator);
}

export async function startScanWorker(options: WorkerOptions): Promise<ScanWorker> {
  const { runtime, config, clock, log } = options;
  const logger = options.logger ?? loggerFromFunction(log);
  const leaseSeconds = config.itemLeaseSeconds;
  // The items' claims, transitions and folds: on the scan pool when the runtime has one (its sessions
  // commit asynchronously, store/database.ts); the collectors' quotas and usage stay on the durable pool.
  const itemDb = runtime.scanDb ?? runtime.db;
  const ctx: HandlerContext = {
    db: itemDb,
    clock,
    media: options.media ?? (await createMediaStore(config.media)),
    collectorFor: collectorSelector(config, log, options.providerEnv, runtime.db, options.metrics),
    timeoutMs: Math.max(1000, Math.floor(leaseSeconds * 1000 * 0.8)),
    maxAttempts: config.itemMaxAttempts,
    log,
    metrics: options.metrics,
    evidence: { fetcher: config.evidenceFetch && new SafeFetcher(config.evidenceFetch), log },
  };

  const inFlight = new Map<string, { claim: Claim; lost: AbortController; done: Promise<void> }>();
  const self = { id: randomUUID(), host: os.hostname(), pid: process.pid };
  const availability = runtime.availability;
  const claimer = () => {
    // The outage's silence is no sign of death: every worker was cut off alike, and each beats again
    // within a beat or two of the database's return (its liveness lock taken again with it).
    const outage = availability.lastOutage;
    const grace = outage && Date.now() - outage.endedAt < WORKER_DEAD_SECONDS * 2000 ? Math.ceil(outage.seconds) + 1 : 0;
    return { id: self.id, deadSeconds: WORKER_DEAD_SECONDS + grace, hungSeconds: WORKER_HUNG_SECONDS + grace };
  };
  const stopSignal = new AbortController();
  // The heartbeat has a connection of its own: with every pooled connection busy (a slow
  // database, many items storing at once) a beat must still go out; and that connection's
  // lock tells every claimer this process lives, however late its beats.
  const beat = openWorkerConnection(runtime.databaseUrl, self.id, (error) => {
    if (!availability.failed(error)) logger.warn({ err: error }, 'queue: the heartbeat connection failed; it is replaced on the next beat');
  });
  const beatDb = beat.db;
  await registerWorker(beatDb, self);
  let stopping = false;
  let wake: (() => void) | null = null;
  const wakeUp = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  /**
   * An item whose attempt met the database's absence goes back to the queue
   * as soon as the database answers again: pending at once, its attempt
   * given back (the outage is not the item's failure). A finish that
   * committed before the connection was lost is left alone (the claim no
   * longer holds a running item).
   */
  const handBack = (claim: Claim, signal: AbortSignal) =>
    untilDatabaseAnswers()
      .execute(() => requeueItem(itemDb, claim, { delayMs: 0, spendAttempt: false, reason: 'the database was unavailable' }, clock.now()), signal)
      .then(
        (released) => logger.debug({ item_id: claim.itemId, released }, 'item handed back after the database returned'),
        (error: unknown) => {
          if (!signal.aborted) logger.error({ err: error, item_id: claim.itemId }, 'could not hand the item back; it is claimed again when this worker stops');
        },
      );

  const run = (claim: Claim) => {
    const lost = new AbortController();
    const done = processItem(ctx, claim, lost.signal)
      .then(() => undefined)
      .catch(async (error: unknown) => {
        if (!availability.failed(error)) {
          // A store failure: the item goes to its lease, after which it is claimed again (the attempt counts).
          logger.error({ err: error, item_id: claim.itemId }, 'item failed in the store or the database; it is retried after its lease');
          try {
            await handToLease(itemDb, claim.claimId, leaseSeconds);
            return;
          } catch (e) {
            if (!availability.failed(e)) {
              logger.error({ err: e, item_id: claim.itemId }, 'could not hand the item to its lease; it is claimed again when this worker stops');
              return;
            }
          }
        }
        await handBack(claim, lost.signal);
      })
      .finally(() => {
        inFlight.delete(claim.claimId);
        wakeUp();
      });
    inFlight.set(claim.claimId, { claim, lost, done });
  };

  // Roll-up deltas a fold left behind (another process's API write held the
  // report, a crash between a transition and its fold): folded by the sweep.
  const sweeper = startRollupSweep({ db: itemDb, clock, logger, timer: false, availability });
  const sweep = () => sweeper.poke();

  let unknownToCheck = false;
  const loop = (async () => {
    // While the database is away: the pause before the next claim, growing (reset once a claim answers).
    let away: IBackoff<unknown> | null = null;
    // After an outage: items this worker holds without knowing (a claim whose answer was lost, a
    // transition a crash undid) go back to the queue, their attempt given back.
    availability.subscribe((event) => {
      if (event.kind === 'lost') unknownToCheck = true;
    });
    while (!stopping) {
      sweep();
      try {
        if (unknownToCheck) {
          const unknown = await unknownClaims(itemDb, self.id, [...inFlight.keys()]);
          unknownToCheck = false;
          for (const claim of unknown) await handBack({ ...claim, attempts: 0 }, stopSignal.signal);
          if (unknown.length > 0) log(`queue: handed back ${unknown.length} item(s) this worker held without knowing after the database returned`);
        }
        while (!stopping && inFlight.size < options.concurrency) {
          // A person's item is begun by the claim's statement (queue/claim.ts).
          const claim = await claimItem(itemDb, leaseSeconds, claimer(), { now: clock.now(), maxAttempts: ctx.maxAttempts });
          away = null;
          availability.succeeded();
          if (!claim) break;
          run(claim);
        }
      } catch (error) {
        if (availability.failed(error)) {
          unknownToCheck = true;
          // Said once by the availability; wait, and wake as soon as anything of this process reaches the database.
          away = away ? away.next(undefined) : databaseBackoff().next();
          await availability.waitForRestore(away.duration, stopSignal.signal);
          continue;
        }
        logger.error({ err: error }, 'queue: claim failed; trying again');
      }
      if (stopping) break;
      // Full, or nothing ready: sleep until woken (a notification, a freed slot) or the poll.
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(wakeUp, options.pollMs ?? 1000).unref();
      });
    }
  })();

  const listener = listenForItems(runtime.pool, wakeUp, { log, availability });
  let beating = false;
  let beatFailing = false;
  let lastBeatAt = Date.now();
  const heartbeat = setInterval(() => {
    if (beating) return;
    beating = true;
    const startedAt = Date.now();
    // Late beats are how a healthy worker comes to look silent: say so, with how late.
    const late = (startedAt - lastBeatAt) / 1000;
    if (late > (WORKER_HEARTBEAT_MS / 1000) * 2.5 && availability.available && !beatFailing)
      logger.warn({ seconds_since_last_beat: late }, `queue: worker heartbeat ${late.toFixed(1)} s late (event loop or database busy)`);
    const claims = [...inFlight.values()].map((e) => e.claim);
    beat
      .relock()
      .then(() => beatWorker(beatDb, self, claims, WORKER_FORGET_SECONDS))
      .then((lost) => {
        lastBeatAt = Date.now();
        if (beatFailing) {
          beatFailing = false;
          availability.reconnected('heartbeat');
          log('queue: worker heartbeat back (its connection and liveness lock made again)');
        }
        availability.succeeded();
        for (const [claimId, why] of lost) {
          const entry = inFlight.get(claimId);
          if (!entry) continue;
          log(`item ${entry.claim.itemId}: ${why}; abandoning this attempt`);
          entry.lost.abort();
        }
      })
      .catch((error: unknown) => {
        // An outage is said once (availability); a beat after it brings the connection and the lock back.
        if (availability.failed(error)) beatFailing = true;
        else logger.error({ err: error }, 'queue: worker heartbeat failed');
      })
      .finally(() => (beating = false));
  }, WORKER_HEARTBEAT_MS);
  heartbeat.unref();

  async function stopOnce(stopOptions: { timeoutMs?: number }): Promise<{ finished: number; released: number }> {
    stopping = true;
    stopSignal.abort();
    wakeUp();
    await loop;
    await listener.stop();
    const timeoutMs = stopOptions.timeoutMs ?? config.shutdownTimeoutMs;
    const atStop = inFlight.size;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      Promise.all([...inFlight.values()].map((e) => e.done)).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    let released = 0;
    if (!drained) {
      // Out of time: abort what is left and hand it back to the queue now,
      // rather than leaving it to the lease (another worker takes it at once).
      const left = [...inFlight.values()];
      for (const entry of left) entry.lost.abort();
      const results = await Promise.all(
        left.map((entry) =>
          releaseItem(itemDb, entry.claim, clock.now()).catch((error: unknown) => {
            logger.error({ err: error, item_id: entry.claim.itemId }, 'could not release the item; it is retried after its lease');
            return false;
          }),
        ),
      );
      released = results.filter(Boolean).length;
      logger.warn({ released, in_flight: left.length }, 'shutdown timeout: items in flight handed back to the queue');
      // Their handlers see the claim gone and stop; wait for them briefly.
      await Promise.race([Promise.all(left.map((e) => e.done)), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    }
    clearInterval(heartbeat);
    await sweeper.stop();
    // Whatever this worker still holds (a release that failed) is claimed again at once.
    await retireWorker(beatDb, self.id).catch((error: unknown) => logger.error({ err: error }, 'queue: could not retire the worker'));
    await beat.close();
    return { finished: atStop - released, released };
  }

  let stopped: Promise<{ finished: number; released: number }> | null = null;
  return {
    get inFlight() {
      return inFlight.size;
    },
    // A second stop (a test's, then its app's) waits for the first.
    stop: (stopOptions = {}) => (stopped ??= stopOnce(stopOptions)),
  };
}
