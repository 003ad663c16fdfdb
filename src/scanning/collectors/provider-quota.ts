/**
 * Limits on calls to the data provider: at most `maxConcurrency` calls in
 * flight and calls started at most `maxPerSecond` per second, evenly spaced.
 * The HTTP provider collector takes a permit around each HTTP exchange.
 *
 * - `SharedProviderQuota` holds the limits for every process on the database
 *   (store/provider-quota-repository.ts): a call leases a slot row with an
 *   expiry (a killed process's slots free themselves once their lease ends),
 *   then reserves its start time in a shared schedule. While no slot is free,
 *   one caller per process polls with short jittered pauses (a local release
 *   wakes it at once); the others queue behind it in order.
 * - `LocalProviderQuota` holds the same limits inside one process, for a
 *   collector built without a database (unit tests, tools).
 *
 * Waiting respects the caller's AbortSignal: acquire() then rejects with the
 * signal's reason. It never fails because the provider is busy.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../store/database.js';
import { claimProviderSlot, ensureProviderSlots, releaseProviderSlot, reserveProviderStart } from '../../store/provider-quota-repository.js';

export interface ProviderPermit {
  /** Frees the concurrency slot. Idempotent; never rejects. */
  release(): Promise<void>;
}

export interface ProviderQuota {
  /** Resolves when a call may start now; rejects only when `signal` aborts (or the store fails). */
  acquire(signal: AbortSignal): Promise<ProviderPermit>;
}

export interface ProviderLimits {
  /** Calls in flight at once (all processes together for the shared quota). */
  maxConcurrency: number;
  /** Calls started per second; starts are spaced 1000 / maxPerSecond ms apart. */
  maxPerSecond: number;
}

/** Polling for a free slot: first pause, doubling up to the cap, 50–100 % jitter. */
const POLL_MIN_MS = 20;
const POLL_MAX_MS = 200;

export interface SharedProviderQuotaOptions extends ProviderLimits {
  db: Db;
  /** Identifies the provider in the shared tables: its endpoint URL. */
  provider: string;
  /**
   * How long a slot stays leased after its call's start: the call's timeout
   * plus a margin. A process killed mid-call frees its slot after this.
   */
  leaseMs: number;
}

export class SharedProviderQuota implements ProviderQuota {
  readonly #db: Db;
  readonly #provider: string;
  readonly #maxConcurrency: number;
  readonly #intervalMs: number;
  readonly #leaseMs: number;
  /** One local poller at a time, the rest wait in order behind it. */
  readonly #claimTurn = new Semaphore(1);
  #slotsReady: Promise<void> | null = null;
  /** Set while the local poller pauses; a local release calls it. */
  #wake: (() => void) | null = null;

  constructor(options: SharedProviderQuotaOptions) {
    checkLimits(options);
    if (!Number.isFinite(options.leaseMs) || options.leaseMs <= 0) throw new TypeError('provider quota leaseMs must be positive');
    this.#db = options.db;
    this.#provider = options.provider;
    this.#maxConcurrency = options.maxConcurrency;
    this.#intervalMs = 1000 / options.maxPerSecond;
    this.#leaseMs = options.leaseMs;
  }

  async acquire(signal: AbortSignal): Promise<ProviderPermit> {
    for (;;) {
      const holder = randomUUID();
      const slot = await this.#claim(holder, signal);
      const ref = { provider: this.#provider, slot, holder };
      let granted = false;
      try {
        const { waitMs, held } = await reserveProviderStart(this.#db, { ...ref, intervalMs: this.#intervalMs, leaseMs: this.#leaseMs });
        // Lost between claim and reservation (only if that took longer than the lease): claim again.
        if (!held) continue;
        if (waitMs > 0) await pause(waitMs, signal);
        granted = true;
        return { release: once(() => this.#release(ref)) };
      } finally {
        if (!granted) await this.#release(ref);
      }
    }
  }

  async #claim(holder: string, signal: AbortSignal): Promise<number> {
    await this.#claimTurn.acquire(signal);
    try {
      this.#slotsReady ??= ensureProviderSlots(this.#db, this.#provider, this.#maxConcurrency).catch((err: unknown) => {
        this.#slotsReady = null;
        throw err;
      });
      await this.#slotsReady;
      let delay = POLL_MIN_MS;
      for (;;) {
        signal.throwIfAborted();
        const slot = await claimProviderSlot(this.#db, {
          provider: this.#provider,
          maxSlots: this.#maxConcurrency,
          holder,
          leaseMs: this.#leaseMs,
        });
        if (slot !== null) return slot;
        await this.#pollPause(delay * (0.5 + Math.random() * 0.5), signal);
        delay = Math.min(delay * 2, POLL_MAX_MS);
      }
    } finally {
      this.#claimTurn.release();
    }
  }

  async #pollPause(ms: number, signal: AbortSignal): Promise<void> {
    const woken = new AbortController();
    this.#wake = () => woken.abort();
    try {
      await sleep(Math.round(ms), undefined, { signal: AbortSignal.any([signal, woken.signal]) });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (!woken.signal.aborted) throw err;
      // Woken by a local release: try again at once.
    } finally {
      this.#wake = null;
    }
  }

  async #release(ref: { provider: string; slot: number; holder: string }): Promise<void> {
    try {
      await releaseProviderSlot(this.#db, ref);
    } catch {
      // The lease runs out on its own; a failed release only delays the slot.
    }
    this.#wake?.();
  }
}

/** The same limits, inside one process only. */
export class LocalProviderQuota implements ProviderQuota {
  readonly #slots: Semaphore;
  readonly #intervalMs: number;
  #nextStart = 0;

  constructor(limits: ProviderLimits) {
    checkLimits(limits);
    this.#slots = new Semaphore(limits.maxConcurrency);
    this.#intervalMs = 1000 / limits.maxPerSecond;
  }

  async acquire(signal: AbortSignal): Promise<ProviderPermit> {
    await this.#slots.acquire(signal);
    try {
      const now = performance.now();
      const start = Math.max(now, this.#nextStart);
      this.#nextStart = start + this.#intervalMs;
      if (start > now) await pause(start - now, signal);
    } catch (err) {
      this.#slots.release();
      throw err;
    }
    return {
      release: once(async () => {
        this.#slots.release();
      }),
    };
  }
}

/** Sleeps ms; rejects with the signal's reason when it aborts. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(Math.ceil(ms), undefined, { signal });
  } catch (err) {
    throw signal.aborted ? signal.reason : err;
  }
}

function checkLimits(limits: ProviderLimits): void {
  if (!Number.isSafeInteger(limits.maxConcurrency) || limits.maxConcurrency < 1) {
    throw new TypeError('provider quota maxConcurrency must be a positive integer');
  }
  if (!Number.isFinite(limits.maxPerSecond) || limits.maxPerSecond <= 0) {
    throw new TypeError('provider quota maxPerSecond must be a positive number');
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | null = null;
  return () => (done ??= fn());
}

/** Counting semaphore with FIFO hand-off; a waiter whose signal aborts leaves the queue. */
class Semaphore {
  #free: number;
  readonly #queue: Array<() => void> = [];

  constructor(count: number) {
    this.#free = count;
  }

  acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.#queue.indexOf(grant);
        if (i >= 0) this.#queue.splice(i, 1);
        reject(signal.reason);
      };
      this.#queue.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  release(): void {
    const next = this.#queue.shift();
    if (next) next();
    else this.#free++;
  }
}
