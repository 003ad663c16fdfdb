/**
 * `npm run bench:pipeline`: the scan pipeline figures, each next to its
 * target, on stdout and in
 * bench/results/pipeline.json (progress on stderr):
 *
 * 1. throughput: SIMULATOR_DELAY_MS=0, 1,000 people in one report (both scan
 *    modes: 2,001 items), ONE `profile-scan worker` process with its default
 *    concurrency: items/s (target ≥ 100), CPU per item of the worker and of
 *    PostgreSQL, transactions, statements and rows per item, what the
 *    database sessions waited on. Then the same with 2 worker processes
 *    (ratio to 1).
 * 2. slow provider: SIMULATOR_DELAY_MS=2000, 1,000 people, one worker
 *    process: seconds until terminal (target ≤ 90).
 * 3. fairness: workspace A queues 2,000 people while one worker process
 *    (SIMULATOR_DELAY_MS=300) drains them; workspace B then creates a
 *    2-person report: seconds until B's runs are terminal (target ≤ 10), and
 *    A's items still pending then.
 * 4. API while draining: `GET /reports/{id}` through `profile-scan serve`
 *    (in-process worker on, SIMULATOR_DELAY_MS=0): p50/p99 idle, then while
 *    its worker drains 1,000 newly imported people (target: p99 ≤ 3 × idle).
 *
 * 0. images: the CPU of an item's image work alone (its
 *    evidence cards and the evidence pipeline: decoding, WebP preview, durable
 *    writes), measured in a child process without database or HTTP
 *    (bench/image-cost.ts), and the items/s ceiling it puts on these cores;
 *    also the items/s the image work alone reaches by the clock when run as
 *    a worker runs it. With the throughput scenario it is measured again
 *    right after the 1-process window, and the throughput is a fraction of
 *    the mean of the two, for each ceiling: on a shared machine the same
 *    image work drifts within an hour, so one measurement minutes before the
 *    window could move the fraction by more than the distance to its
 *    target. With both scenarios, the floor
 *    pipeline runs after the 1-process window (bench/floor-pipeline.ts): the
 *    image work and an item's rows written alone, nothing else, as a worker
 *    runs items; its fraction of the same ceiling is what any design
 *    reaches here. So is the floor with the analysis: the same, each item
 *    also evaluating the person's checks and building the analysis, the
 *    work a finish does whatever the queue's design. They run in the order
 *    floor, with the analysis, with the analysis, floor, and each is the
 *    mean of its two runs, so that the machine's drift weighs on both.
 *
 * Each scenario runs on a fresh database of one PostgreSQL server: a scratch
 * database on DATABASE_URL's server (the role needs CREATE DATABASE), else an
 * embedded server in a temporary directory. See bench/pipeline-scenarios.ts
 * for how each is driven and docs/benchmarks.md ("npm run bench:pipeline").
 *
 * Knobs (env; defaults are the issue's figures): BENCH_SCENARIOS
 * ("images,throughput,slow,fair,api"), BENCH_PEOPLE (1000), BENCH_WARMUP_PEOPLE
 * (100: a report drained before each throughput window, then ANALYZE; 0: none), BENCH_PROCESSES ("1,2",
 * throughput), BENCH_SLOW_DELAY_MS (2000), BENCH_FAIR_PEOPLE (2000),
 * BENCH_FAIR_DELAY_MS (300), BENCH_FAIR_TIMEOUT_SECONDS (120),
 * BENCH_API_SECONDS (5), BENCH_API_CONNECTIONS (10), BENCH_API_RATE (100
 * requests/s; 0 = unpaced), BENCH_PROFILE=1 (one more 1-process throughput
 * run with the worker under `node --cpu-prof`, summarized; not a target
 * figure, the profiler slows it), BENCH_WORKER_CONCURRENCY (unset: the service's
 * default), BENCH_PG_STAT_STATEMENTS=0 (embedded server without
 * pg_stat_statements), DATABASE_URL.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import { promisify } from 'node:util';
import path from 'node:path';
import { formatSummary } from './cpu-profile-summary.js';
import type { ImageCost } from './image-cost.js';
import { positiveInt, prepareRun, ROOT } from './harness.js';
import { apiWhileDraining, drain, fairness, type ApiResult, type Context, type DrainResult, type FairnessResult } from './pipeline-scenarios.js';
import { openServer } from './pipeline-setup.js';
// The children that run image work outside the service (image-cost.ts, floor-pipeline.ts) inherit the thread pool a worker gets.
import '../bin/thread-pool.js';
import { round } from './pipeline-stats.js';

const log = (m: string) => console.error(`[bench:pipeline] ${m}`);

const ALL = ['images', 'throughput', 'slow', 'fair', 'api'] as const;
type ScenarioName = (typeof ALL)[number];

function scenarioList(): ScenarioName[] {
  const raw = process.env.BENCH_SCENARIOS?.trim();
  if (!raw) return [...ALL];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names) if (!(ALL as readonly string[]).includes(n)) throw new Error(`BENCH_SCENARIOS: unknown scenario ${n} (known: ${ALL.join(', ')})`);
  return ALL.filter((n) => names.includes(n));
}

function nonNegativeInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
}

const settings = {
  scenarios: scenarioList(),
  people: positiveInt('BENCH_PEOPLE', 1000),
  warmup_people: nonNegativeInt('BENCH_WARMUP_PEOPLE', 100),
  processes: (process.env.BENCH_PROCESSES ?? '1,2').split(',').map((s) => Number(s.trim())),
  slow_delay_ms: positiveInt('BENCH_SLOW_DELAY_MS', 2000),
  fair_people: positiveInt('BENCH_FAIR_PEOPLE', 2000),
  fair_delay_ms: positiveInt('BENCH_FAIR_DELAY_MS', 300),
  fair_timeout_seconds: positiveInt('BENCH_FAIR_TIMEOUT_SECONDS', 120),
  api_seconds: positiveInt('BENCH_API_SECONDS', 5),
  api_connections: positiveInt('BENCH_API_CONNECTIONS', 10),
  api_rate: nonNegativeInt('BENCH_API_RATE', 100),
  profile: process.env.BENCH_PROFILE === '1',
  worker_concurrency: process.env.BENCH_WORKER_CONCURRENCY ? positiveInt('BENCH_WORKER_CONCURRENCY', 32) : null,
};
if (settings.processes.some((n) => !Number.isInteger(n) || n < 1 || n > 16)) throw new Error('BENCH_PROCESSES must be a list of integers from 1 to 16');

interface Target {
  figure: string;
  measured: string;
  target: string;
  met: boolean | null;
}

interface Output {
  images: ImageCost | null;
  /** The image work measured again right after the 1-process throughput window (with both `images` and `throughput`). */
  images_after: ImageCost | null;
  throughput: { runs: DrainResult[]; ratio_2_vs_1_items_per_second: number | null } | null;
  slow: DrainResult | null;
  fairness: FairnessResult | null;
  api: ApiResult | null;
  /** BENCH_PROFILE=1: one more 1-process throughput run with the worker under --cpu-prof (not a target figure). */
  profiled: DrainResult | null;
  errors: Record<string, string>;
}

function targets(out: Output): Target[] {
  const list: Target[] = [];
  const one = out.throughput?.runs.find((r) => r.processes === 1);
  if (out.images) {
    list.push({
      figure: `image work alone (simulator + evidence), ${out.images.total_ms_per_item} ms CPU per item: ceiling on ${out.images.cores} cores`,
      measured: `${out.images.items_per_second_ceiling.toFixed(1)} items/s`,
      target: '(≥ 100 needs ≤ 20 ms per item for all)',
      met: null,
    });
  }
  if (one) {
    list.push({
      figure: `throughput, SIMULATOR_DELAY_MS=0, ${one.people} people (${one.items} items), 1 worker process`,
      measured: `${one.items_per_second.toFixed(1)} items/s`,
      target: '≥ 100 items/s',
      met: one.items_per_second >= 100,
    });
    const life = one.whole_life_per_item;
    list.push({
      figure: `PostgreSQL CPU per item, whole life (admission ${fmt(one.admission_per_item.postgres_ms, ' ms')} + claim to roll-up ${fmt(one.per_item.cpu.postgres_ms_per_item, ' ms')})`,
      measured: fmt(life.postgres_ms, ' ms'),
      target: '≤ 3 ms',
      met: life.postgres_ms === null ? null : life.postgres_ms <= 3,
    });
    if (one.writes_alone) {
      // A reference, not a target: the same rows written by bare statements in the same run (bench/writes-alone.ts).
      const alone = one.writes_alone.postgres_ms_per_item;
      const drained = one.per_item.cpu.postgres_ms_per_item;
      list.push({
        figure: `PostgreSQL CPU per item of its rows written alone (${one.writes_alone.items} items replayed, rolled back); claim to roll-up ÷ that`,
        measured: `${fmt(alone, ' ms')}; ×${drained === null || alone <= 0 ? '?' : (drained / alone).toFixed(2)}`,
        target: '(reference)',
        met: null,
      });
    }
    list.push({
      figure: `statements per item, whole life (admission ${fmt(one.admission_per_item.statements)} + claim to roll-up ${fmt(one.per_item.statements_per_item)})`,
      measured: fmt(life.statements),
      target: '≤ 12',
      met: life.statements === null ? null : life.statements <= 12,
    });
    if (out.images) {
      // The throughput as a fraction of the image work's ceiling measured in the same run, before and after its window
      // (docs/scaling.md, "Capacity"), against two ceilings: the cores' whole time ÷ the image work's CPU
      // (an ideal: every core busy), and the items/s the image work alone reached by the clock, run as a worker runs it
      // (which does not keep every core busy either).
      const images = [out.images, out.images_after].filter((i): i is ImageCost => i !== null);
      const when = images.length > 1 ? 'means of before and after the window' : 'before the window';
      const ceiling = mean(images.map((i) => i.items_per_second_ceiling));
      const alone = mean(images.map((i) => i.items_per_second_alone));
      const busy = mean(images.map((i) => i.cores_busy));
      const ofCeiling = one.items_per_second / ceiling;
      const ofAlone = one.items_per_second / alone;
      list.push({
        figure: `throughput ÷ image-work ceiling of the same run (${one.items_per_second.toFixed(1)} ÷ ${ceiling.toFixed(1)} items/s, ${when}: ${images.map((i) => i.items_per_second_ceiling.toFixed(1)).join(', ')})`,
        measured: ofCeiling.toFixed(2),
        target: '≥ 0.8',
        met: ofCeiling >= 0.8,
      });
      list.push({
        figure: `throughput ÷ items/s of the image work alone run as a worker runs it, by the clock (${one.items_per_second.toFixed(1)} ÷ ${alone.toFixed(1)} items/s with ${busy.toFixed(2)} of the cores busy, ${when}: ${images.map((i) => i.items_per_second_alone.toFixed(1)).join(', ')})`,
        measured: ofAlone.toFixed(2),
        target: '≥ 0.8',
        met: ofAlone >= 0.8,
      });
      if (one.floor) {
        // What any design reaches here: the image work and the rows an item stores, nothing else (bench/floor-pipeline.ts).
        const floor = one.floor;
        list.push({
          figure: `floor pipeline (image work + the item's rows written alone, ${floor.items} items, ${floor.in_flight} in flight) ÷ the same ceiling (${floor.items_per_second.toFixed(1)} ÷ ${ceiling.toFixed(1)} items/s, ${floor.cores_busy.toFixed(2)} of the cores busy); throughput ÷ floor`,
          measured: `${(floor.items_per_second / ceiling).toFixed(2)}; ${(one.items_per_second / floor.items_per_second).toFixed(2)}`,
          target: '(reference: about the best a design reaches)',
          met: null,
        });
      }
      if (one.floor_analysis) {
        // The same floor, each item also doing what a finish computes whatever the design: the checks and the analysis.
        const floor = one.floor_analysis;
        list.push({
          figure: `floor pipeline with the analysis (+ the checks evaluated and the analysis built, as a finish builds them; ${floor.cores_busy.toFixed(2)} of the cores busy) ÷ the same ceiling (${floor.items_per_second.toFixed(1)} ÷ ${ceiling.toFixed(1)} items/s); throughput ÷ it`,
          measured: `${(floor.items_per_second / ceiling).toFixed(2)}; ${(one.items_per_second / floor.items_per_second).toFixed(2)}`,
          target: '(reference: the inevitable work of an item)',
          met: null,
        });
      }
    }
  }
  if (out.slow) {
    list.push({
      figure: `slow provider, SIMULATOR_DELAY_MS=${out.slow.simulator_delay_ms}, ${out.slow.people} people (${out.slow.items} items), 1 worker process`,
      measured: `${out.slow.seconds.toFixed(1)} s`,
      target: '≤ 90 s',
      met: out.slow.seconds <= 90,
    });
  }
  if (out.fairness) {
    const f = out.fairness;
    list.push({
      figure: `fairness: 2-person report of B while A has ${f.a_people} people queued`,
      measured: f.b_terminal_seconds === null ? `not terminal in ${f.timeout_seconds} s` : `${f.b_terminal_seconds.toFixed(1)} s`,
      target: '≤ 10 s',
      met: f.b_terminal_seconds !== null && f.b_terminal_seconds <= 10,
    });
  }
  if (out.api) {
    const a = out.api;
    list.push({
      figure: `API: GET /reports/{id} p99 while serve's worker drains ${a.people_admitted} people / idle p99`,
      measured: `×${a.p99_ratio.toFixed(2)} (${a.draining.p99_ms.toFixed(1)} ms vs ${a.idle.p99_ms.toFixed(1)} ms)`,
      target: '≤ ×3',
      met: a.p99_ratio <= 3,
    });
  }
  for (const [name, error] of Object.entries(out.errors))
    list.push({ figure: name, measured: `failed: ${error.split('\n')[0].slice(0, 80)}`, target: '', met: null });
  return list;
}

function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const fmt = (n: number | null, unit = '') => (n === null ? 'n/a' : `${n}${unit}`);
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

function details(out: Output): string[] {
  const lines: string[] = [];
  if (out.images) {
    const i = out.images;
    lines.push(
      `images (bench/image-cost.ts, ${i.items} items, ${i.cards} evidence cards, ${i.in_flight} in flight, no database): ` +
        `cards ${i.cards_ms_per_item} ms + evidence ${i.evidence_ms_per_item} ms = ${i.total_ms_per_item} ms CPU per item; ` +
        `a preview alone (decode, resize, WebP) ${i.preview_ms_per_card} ms per card; ` +
        `${i.cores} cores ÷ ${i.total_ms_per_item} ms = at most ${i.items_per_second_ceiling} items/s before any database or queue work; ` +
        `run as a worker runs it (${i.worker_in_flight} in flight), ${i.items_per_second_alone} items/s by the clock with ${i.cores_busy} of the cores busy`,
    );
  }
  if (out.images_after) {
    const i = out.images_after;
    lines.push(
      `images again, right after the 1-process throughput window: ${i.total_ms_per_item} ms CPU per item = at most ${i.items_per_second_ceiling} items/s` +
        (out.images ? ` (×${(i.total_ms_per_item / out.images.total_ms_per_item).toFixed(2)} the first measurement's CPU)` : '') +
        `; as a worker runs it, ${i.items_per_second_alone} items/s by the clock with ${i.cores_busy} of the cores busy`,
    );
  }
  for (const r of out.throughput?.runs ?? []) {
    const p = r.per_item;
    const statements =
      p.statements_per_item === null
        ? 'statements not counted (pg_stat_statements not loaded)'
        : `${p.statements_per_item} statements (${p.transaction_control_per_item} of them BEGIN/COMMIT/ROLLBACK) ` +
          `taking ${p.statement_ms_per_item?.all} ms in PostgreSQL, ${p.statement_ms_per_item?.without_report_lock} ms without the report-row lock, ` +
          `and ${p.statement_ms_per_item?.planning} ms planning them`;
    lines.push(
      `throughput, ${r.processes} process(es) × ${r.concurrency_per_process}: ${r.items} items in ${r.seconds} s = ${r.items_per_second} items/s ` +
        `(${r.people_per_second} people/s; ${r.average_running} running on average; admission before the window took ${r.admission_seconds} s)`,
      `  CPU per item: worker ${fmt(p.cpu.worker_ms_per_item, ' ms')} (${fmt(p.cpu.worker_cpu_percent_of_one_core, '%')} of a core), ` +
        `PostgreSQL ${fmt(p.cpu.postgres_ms_per_item, ' ms')} (${fmt(p.cpu.postgres_cpu_percent_of_one_core, '%')} of a core; ${p.cpu.postgres_scope})` +
        (p.cpu.postgres_by_process_ms_per_item
          ? `\n  PostgreSQL CPU per item by process: ${Object.entries(p.cpu.postgres_by_process_ms_per_item)
              .map(([kind, ms]) => `${kind} ${ms} ms`)
              .join(', ')}` +
            `; left out: the benchmark's own session ${fmt(p.cpu.benchmark_session_ms_per_item, ' ms')} (the release of the held items, its polls and samples)`
          : ''),
      `  per item: ${statements}, ${p.transactions_per_item} transactions, ${p.rows_read_per_item} rows read, ${p.rows_written_per_item} rows written`,
      `  storage: ${r.storage.database_bytes_per_person} bytes of database per person (${r.storage.database_bytes_per_item} per item), ` +
        `${r.storage.media_bytes_per_person} bytes of evidence media per person`,
      `  sessions on average: ${p.sessions.active} active, ` +
        `${p.sessions.waiting_on_lock} waiting on a lock ${JSON.stringify(p.sessions.lock_waits_by_relation)}, ` +
        `${p.sessions.idle_in_transaction} idle in transaction` +
        (Object.keys(p.sessions.idle_in_transaction_after).length > 0
          ? ` (after: ${Object.entries(p.sessions.idle_in_transaction_after)
              .sort((a, b) => b[1] - a[1])
              .slice(0, 3)
              .map(([query, n]) => `${n} "${query}"`)
              .join(', ')})`
          : ''),
    );
    for (const f of [r.floor, r.floor_analysis]) {
      if (!f) continue;
      lines.push(
        `  floor pipeline (bench/floor-pipeline.ts, ${f.people} of the report's people, ${f.items} items, ${f.in_flight} in flight on ${f.connections} connections; the mean of ${f.runs} runs): ` +
          `image work${f.analysis ? ', the checks and the analysis' : ''} and the item's rows written alone (rolled back), nothing else: ${f.items_per_second} items/s by the clock, ` +
          `CPU per item: this process ${f.worker_ms_per_item} ms, PostgreSQL ${f.postgres_ms_per_item} ms; ${f.cores_busy} of the cores busy`,
      );
    }
    for (const s of p.top_statements.slice(0, 5))
      lines.push(
        `  ${s.exec_ms_per_item} ms/item, ${s.calls_per_item} calls/item, ${s.mean_ms} ms and ${s.blocks_per_call} buffers each: ${s.query.slice(0, 100)}`,
      );
    for (const s of (p.top_planned ?? []).slice(0, 3))
      lines.push(`  planning ${s.plan_ms_per_item} ms/item, ${s.plans_per_call} plans per call: ${s.query.slice(0, 100)}`);
    if (p.table_writes_per_item?.length)
      lines.push(
        `  rows written per item by table (inserted/updated (HOT)/deleted): ${p.table_writes_per_item
          .map((w) => `${w.table} ${w.inserted}/${w.updated} (${w.hot_updated})/${w.deleted}`)
          .join(', ')}`,
      );
  }
  if (out.throughput?.ratio_2_vs_1_items_per_second != null)
    lines.push(`throughput, 2 processes vs 1: ×${out.throughput.ratio_2_vs_1_items_per_second.toFixed(2)} items/s`);
  if (out.slow) {
    const s = out.slow;
    lines.push(
      `slow provider: ${s.items} items in ${s.seconds} s = ${s.items_per_second} items/s with ${s.average_running} running on average; ` +
        `concurrency ${s.concurrency_per_process} × ${s.simulator_delay_ms} ms per call bounds it at ≥ ${s.concurrency_bound_seconds} s; ` +
        `worker CPU ${fmt(s.per_item.cpu.worker_ms_per_item, ' ms')}/item`,
    );
  }
  if (out.fairness) {
    const f = out.fairness;
    lines.push(
      `fairness: B terminal after ${fmt(f.b_terminal_seconds, ' s')} (first item claimed after ${fmt(f.b_first_item_started_seconds, ' s')}); ` +
        `A then: ${f.a_pending_then} pending, ${f.a_running_then} running, ${f.a_done_then} done of ${f.a_items} ` +
        `(worker × ${f.concurrency}, SIMULATOR_DELAY_MS=${f.simulator_delay_ms}; A admitted in ${f.a_admission_seconds} s; ` +
        `${f.a_running_when_b_arrived} of A's items running when B posted)`,
    );
  }
  if (out.api) {
    const a = out.api;
    const w = (x: typeof a.idle) =>
      `p50 ${x.p50_ms} ms, p99 ${x.p99_ms} ms (uncorrected ${x.raw_p99_ms} ms), max ${x.max_ms} ms, ${x.rps} req/s, serve CPU ${fmt(x.serve_cpu_percent, '%')}`;
    lines.push(
      `API (${a.connections} connections, ${a.rate ? `${a.rate} req/s` : 'unpaced'}; worker × ${a.worker_concurrency}): idle ${w(a.idle)}`,
      `  draining: ${w(a.draining)}; ${a.items_done_in_window} items done in the window ` +
        `(${a.items_per_second_in_window} items/s), ${a.items_pending_at_end} still pending at its end`,
    );
  }
  if (out.profiled?.profile) {
    const p = out.profiled;
    lines.push(
      `worker CPU profile (${p.profile!.file}; that run: ${p.items_per_second} items/s, worker ${fmt(p.per_item.cpu.worker_ms_per_item, ' ms')} CPU per item):`,
    );
    lines.push(formatSummary(p.profile!.summary));
  }
  for (const [name, error] of Object.entries(out.errors)) lines.push(`${name} failed: ${error}`);
  return lines;
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const loadAtStart = os.loadavg();
  const { tempDir, onCleanup, cleanup } = await prepareRun('ps-bench-pipeline-', log);
  const out: Output = { images: null, images_after: null, throughput: null, slow: null, fairness: null, api: null, profiled: null, errors: {} };
  let postgres = 'unknown';
  let database = 'embedded';
  try {
    const server = await openServer(tempDir, log);
    onCleanup(() => server.close());
    postgres = server.postgresVersion;
    database = server.embedded ? `embedded PostgreSQL${server.statements ? ' with pg_stat_statements' : ''}` : "DATABASE_URL's server";
    if (server.embedded && process.env.BENCH_PG_SETTINGS) database += `; BENCH_PG_SETTINGS=${process.env.BENCH_PG_SETTINGS}`;
    const ctx: Context = { server, tempDir, log, concurrency: settings.worker_concurrency };
    const attempt = async (name: string, run: () => Promise<void>) => {
      try {
        await run();
      } catch (error) {
        out.errors[name] = error instanceof Error ? (error.stack ?? error.message) : String(error);
        log(`${name} failed: ${out.errors[name]}`);
      }
    };

    const measureImages = async (): Promise<ImageCost> => {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/image-cost.ts', String(Math.min(settings.people, 300))], {
        cwd: ROOT,
        maxBuffer: 1 << 20,
      });
      const images = JSON.parse(stdout) as ImageCost;
      log(`images: ${images.total_ms_per_item} ms CPU per item → at most ${images.items_per_second_ceiling} items/s on ${images.cores} cores`);
      return images;
    };
    if (settings.scenarios.includes('images')) {
      await attempt('images', async () => {
        out.images = await measureImages();
      });
    }
    if (settings.scenarios.includes('throughput')) {
      const runs: DrainResult[] = [];
      for (const processes of settings.processes) {
        await attempt(`throughput-${processes}p`, async () => {
          const r = await drain(ctx, {
            label: `throughput_${processes}p`,
            processes,
            delayMs: 0,
            people: settings.people,
            warmupPeople: settings.warmup_people,
            floor: processes === 1 && settings.scenarios.includes('images'),
          });
          log(`throughput, ${processes} process(es): ${r.items} items in ${r.seconds} s = ${r.items_per_second} items/s`);
          runs.push(r);
        });
        if (processes === 1 && out.images) {
          await attempt('images-after', async () => {
            out.images_after = await measureImages();
          });
        }
      }
      if (settings.profile) {
        await attempt('throughput-profiled', async () => {
          const file = path.join(ROOT, 'bench/results/profiles/worker-throughput.cpuprofile');
          const r = await drain(ctx, {
            label: 'throughput_profiled',
            processes: 1,
            delayMs: 0,
            people: settings.people,
            warmupPeople: settings.warmup_people,
            profile: file,
          });
          log(`throughput under --cpu-prof: ${r.items_per_second} items/s`);
          out.profiled = r;
        });
      }
      const one = runs.find((r) => r.processes === 1);
      const two = runs.find((r) => r.processes === 2);
      out.throughput = { runs, ratio_2_vs_1_items_per_second: one && two ? round(two.items_per_second / one.items_per_second) : null };
    }
    if (settings.scenarios.includes('slow')) {
      await attempt('slow', async () => {
        out.slow = await drain(ctx, {
          label: 'slow',
          processes: 1,
          delayMs: settings.slow_delay_ms,
          people: settings.people,
          warmupPeople: settings.warmup_people,
        });
        log(`slow provider: ${out.slow.items} items in ${out.slow.seconds} s`);
      });
    }
    if (settings.scenarios.includes('fair')) {
      await attempt('fair', async () => {
        out.fairness = await fairness(ctx, {
          people: settings.fair_people,
          delayMs: settings.fair_delay_ms,
          timeoutSeconds: settings.fair_timeout_seconds,
        });
        log(`fairness: B terminal after ${out.fairness.b_terminal_seconds} s; A pending ${out.fairness.a_pending_then}`);
      });
    }
    if (settings.scenarios.includes('api')) {
      await attempt('api', async () => {
        out.api = await apiWhileDraining(ctx, {
          people: settings.people,
          seconds: settings.api_seconds,
          connections: settings.api_connections,
          rate: settings.api_rate,
        });
        log(`api: p99 idle ${out.api.idle.p99_ms} ms, draining ${out.api.draining.p99_ms} ms`);
      });
    }
  } finally {
    await cleanup();
  }

  const list = targets(out);
  const machine = {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model.trim() ?? 'unknown',
    node: process.version,
    postgres,
    database,
    load_average_at_start: loadAtStart.map((l) => round(l)),
    load_average_at_end: os.loadavg().map((l) => round(l)),
  };
  console.log(
    `\n${machine.cpus} × ${machine.cpu_model}; Node ${machine.node}; ${postgres} (${database}); ` +
      `load average ${machine.load_average_at_start.join(' ')} at start, ${machine.load_average_at_end.join(' ')} at end\n`,
  );
  console.log(
    textTable(
      ['figure', 'measured', 'target', 'met'],
      list.map((t) => [t.figure, t.measured, t.target, t.met === null ? '' : t.met ? 'yes' : 'NO']),
    ),
  );
  console.log(`\n${details(out).join('\n')}`);
  await fs.mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
  await fs.writeFile(
    path.join(ROOT, 'bench/results/pipeline.json'),
    `${JSON.stringify({ benchmark: 'pipeline', generated_at: startedAt, machine, settings, targets: list, ...out }, null, 2)}\n`,
  );
  log('wrote bench/results/pipeline.json');
  if (Object.keys(out.errors).length > 0) process.exitCode = 1;
}

main().then(
  () => process.exit(),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
