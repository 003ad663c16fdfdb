/**
 * For tests that drive the item handler themselves (no background worker):
 * its context (the test app's database and clock, a file media store in its
 * data directory, one collector for every key, one attempt), and a scan of
 * everything queued through it.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Collector } from '../../src/scanning/collectors/collector.js';
import { SimulatorCollector } from '../../src/scanning/collectors/simulator/index.js';
import { processItem, type HandlerContext, type HandlerResult } from '../../src/scanning/item-handler.js';
import { FileMediaStore } from '../../src/scanning/media/media-store.js';
import { claimItem } from '../../src/queue/claim.js';
import type { TestApp } from './app.js';

export function handlerContext(t: TestApp, collector: Collector = new SimulatorCollector({ delayMs: 0 })): HandlerContext {
  return {
    db: t.runtime.db,
    clock: t.clock,
    media: new FileMediaStore(path.join(t.config.dataDir, 'media')),
    collectorFor: () => collector,
    timeoutMs: 10_000,
    maxAttempts: 1,
    log: () => {},
  };
}

/**
 * Claims every queued item and processes it in this process, one at a time,
 * asserting each outcome is one of `accept`; returns how many there were.
 * For tests that drive the handler themselves (their own collector or media,
 * or a check between items) instead of a background worker.
 */
export async function scanQueued(t: TestApp, ctx: HandlerContext = handlerContext(t), accept: readonly HandlerResult[] = ['succeeded']): Promise<number> {
  let items = 0;
  for (let claim = await claimItem(t.runtime.db, 30); claim; claim = await claimItem(t.runtime.db, 30)) {
    const outcome = await processItem(ctx, claim);
    assert.ok(accept.includes(outcome), `item ${claim.itemId}: ${outcome}`);
    items++;
  }
  return items;
}
