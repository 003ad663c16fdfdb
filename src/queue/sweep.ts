/**
 * The roll-up sweep (docs/architecture.md, "Roll-ups"): folds the deltas that
 * no transition folded after its commit (another process's write held the
 * report, or a process died between a transition and its fold). Every process
 * that serves readers or runs items runs one: the scan worker loop, and a
 * `serve` without an in-process worker (WORKER_CONCURRENCY=0), so readers
 * never depend on a worker being alive.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { settlePendingRollups, settleStaleRollups } from './settle.js';
import type { Database } from '../store/schema.js';
import type { DatabaseAvailability } from '../store/database-availability.js';

/** How often the sweep runs, and how old deltas must be for it to fold them. */
export const SWEEP_INTERVAL_MS = 1000;

export interface RollupSweep {
  /** Runs a sweep unless one is running or ran less than SWEEP_INTERVAL_MS ago. */
  poke(): void;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

/** A sweep that runs when poked (the worker loop pokes it) and, with `timer`, every SWEEP_INTERVAL_MS on its own. */
export function startRollupSweep(options: {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  timer: boolean;
  /** Where an outage of the database is said (once), instead of a failure per sweep. */
  availability?: DatabaseAvailability;
}): RollupSweep {
  let running: Promise<void> | null = null;
  let last = 0;
  const poke = () => {
    if (running || Date.now() - last < SWEEP_INTERVAL_MS) return;
    last = Date.now();
    running = settleStaleRollups(options.db, options.clock.now(), SWEEP_INTERVAL_MS)
      .then(() => undefined)
      .catch((error: unknown) => {
        if (!options.availability?.failed(error)) options.logger.error({ err: error }, 'roll-ups: folding pending deltas failed; trying again');
      })
      .finally(() => (running = null));
  };
  const timer = options.timer ? setInterval(poke, SWEEP_INTERVAL_MS) : null;
  timer?.unref();
  return {
    poke,
    stop: async () => {
      if (timer) clearInterval(timer);
      await running;
      // The folds this process was still gathering transitions for (the fold window) run now.
      await settlePendingRollups(options.db);
    },
  };
}
