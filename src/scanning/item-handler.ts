/**
 * Processes one claimed scan item: begin (the roll-ups count it as
 * processing; the claim's own statement began most items), collect through the run's collector, store evidence media
 * (captured images and rendered cards, media/item-evidence.ts), then, in
 * one transaction, store the results, evaluate and store the analysis, end
 * the item and record its roll-up (finish-item.ts).
 *
 * Idempotent: every step names the claim, so an item that is finished,
 * cancelled, or claimed again by another worker (this one was taken for
 * dead, worker.ts) is left alone. A retryable collector failure puts the item back in
 * the queue with an exponential backoff; the last attempt (or a
 * non-retryable failure) ends it `failed`. A provider that asks us to wait
 * (429 with Retry-After: `CollectorError.deferMs`) puts it back without
 * spending the attempt.
 */
import type { Clock } from '../clock.js';
import { beginItem } from '../queue/begin.js';
import { markItemFailed, requeueItem } from '../queue/transitions.js';
import { type Claim, type ItemOutcome } from '../queue/item.js';
import { finishItem } from './finish-item.js';
import type { Db } from '../store/database.js';
import { isDatabaseUnavailable } from '../store/database-availability.js';
import { CollectorError, type Collector } from './collectors/collector.js';
import { gatherEvidence, prepareItemEvidence, type EvidenceSources } from './media/item-evidence.js';
import type { MediaStore } from './media/media-store.js';
import type { WorkerMetrics } from '../metrics.js';
import { MediaCollected, mediaGeneration } from '../store/maintenance-repository.js';
import type { KeyMode } from '../domain/keys.js';
import { withActivityObservation } from '../domain/activity-observation.js';

export interface HandlerContext {
  db: Db;
  clock: Clock;
  media: MediaStore;
  collectorFor(keyMode: KeyMode): Collector;
  /** Per-attempt time budget of a collection. */
  timeoutMs: number;
  /** Attempts per item, the first included. */
  maxAttempts: number;
  log: (message: string) => void;
  /** Items processed and their duration (src/metrics.ts); none in tests that do not care. */
  metrics?: WorkerMetrics;
  /** Downloads of the images records link to (media/item-evidence.ts); none: they are not downloaded. */
  evidence?: EvidenceSources;
}

export type HandlerResult = ItemOutcome | 'skipped' | 'retry' | 'deferred';

/** Seconds before attempt `n + 1` after attempt `n` failed: 1, 2, 4 … capped at 60. */
export function retryBackoffSeconds(attempt: number): number {
  return Math.min(60, 2 ** Math.max(0, attempt - 1));
}

/**
 * `lost` aborts when the worker learns that its claim was lost (the item
 * was cancelled, or claimed elsewhere while this worker was taken for dead);
 * the collection then stops early and nothing is stored.
 */
export async function processItem(ctx: HandlerContext, claim: Claim, lost: AbortSignal = new AbortController().signal): Promise<HandlerResult> {
  const started = performance.now();
  const seen = { mode: 'unknown' };
  let outcome = 'error';
  try {
    const result = await processClaim(ctx, claim, lost, seen);
    outcome = result;
    return result;
  } finally {
    ctx.metrics?.itemProcessed(seen.mode, outcome, (performance.now() - started) / 1000);
  }
}

async function processClaim(ctx: HandlerContext, claim: Claim, lost: AbortSignal, seen: { mode: string }): Promise<HandlerResult> {
  if (claim.attempts > ctx.maxAttempts) {
    // Every earlier claim ended with its worker gone (dead, or its lease ran out).
    await markItemFailed(ctx.db, claim, 'worker lost the item on every attempt', ctx.clock.now());
    return 'failed';
  }
  const claimed = claim.begun ?? (await beginItem(ctx.db, claim, ctx.clock.now()));
  if (!claimed) return 'skipped';
  seen.mode = claimed.mode;
  // Its image work (a collector's, the cards, the evidence) waits in its report's turn (image-work.ts).
  const imageShare = { workspaceId: claimed.workspace_id, reportId: claimed.report_id };
  const { inputs } = claimed;
  const collector = ctx.collectorFor(claimed.key_mode);
  const url = claimed.kind === 'company_page' ? inputs.companyUrl : inputs.profileUrl!;
  const isLast = claim.attempts >= ctx.maxAttempts;

  let result;
  try {
    const signal = AbortSignal.any([AbortSignal.timeout(collector.timeoutMs ?? ctx.timeoutMs), lost]);
    result = await collector.collect({ kind: claimed.kind, mode: claimed.mode, url, attempt: claim.attempts, signal, imageShare });
  } catch (error) {
    if (lost.aborted) return 'skipped';
    // The database went away under a collector that uses it (quotas, usage): not the item's failure,
    // and no attempt is spent on it (the worker hands the item back once the database answers).
    if (isDatabaseUnavailable(error)) throw error;
    const reason = error instanceof CollectorError ? error.reason : 'collector crashed';
    const retryable = error instanceof CollectorError ? error.retryable : true;
    const deferMs = error instanceof CollectorError ? error.deferMs : undefined;
    const now = ctx.clock.now();
    if (retryable && deferMs !== undefined) {
      await requeueItem(ctx.db, claim, { delayMs: deferMs, spendAttempt: false, reason }, now);
      ctx.log(`item ${claim.itemId}: ${reason}; deferred ${Math.round(deferMs / 1000)} s without spending attempt ${claim.attempts}`);
      return 'deferred';
    }
    if (retryable && !isLast) {
      const delay = retryBackoffSeconds(claim.attempts);
      await requeueItem(ctx.db, claim, { delayMs: delay * 1000, spendAttempt: true, reason }, now);
      ctx.log(`item ${claim.itemId} attempt ${claim.attempts} failed (${reason}); retry in ${delay} s`);
      return 'retry';
    }
    await markItemFailed(ctx.db, claim, reason, now);
    ctx.log(`item ${claim.itemId} failed after ${claim.attempts} attempt(s): ${reason}`);
    return 'failed';
  }

  if (result.outcome === 'inaccessible') {
    return finishItem(ctx.db, { item: claimed, inputs, outcome: 'inaccessible', reason: result.reason }, ctx.clock.now());
  }
  // Activity that was not positively observed is null from here on, whatever the collector said: no card, no event, no advice.
  const collected = withActivityObservation(result, claimed);
  // Captured images and rendered cards, whatever the collector (media/item-evidence.ts).
  const gathered = await gatherEvidence(ctx.evidence ?? { fetcher: null }, { kind: claimed.kind, mode: claimed.mode }, collected, imageShare, lost);
  // A media collection (maintenance) may delete a blob this item found already stored before the
  // item records its evidence: then the blobs are stored again (maintenance-repository.ts).
  for (let round = 1; ; round++) {
    // Read by the begin, before any blob was stored; read again after a collection ran.
    const generation = gathered.images.length === 0 ? undefined : round === 1 ? claimed.mediaGeneration : await mediaGeneration(ctx.db);
    const { evidence, missing } = await prepareItemEvidence(ctx.media, gathered, imageShare);
    if (lost.aborted) return 'skipped';
    try {
      return await finishItem(
        ctx.db,
        {
          item: claimed,
          inputs,
          outcome: 'succeeded',
          result: { ...collected, missing_sections: missing },
          evidence,
          mediaGeneration: generation,
          provider: collector.name,
        },
        ctx.clock.now(),
      );
    } catch (error) {
      if (!(error instanceof MediaCollected) || round >= 3) throw error;
      ctx.log(`item ${claim.itemId}: ${error.message}`);
    }
  }
}
