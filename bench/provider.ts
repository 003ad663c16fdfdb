/**
 * `npm run bench:provider`: what a report costs at the data provider and how
 * long it takes next to the provider's own time (docs/benchmarks.md, "npm run
 * bench:provider"), on stdout and in bench/results/provider.json (progress on
 * stderr).
 *
 * A 200-person report with its company page (full profile and activity), then
 * an import of 20 more people, go through the API and an in-process scan
 * worker whose live collector is Bright Data's, pointed at the local Bright
 * Data server (test/support/fake-brightdata.ts) answering every request after
 * BENCH_PROVIDER_LATENCY_MS and making each snapshot in BENCH_PROVIDER_SNAPSHOT_MS.
 * The collector batches with its default BRIGHTDATA_BATCH_WINDOW_MS and polls
 * with its default BRIGHTDATA_POLL_INTERVAL_MS, as a deployment does.
 *
 * Printed per phase: calls per person per dataset (target ≤ 1/15), records
 * billed per person per dataset (target: people + posts delivered + one
 * company page per day), and the time from the request to terminal runs as a
 * ratio of the provider's own time for the same calls (the union of the spans
 * in which it was answering a request or making a snapshot; target ≤ 1.2 ×).
 * Each phase also records what happened after the last snapshot was
 * downloaded: its length, the items finished in it and the machine's busy
 * core-seconds in it (Linux), which is the service's own work per item once
 * the provider's part is over.
 *
 * Knobs (env): BENCH_PROVIDER_PEOPLE (200), BENCH_PROVIDER_IMPORT (20),
 * BENCH_PROVIDER_LATENCY_MS (500), BENCH_PROVIDER_SNAPSHOT_MS (10000,60000: one
 * scenario per value),
 * BENCH_PROVIDER_CONCURRENCY (512); DATABASE_URL's server or an embedded one.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { buildServer } from '../src/http/server.js';
import { Metrics } from '../src/metrics.js';
import { openRuntime } from '../src/runtime.js';
import { startScanWorker } from '../src/scanning/worker.js';
import { Health } from '../src/http/ops.js';
import { ScanItemQueue } from '../src/store/queue-channel.js';
import { updateWorkspace } from '../src/store/workspace-repository.js';
import { issueKeyAsOperator } from '../src/use-cases/manage-keys.js';
import { createWorkspace } from '../src/use-cases/workspace-settings.js';
import { DATASETS, startFakeBrightData, type FakeBrightData } from '../test/support/fake-brightdata.js';
import { coreSeconds, machineTicks } from './cpu-usage.js';
import { openDatabase, positiveInt, prepareRun, ROOT } from './harness.js';

const log = (message: string) => process.stderr.write(`${message}\n`);
const PEOPLE = positiveInt('BENCH_PROVIDER_PEOPLE', 200);
const IMPORTED = positiveInt('BENCH_PROVIDER_IMPORT', 20);
const LATENCY_MS = positiveInt('BENCH_PROVIDER_LATENCY_MS', 500);
/** Each snapshot time is a scenario of its own (a fresh workspace and people): a test-sized one and one closer to Bright Data's. */
const SNAPSHOT_TIMES = (process.env.BENCH_PROVIDER_SNAPSHOT_MS || '10000,60000').split(',').map((raw) => {
  const value = Number(raw.trim());
  if (!Number.isInteger(value) || value < 1) throw new Error('BENCH_PROVIDER_SNAPSHOT_MS must be positive integers, comma-separated');
  return value;
});
const CONCURRENCY = positiveInt('BENCH_PROVIDER_CONCURRENCY', 512);
const KEY = 'bench-provider-key';

interface Phase {
  phase: string;
  snapshot_ms: number;
  people: number;
  calls_per_person: Record<string, number>;
  records_billed_per_person: Record<string, number>;
  records_billed: Record<string, number>;
  posts_delivered: number;
  terminal_seconds: number;
  provider_seconds: number;
  ratio_to_provider: number;
  /** From the phase's start to the end of its last snapshot download (null: it downloaded none). */
  delivered_seconds: number | null;
  /** From that download's end to terminal: the items finished meanwhile and the whole machine's busy CPU (null without /proc). */
  after_delivery: { seconds: number; items: number; busy_core_seconds: number | null; busy_share: number | null } | null;
  /** The machine's 1-minute load average at the phase's start and end (the figures depend on it). */
  load_average: [number, number];
}

/** The total length of the union of [start, end] spans that end after `from`, clipped to it. */
function unionMs(spans: Array<[number, number]>, from: number): number {
  const sorted = spans
    .filter(([, end]) => end > from)
    .map(([start, end]): [number, number] => [Math.max(start, from), end])
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let current: [number, number] | null = null;
  for (const span of sorted) {
    if (current && span[0] <= current[1]) current[1] = Math.max(current[1], span[1]);
    else {
      if (current) total += current[1] - current[0];
      current = [...span];
    }
  }
  if (current) total += current[1] - current[0];
  return total;
}

const datasetName = (id: string | null) => Object.entries(DATASETS).find(([, v]) => v === id)?.[0] ?? String(id);

async function main(): Promise<void> {
  const scratch = await prepareRun('ps-bench-provider-', log);
  const database = await openDatabase(scratch.tempDir, log);
  scratch.onCleanup(() => database.close());
  const fake: FakeBrightData = await startFakeBrightData({ apiKey: KEY });
  scratch.onCleanup(() => fake.close());
  fake.latencyMs = LATENCY_MS;
  log(
    `bench:provider: ${PEOPLE} people, then ${IMPORTED} imported; provider answers after ${LATENCY_MS} ms, snapshots in ${SNAPSHOT_TIMES.join(' and ')} ms (${database.description})`,
  );
  const config = loadConfig({
    DATABASE_URL: database.url,
    DATA_DIR: path.join(scratch.tempDir, 'data'),
    LOG_LEVEL: 'silent',
    WORKER_CONCURRENCY: '0',
    READ_LIMIT_MULTIPLIER: '1000000',
    COLLECTOR: 'brightdata',
    BRIGHTDATA_API_KEY: KEY,
    BRIGHTDATA_BASE_URL: fake.url,
    BRIGHTDATA_BATCH_MAX: '250',
    BRIGHTDATA_POSTS_PER_PERSON: '3',
  });
  const runtime = await openRuntime(config, { poolSize: 10 });
  scratch.onCleanup(() => runtime.close());
  const clock = new ManualClock(new Date());
  const metrics = new Metrics({ role: 'bench', defaultMetrics: false });
  const app = await buildServer({
    db: runtime.db,
    config,
    clock,
    cursorSecret: 'bench-cursor-secret-0123456789abcdef',
    queue: new ScanItemQueue(),
    metrics,
    health: new Health(runtime.db),
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  scratch.onCleanup(() => app.close());
  const worker = await startScanWorker({ runtime, config, clock, concurrency: CONCURRENCY, log: () => {}, metrics });
  scratch.onCleanup(async () => {
    await worker.stop();
  });

  let secret = '';
  const api = async (method: string, url: string, body: unknown, idempotency: string) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'idempotency-key': idempotency },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { data: { report: { id: string } } };
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  /** Per poll of untilTerminal: when, the report's finished items and the machine's CPU ticks. */
  let samples: Array<{ at: number; finished: number; ticks: ReturnType<typeof machineTicks> }> = [];
  const untilTerminal = async (reportId: string, runs: number) => {
    for (;;) {
      const finished = await runtime.db
        .selectFrom('scan_items')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('report_id', '=', reportId)
        .where('status', 'not in', ['pending', 'running'])
        .executeTakeFirstOrThrow();
      samples.push({ at: Date.now(), finished: Number(finished.n), ticks: machineTicks() });
      const rows = await runtime.db.selectFrom('scan_runs').select('status').where('report_id', '=', reportId).execute();
      if (rows.length >= runs && rows.every((r) => !['queued', 'running'].includes(r.status))) return;
      await sleep(50);
    }
  };
  const phase = async (name: string, people: number, run: () => Promise<void>): Promise<Phase> => {
    const callsBefore = fake.calls.length;
    const billedBefore = { ...fake.billed };
    const loadBefore = os.loadavg()[0];
    const started = Date.now();
    samples = [];
    await run();
    const terminalMs = Date.now() - started;
    const downloads = fake.calls.slice(callsBefore).filter((c) => c.path.includes('/snapshot/') && c.endedAt !== undefined);
    const deliveredAt = downloads.length === 0 ? null : Math.max(...downloads.map((c) => c.endedAt!));
    const from = deliveredAt === null ? undefined : samples.find((s) => s.at >= deliveredAt);
    const to = samples.at(-1);
    const busy = from?.ticks && to?.ticks ? { busy: to.ticks.busy - from.ticks.busy, total: to.ticks.total - from.ticks.total } : null;
    const calls = fake.calls.slice(callsBefore).filter((c) => c.method === 'POST');
    const perDataset: Record<string, number> = {};
    for (const c of calls) perDataset[datasetName(c.datasetId)] = (perDataset[datasetName(c.datasetId)] ?? 0) + 1;
    const billed: Record<string, number> = {};
    for (const [id, n] of Object.entries(fake.billed)) billed[datasetName(id)] = n - (billedBefore[id] ?? 0);
    const providerMs = unionMs(fake.busyIntervals(), started);
    const per = (n: number) => Math.round((n / people) * 1000) / 1000;
    return {
      phase: name,
      snapshot_ms: fake.snapshotMs,
      people,
      calls_per_person: Object.fromEntries(Object.entries(perDataset).map(([k, v]) => [k, per(v)])),
      records_billed_per_person: Object.fromEntries(Object.entries(billed).map(([k, v]) => [k, per(v)])),
      records_billed: billed,
      posts_delivered: billed.posts ?? 0,
      terminal_seconds: terminalMs / 1000,
      provider_seconds: providerMs / 1000,
      ratio_to_provider: Math.round((terminalMs / Math.max(1, providerMs)) * 100) / 100,
      delivered_seconds: deliveredAt === null ? null : (deliveredAt - started) / 1000,
      after_delivery:
        from && to
          ? {
              seconds: (to.at - from.at) / 1000,
              items: to.finished - from.finished,
              busy_core_seconds: busy ? Math.round(coreSeconds(busy.busy) * 100) / 100 : null,
              busy_share: busy && busy.total > 0 ? Math.round((busy.busy / busy.total) * 100) / 100 : null,
            }
          : null,
      load_average: [Math.round(loadBefore * 100) / 100, Math.round(os.loadavg()[0] * 100) / 100],
    };
  };

  const results: Phase[] = [];
  for (const snapshotMs of SNAPSHOT_TIMES) {
    fake.snapshotMs = snapshotMs;
    log(`scenario: snapshots in ${snapshotMs} ms`);
    const now = new Date();
    const ws = await createWorkspace(runtime.db, `Provider bench ${snapshotMs}`, now);
    await updateWorkspace(
      runtime.db,
      ws.id,
      { writes_per_minute_per_key: 1_000_000, writes_per_minute_per_workspace: 1_000_000, submitted_profiles_per_minute_per_workspace: 100_000_000 },
      now,
    );
    const key = await issueKeyAsOperator({ db: runtime.db, clock }, { workspaceId: ws.id, scopes: ['*'], mode: 'live' });
    secret = key.secret;
    const profiles = Array.from({ length: PEOPLE }, (_, i) => ({ pronet_url: `https://www.linkedin.com/in/bench-${snapshotMs}-member-${i + 1}` }));
    let reportId = '';
    results.push(
      await phase('report', PEOPLE, async () => {
        // A report takes up to 100 people at creation; the rest come in imports of up to 100, at once.
        const created = await api(
          'POST',
          '/api/v1/reports',
          {
            name: 'Provider bench',
            company: { name: 'Acme Data', domain: 'acme-data.example', pronet_company_url: 'https://www.linkedin.com/company/acme-data' },
            profiles: profiles.slice(0, 100),
          },
          `bench-report-${snapshotMs}`,
        );
        reportId = created.data.report.id;
        for (let i = 100; i < profiles.length; i += 100) {
          await api('POST', `/api/v1/reports/${reportId}/profile-imports`, { profiles: profiles.slice(i, i + 100) }, `bench-report-${snapshotMs}-${i}`);
        }
        const runs = await runtime.db.selectFrom('scan_runs').select('id').where('report_id', '=', reportId).execute();
        await untilTerminal(reportId, runs.length);
      }),
    );
    results.push(
      await phase('import', IMPORTED, async () => {
        const before = await runtime.db.selectFrom('scan_runs').select('id').where('report_id', '=', reportId).execute();
        await api(
          'POST',
          `/api/v1/reports/${reportId}/profile-imports`,
          { profiles: Array.from({ length: IMPORTED }, (_, i) => ({ pronet_url: `https://www.linkedin.com/in/bench-${snapshotMs}-imported-${i + 1}` })) },
          `bench-import-${snapshotMs}`,
        );
        await untilTerminal(reportId, before.length + 1);
      }),
    );
  }
  for (const r of results) {
    log(
      `${r.phase}: ${r.people} people; calls/person ${JSON.stringify(r.calls_per_person)}; billed/person ${JSON.stringify(r.records_billed_per_person)}; ` +
        `terminal ${r.terminal_seconds} s, provider ${r.provider_seconds} s: ×${r.ratio_to_provider}; ` +
        (r.after_delivery
          ? `after the last download (${r.delivered_seconds} s): ${r.after_delivery.seconds} s for ${r.after_delivery.items} items, ${r.after_delivery.busy_core_seconds ?? '?'} busy core-s (${r.after_delivery.busy_share ?? '?'} of the machine); `
          : '') +
        `load ${r.load_average.join(' → ')}`,
    );
  }
  const output = {
    bench: 'provider',
    settings: {
      people: PEOPLE,
      imported: IMPORTED,
      latency_ms: LATENCY_MS,
      snapshot_ms: SNAPSHOT_TIMES,
      concurrency: CONCURRENCY,
      posts_per_person: 3,
      batch_max: 250,
      batch_window_ms: config.brightData?.batchWindowMs ?? null,
      poll_interval_ms: config.brightData?.pollIntervalMs ?? null,
    },
    database: database.description,
    results,
  };
  console.log(JSON.stringify(output, null, 2));
  await fs.writeFile(path.join(ROOT, 'bench/results/provider.json'), `${JSON.stringify(output, null, 2)}\n`);
  await scratch.cleanup();
}

await main();
