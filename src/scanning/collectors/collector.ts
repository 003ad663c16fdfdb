/**
 * The collector interface: fetch the raw, observable data of one scan item
 * (one person's profile or one company page) from somewhere.
 *
 * Collectors do I/O and nothing else: they do not write to the database,
 * evaluate checks or store media. The scan item handler does that with what
 * a collector returns. Implementations: the deterministic simulator (test
 * keys, demos) and the HTTP provider collector (live keys).
 */

import type { CollectResult, ItemKind, ScanMode } from '../../domain/collected.js';
import type { ImageShare } from '../media/image-work.js';

// What collectors return is plain data of the domain; re-exported for the collectors' convenience.
export type {
  ActivityEventType,
  CollectedActivityEvent,
  CollectedCompany,
  CollectedPosition,
  CollectedProfile,
  CollectResult,
  ItemKind,
  MediaType,
  ScanMode,
  Screenshot,
} from '../../domain/collected.js';

export interface CollectRequest {
  kind: ItemKind;
  mode: ScanMode;
  /** Normalized pronet_url of the person, or the report's company page URL. */
  url: string;
  /** 1-based attempt number (retries increase it). */
  attempt: number;
  /** Aborted when the item's time budget is over or the worker shuts down. */
  signal: AbortSignal;
  /** Whose turn the collector's image work (if any) waits for: the item's workspace and report (media/image-work.ts). */
  imageShare?: ImageShare;
}

/**
 * A failed attempt. `retryable: false` ends the item at once (failed), true
 * lets the queue retry it with backoff until the attempt budget is spent.
 * `reason` is a short, secret-free text stored on the item.
 *
 * `deferMs` (only with `retryable: true`) asks to DEFER the item instead:
 * try it again no earlier than `deferMs` from now, and do not count this
 * attempt (e.g. the provider answered 429 with Retry-After, or the attempt
 * never reached the provider).
 */
export class CollectorError extends Error {
  readonly retryable: boolean;
  readonly reason: string;
  /** Positive integer of milliseconds when the item is to be deferred; undefined otherwise. */
  readonly deferMs: number | undefined;
  constructor(reason: string, options: { retryable: boolean; cause?: unknown; deferMs?: number }) {
    super(reason, { cause: options.cause });
    this.name = 'CollectorError';
    this.reason = reason;
    this.retryable = options.retryable;
    if (options.deferMs !== undefined && (!options.retryable || !Number.isSafeInteger(options.deferMs) || options.deferMs < 1)) {
      throw new TypeError('CollectorError deferMs must be a positive integer of milliseconds, with retryable: true');
    }
    this.deferMs = options.deferMs;
  }
}

export interface Collector {
  readonly name: string;
  /**
   * Longest one collect() may take (ms), when the collector needs longer than
   * the worker's default budget (a provider's asynchronous jobs); the item's
   * lease is kept alive by the worker's heartbeat meanwhile.
   */
  readonly timeoutMs?: number;
  collect(request: CollectRequest): Promise<CollectResult>;
}
