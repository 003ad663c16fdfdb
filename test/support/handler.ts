/**
 * A scan item handler's context for tests that drive processItem themselves
 * (no background worker): the test app's database and clock, a file media
 * store in its data directory, one collector for every key, one attempt.
 */
import path from 'node:path';
import type { Collector } from '../../src/scanning/collectors/collector.js';
import { SimulatorCollector } from '../../src/scanning/collectors/simulator/index.js';
import type { HandlerContext } from '../../src/scanning/item-handler.js';
import { FileMediaStore } from '../../src/scanning/media/media-store.js';
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
