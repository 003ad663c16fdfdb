/**
 * The CPU cost of the image work of one scan item, measured on its own: the
 * evidence cards of the simulator's data (SVG, glyphs, PNG encoding; the
 * scanning layer renders them for every collector, evidence-cards/) and the
 * evidence pipeline (type sniffing, header, decoding, the WebP preview, the
 * durable writes of both blobs). Nothing else of an item runs here: no database, no
 * HTTP, no queue. It tells how many items per second the cores of this
 * machine allow from the image work alone, whatever the rest costs.
 *
 * Run by `npm run bench:pipeline` (scenario `images`) as a child process, or
 * alone: `node --import tsx bench/image-cost.ts [people]` prints one JSON
 * object. The mix is the throughput scenario's: `people` people in both scan
 * modes plus one company page, run as a `profile-scan worker` runs them (the
 * image gate of a worker process, libvips' default threads) with 16 items in flight, after a
 * warm-up of 20 items (glyph cache, libvips start-up). CPU is the process's
 * (every thread), from process.cpuUsage.
 *
 * Two ceilings come out of it:
 * - `items_per_second_ceiling`: the cores' whole time divided by the CPU an
 *   item's image work takes (cards, then evidence, measured apart). An ideal:
 *   it assumes every core busy all the time.
 * - `items_per_second_alone`: the items per second the image work alone
 *   reaches when it runs on these cores as a worker runs it (each item's
 *   cards, then its evidence, with WORKER_CONCURRENCY items in flight), timed
 *   by the clock, and `cores_busy`, the fraction of the cores' time it used.
 *   Even alone it does not keep every core busy (the main thread's share of
 *   it is serial: the cards' layout and glyph blending, sharp's calls), and on
 *   a shared machine other tenants' load slows it as it slows the pipeline:
 *   this is the rate the pipeline would reach if everything besides the image
 *   work cost nothing.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SimulatorCollector } from '../src/scanning/collectors/simulator/index.js';
import type { CollectRequest, Screenshot } from '../src/scanning/collectors/collector.js';
import type { CollectResult } from '../src/domain/collected.js';
import { renderEvidenceCards } from '../src/scanning/evidence-cards/render-cards.js';
import { readSetting } from '../src/config.js';
import { prepareEvidence } from '../src/scanning/media/evidence.js';
import { FileMediaStore } from '../src/scanning/media/media-store.js';
import { makePreview } from '../src/scanning/media/media-types.js';

export interface ImageCost {
  items: number;
  /** Evidence cards rendered (every section with data). */
  cards: number;
  in_flight: number;
  /** CPU ms per item: collecting (the simulator's data) and rendering its cards, then the evidence pipeline. */
  cards_ms_per_item: number;
  evidence_ms_per_item: number;
  total_ms_per_item: number;
  /** Of the evidence: the preview alone (decode, resize, WebP), per card, measured one at a time. */
  preview_ms_per_card: number;
  cores: number;
  /** cores × 1000 ÷ total: the ceiling the image work alone puts on items/s, were every core busy all the time. */
  items_per_second_ceiling: number;
  /** Items in flight when the image work runs as a worker runs it (WORKER_CONCURRENCY's default). */
  worker_in_flight: number;
  /** Items per second, by the clock, of the image work alone run as a worker runs it. */
  items_per_second_alone: number;
  /** Of the cores' time during that run, the fraction its CPU used. */
  cores_busy: number;
}

const IN_FLIGHT = 16;
const WARM_UP = 20;

/** The throughput scenario's mix: `people` people in both scan modes, then one company page. */
function requests(people: number, salt: string): Array<Pick<CollectRequest, 'url' | 'kind' | 'mode'>> {
  const list: Array<Pick<CollectRequest, 'url' | 'kind' | 'mode'>> = [];
  for (let i = 0; i < people; i++) {
    const url = `https://www.linkedin.com/in/bench-${salt}-${i}`;
    list.push({ url, kind: 'person', mode: 'full_profile' }, { url, kind: 'person', mode: 'activity' });
  }
  list.push({ url: `https://www.linkedin.com/company/bench-${salt}`, kind: 'company_page', mode: 'full_profile' });
  return list;
}

/** Runs `work` over `items` with at most `limit` at once. */
export async function inFlight<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** What `ImageWork.collect` gives: the collector's result (null when it found the page inaccessible) and its evidence cards. */
export interface Collected {
  result: Extract<CollectResult, { outcome: 'ok' }> | null;
  shots: Screenshot[];
}

/** An item's image work as the scanning layer does it: the collector's data and its evidence cards, then each card through the evidence pipeline. */
export interface ImageWork {
  collect(r: Pick<CollectRequest, 'url' | 'kind' | 'mode'>): Promise<Collected>;
  prepare(shot: Screenshot): Promise<void>;
}

/** The image work on the simulator's data, its media under `dir`, warmed up (glyph cache, libvips start-up). */
export async function openImageWork(dir: string): Promise<ImageWork> {
  const simulator = new SimulatorCollector({ delayMs: 0 });
  const store = new FileMediaStore(path.join(dir, 'media'));
  await store.check();
  const signal = new AbortController().signal;
  const work: ImageWork = {
    async collect(r) {
      const result = await simulator.collect({ ...r, attempt: 1, signal });
      return result.outcome === 'ok' ? { result, shots: await renderEvidenceCards(r, result) } : { result: null, shots: [] };
    },
    async prepare(shot) {
      await prepareEvidence(store, shot);
    },
  };
  for (const r of requests(WARM_UP / 2, 'warm')) for (const shot of (await work.collect(r)).shots) await work.prepare(shot);
  return work;
}

export async function measureImageCost(people: number, dir: string): Promise<ImageCost> {
  const { collect, prepare } = await openImageWork(dir);

  const list = requests(people, 'measured');
  const shots: Screenshot[] = [];
  let started = process.cpuUsage();
  await inFlight(list, IN_FLIGHT, async (r) => {
    shots.push(...(await collect(r)).shots);
  });
  const simulatorMs = cpuMs(started);

  started = process.cpuUsage();
  await inFlight(shots, IN_FLIGHT, async (shot) => {
    await prepare(shot);
  });
  const evidenceMs = cpuMs(started);

  // The same work again, item by item as a worker does it (cards, then their evidence), timed by the clock.
  const workerInFlight = readSetting({}, 'WORKER_CONCURRENCY');
  const asWorker = requests(people, 'as-worker');
  started = process.cpuUsage();
  const clock = performance.now();
  await inFlight(asWorker, workerInFlight, async (r) => {
    for (const shot of (await collect(r)).shots) await prepare(shot);
  });
  const aloneSeconds = (performance.now() - clock) / 1000;
  const aloneCpuMs = cpuMs(started);

  const sample = shots.slice(0, 200);
  started = process.cpuUsage();
  for (const shot of sample) await makePreview(shot.bytes, shot.media_type);
  const previewMs = cpuMs(started);

  const total = (simulatorMs + evidenceMs) / list.length;
  const cores = os.availableParallelism();
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    items: list.length,
    cards: shots.length,
    in_flight: IN_FLIGHT,
    cards_ms_per_item: round(simulatorMs / list.length),
    evidence_ms_per_item: round(evidenceMs / list.length),
    total_ms_per_item: round(total),
    preview_ms_per_card: round(previewMs / sample.length),
    cores,
    items_per_second_ceiling: round((cores * 1000) / total),
    worker_in_flight: workerInFlight,
    items_per_second_alone: round(asWorker.length / aloneSeconds),
    cores_busy: round(aloneCpuMs / 1000 / aloneSeconds / cores),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const people = Number(process.argv[2] ?? 300);
  if (!Number.isInteger(people) || people < 1) throw new Error('usage: bench/image-cost.ts [people ≥ 1]');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-image-cost-'));
  try {
    console.log(JSON.stringify(await measureImageCost(people, dir)));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
