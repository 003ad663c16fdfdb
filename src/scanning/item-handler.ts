/**
 * Processes one scan item: claim (pending → running), collect through the
 * run's collector, store evidence media, then — in one transaction — store
 * the analysis, finish the item and refresh the run and report roll-ups.
 *
 * Idempotent: an item that is already finished (or cancelled) is left alone,
 * so a job delivered twice changes nothing visible twice. A retryable
 * collector failure is rethrown so the queue retries it with backoff; the
 * last attempt (or a non-retryable failure) ends the item `failed`.
 */
import type { Clock } from '../clock.js';
import { analysisInputs, finishItem, markItemFailed, startItem, type ItemOutcome } from '../store/item-repository.js';
import type { Db } from '../store/database.js';
import { CollectorError, type Collector } from './collectors/collector.js';
import { EvidenceError, prepareEvidence } from './media/evidence.js';
import type { MediaStore } from './media/media-store.js';

export interface HandlerContext {
  db: Db;
  clock: Clock;
  media: MediaStore;
  collectorFor(keyMode: 'test' | 'live'): Collector;
  /** Per-attempt time budget of a collection. */
  timeoutMs: number;
  log: (message: string) => void;
}

export interface Attempt {
  /** 1-based. */
  number: number;
  isLast: boolean;
}

export async function processItem(ctx: HandlerContext, itemId: string, attempt: Attempt): Promise<ItemOutcome | 'skipped'> {
  const claimed = await startItem(ctx.db, itemId, ctx.clock.now());
  if (!claimed) return 'skipped';
  const inputs = await analysisInputs(ctx.db, claimed);
  const collector = ctx.collectorFor(claimed.key_mode);
  const url = claimed.kind === 'company_page' ? inputs.companyUrl : inputs.profileUrl!;

  let result;
  try {
    result = await collector.collect({ kind: claimed.kind, mode: claimed.mode, url, attempt: attempt.number, signal: AbortSignal.timeout(ctx.timeoutMs) });
  } catch (error) {
    const reason = error instanceof CollectorError ? error.reason : 'collector crashed';
    const retryable = error instanceof CollectorError ? error.retryable : true;
    if (retryable && !attempt.isLast) {
      ctx.log(`item ${itemId} attempt ${attempt.number} failed (${reason}); will retry`);
      throw error;
    }
    await markItemFailed(ctx.db, itemId, reason, ctx.clock.now());
    ctx.log(`item ${itemId} failed after ${attempt.number} attempt(s): ${reason}`);
    return 'failed';
  }

  if (result.outcome === 'inaccessible') {
    return finishItem(ctx.db, { item: claimed, inputs, outcome: 'inaccessible', reason: result.reason }, ctx.clock.now());
  }
  const evidence = [];
  const missing = [...result.missing_sections];
  for (const shot of result.screenshots) {
    try {
      evidence.push({ section: shot.section, prepared: await prepareEvidence(ctx.media, shot) });
    } catch (error) {
      if (!(error instanceof EvidenceError)) throw error;
      // Unusable media is not a failed collection; the section is incomplete.
      missing.push(`evidence:${shot.section}`);
    }
  }
  return finishItem(ctx.db, { item: claimed, inputs, outcome: 'succeeded', result: { ...result, missing_sections: missing }, evidence }, ctx.clock.now());
}
