/**
 * Runs reports' due scheduled refreshes (use-cases/refresh-schedule.ts) in
 * every process with scan workers (`worker`, and `serve` with its worker
 * thread), every REFRESH_SCHEDULE_INTERVAL. Any number of processes may look
 * at once: each due schedule is claimed by one of them, in the transaction
 * that admits its refresh, so it runs once.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Db, ScanQueue } from '../runtime.js';
import { runDueRefreshes, type ScheduleRun } from '../use-cases/refresh-schedule.js';

export interface RefreshSchedulerDeps {
  db: Db;
  clock: Clock;
  queue: ScanQueue;
  logger: Logger;
  intervalMs: number;
}

export class RefreshScheduler {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<ScheduleRun[]> | null = null;
  #stopped = false;

  constructor(private readonly deps: RefreshSchedulerDeps) {}

  /** Looks every interval (the first time after a random part of it, so processes started together spread out). */
  start(): void {
    const interval = this.deps.intervalMs;
    if (interval <= 0 || this.#timer) return;
    const every = Math.max(100, interval);
    const tick = () => {
      if (this.#stopped) return;
      void this.runOnce().catch((error: unknown) =>
        this.deps.logger.error({ err: error }, 'scheduled refresh: run failed; it is tried again at the next interval'),
      );
      this.#timer = setTimeout(tick, every);
      this.#timer.unref();
    };
    this.#timer = setTimeout(tick, Math.random() * every);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running?.catch(() => null);
  }

  runOnce(): Promise<ScheduleRun[]> {
    this.#running ??= runDueRefreshes({ ...this.deps, log: (message) => this.deps.logger.info(message) }).finally(() => {
      this.#running = null;
    });
    return this.#running;
  }
}
