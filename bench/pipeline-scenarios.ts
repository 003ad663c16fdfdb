/**
 * The four scenarios of the scan pipeline benchmark,
 * each on a fresh database, through the service's own processes:
 *
 * - drain (throughput and slow provider): people admitted through the API
 *   (POST /reports of 100, then imports of 100), held back, then released at
 *   once to N `profile-scan worker` processes already started and idle, and
 *   timed until every run of the report is terminal;
 * - fairness: workspace A queues a large report while a worker drains it,
 *   then workspace B creates a 2-person report, timed until B's runs are
 *   terminal (read through the API, as a client would);
 * - API while draining: `GET /reports/{id}` latency through `profile-scan
 *   serve` (its in-process worker on), idle and then while that worker drains
 *   a large import.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from './cpu-profile-summary.js';
import { ROOT, startService } from './harness.js';
import { freePort } from './processes.js';
import {
  createScenarioDatabase,
  processTicks,
  startServiceProcess,
  startWorker,
  ticksToMs,
  type BenchServer,
  type Log,
  type ScenarioDatabase,
  type ServiceProcess,
  type Tenant,
  TAG,
} from './pipeline-setup.js';
import { runStatement } from '../test/support/db.js';
import { Observer, round, startWindow, sum, type WindowStats } from './pipeline-stats.js';
import { measureWritesAlone, type WritesAlone } from './writes-alone.js';
import type { FloorPipeline } from './floor-pipeline.js';

declare module 'autocannon' {
  interface Options {
    /** Requests per second from all connections together (autocannon ≥ 7). */
    overallRate?: number;
  }
}

export interface Context {
  server: BenchServer;
  tempDir: string;
  log: Log;
  /** --concurrency for workers (WORKER_CONCURRENCY for serve), or null for the service's default. */
  concurrency: number | null;
}

// ---- admission through the API ----

interface Api {
  origin: string;
  tenant: Tenant;
}

async function post(api: Api, urlPath: string, body: unknown, idempotencyKey: string): Promise<Record<string, any>> {
  const res = await fetch(api.origin + urlPath, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.tenant.secret}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST ${urlPath} answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as Record<string, any>;
}

function people(label: string, from: number, to: number): Array<{ pronet_url: string }> {
  return Array.from({ length: to - from }, (_, i) => ({ pronet_url: `https://pronet.example/in/bench-${label}-person-${from + i + 1}` }));
}

/** Creates a report with its first (up to) 100 people; returns the report and its scan runs. */
async function createReport(api: Api, label: string, count: number): Promise<{ reportId: string; runIds: string[] }> {
  const body = await post(
    api,
    '/api/v1/reports',
    {
      name: `Pipeline ${label}`,
      company: {
        name: `Bench Co ${label}`,
        domain: `bench-co-${label}.example.com`,
        pronet_company_url: `https://pronet.example/company/bench-co-${label}`,
      },
      profiles: people(label, 0, Math.min(100, count)),
    },
    `bench-${label}-create`,
  );
  return { reportId: body.data.report.id as string, runIds: (body.data.scan_requests as Array<{ id: string }>).map((r) => r.id) };
}

/** Adds people `from`..`to` (exclusive) to a report, 100 per import. */
async function importPeople(api: Api, reportId: string, label: string, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 100) {
    await post(api, `/api/v1/reports/${reportId}/profile-imports`, { profiles: people(label, i, Math.min(to, i + 100)) }, `bench-${label}-import-${i}`);
  }
}

/** A report of `count` people: POST /reports with the first 100, imports of 100 for the rest. */
async function admitReport(api: Api, label: string, count: number): Promise<string> {
  const { reportId } = await createReport(api, label, count);
  await importPeople(api, reportId, label, Math.min(100, count), count);
  return reportId;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Scratch directory, database and processes of one scenario, cleaned up last first. */
async function scenario<T>(
  ctx: Context,
  label: string,
  tenants: number,
  body: (db: ScenarioDatabase, dataDir: string, cleanup: (step: () => Promise<void>) => void) => Promise<T>,
): Promise<T> {
  const dataDir = await fs.mkdtemp(path.join(ctx.tempDir, `${label}-`));
  const steps: Array<() => Promise<void>> = [];
  try {
    const db = await createScenarioDatabase(ctx.server, label, tenants, dataDir, ctx.log);
    steps.push(() => db.drop());
    return await body(db, dataDir, (step) => steps.push(step));
  } finally {
    for (const step of steps.reverse()) await step().catch((e: unknown) => ctx.log(`cleanup: ${String(e)}`));
    await fs.rm(dataDir, { recursive: true, force: true }).catch(() => {});
  }
}

async function openRuns(o: Observer, reportId: string): Promise<{ runs: number; open: number }> {
  return o.one<{ runs: number; open: number }>(
    `select count(*)::int as runs, count(*) filter (where status in ('queued', 'running'))::int as open from scan_runs where report_id = $1`,
    [reportId],
  );
}

// ---- throughput and slow provider ----

export interface DrainResult {
  processes: number;
  concurrency_per_process: number;
  simulator_delay_ms: number;
  people: number;
  items: number;
  admission_seconds: number;
  seconds: number;
  items_per_second: number;
  people_per_second: number;
  /** Items running at once, averaged over samples. */
  average_running: number;
  /** Lower bound of the time set by concurrency alone: items × delay / (processes × concurrency). */
  concurrency_bound_seconds: number;
  run_statuses: Record<string, number>;
  item_statuses: Record<string, number>;
  per_item: WindowStats;
  /** What admitting the report through the API cost PostgreSQL, per item admitted (outside the drain's window). */
  admission_per_item: { postgres_ms: number | null; statements: number | null };
  /** An item's whole life: its admission share plus the drain window's figures (claim, begin, heartbeat share, finish, roll-up). */
  whole_life_per_item: { postgres_ms: number | null; statements: number | null };
  /** The same rows written by bare statements, on the same server right after the window (writes-alone.ts); null without the server's processes to read. */
  writes_alone: WritesAlone | null;
  /** With `floor`: the image work and the rows written alone, together as a worker runs items (floor-pipeline.ts); null otherwise. */
  floor: FloorPipeline | null;
  /** With `floor`: the same, each item also evaluating the person's checks and building the analysis; null otherwise. */
  floor_analysis: FloorPipeline | null;
  /** What the report's scans added to storage: the database (tables and indexes, dead rows included) and the media directory. */
  storage: { database_bytes_per_person: number; database_bytes_per_item: number; media_bytes_per_person: number };
  /** With `profile`: the worker's V8 CPU profile over the window (its main thread; libuv and sharp threads are not in it). */
  profile: { file: string; summary: ProfileSummary } | null;
}

/**
 * `people` admitted through the API (no worker running), held back
 * (ready_at a day later), then `processes` workers started and idle; the
 * clock starts when the items are released (ready again, plus the queue's
 * notification), and stops when every run of the report is terminal.
 */
export function drain(
  ctx: Context,
  options: { label: string; processes: number; delayMs: number; people: number; warmupPeople: number; profile?: string; floor?: boolean },
): Promise<DrainResult> {
  return scenario(ctx, options.label, 1, async (db, dataDir, cleanup) => {
    const api = await startService({ databaseUrl: db.url, port: await freePort(), dataDir, logFile: path.join(dataDir, 'service.log') });
    cleanup(() => api.stop());
    const o = await Observer.open(db);
    cleanup(() => o.close());
    const databaseSize = async () => Number((await o.one<{ n: string }>(`select pg_database_size(current_database())::text as n`)).n);
    // A warm-up report, drained before the window and followed by ANALYZE: a fresh database's tables
    // are empty and not analyzed until autovacuum's first pass (a minute in), and each connection
    // keeps the plans it made on those statistics; a running service's tables are analyzed.
    const warmupId =
      options.warmupPeople > 0 ? await admitReport({ origin: api.origin, tenant: db.tenants[0] }, `${options.label}-warmup`, options.warmupPeople) : null;
    const databaseBefore = await databaseSize();
    // The admission's share of an item's life: PostgreSQL's CPU and statements while the API admits the report.
    const admitWindow = await startWindow(o, ctx.server, []);
    const admitStarted = performance.now();
    const reportId = await admitReport({ origin: api.origin, tenant: db.tenants[0] }, options.label, options.people);
    const admissionSeconds = (performance.now() - admitStarted) / 1000;
    const admitted = await admitWindow.finish(sum(await o.itemCounts(reportId)), admissionSeconds);
    const databaseAdmitted = await databaseSize();
    await api.stop();
    await o.query(`update scan_items set ready_at = ready_at + interval '1 day' where status = 'pending' and report_id = $1`, [reportId]);

    const workers: ServiceProcess[] = [];
    let concurrency = 0;
    for (let i = 0; i < options.processes; i++) {
      const flags =
        options.profile && i === 0
          ? ['--cpu-prof', `--cpu-prof-dir=${path.dirname(options.profile)}`, `--cpu-prof-name=${path.basename(options.profile)}`]
          : [];
      if (flags.length > 0) {
        await fs.mkdir(path.dirname(options.profile!), { recursive: true });
        await fs.rm(options.profile!, { force: true });
      }
      const started = await startWorker(db, dataDir, options.delayMs, ctx.concurrency, flags);
      workers.push(started.worker);
      cleanup(() => started.worker.stop());
      concurrency = started.concurrency;
    }
    if (warmupId !== null) {
      const warmupStarted = performance.now();
      while ((await openRuns(o, warmupId)).open > 0) {
        for (const w of workers) if (!w.alive()) throw new Error(`a worker exited:\n${w.output().slice(-2000)}`);
        if (performance.now() - warmupStarted > 10 * 60_000) throw new Error(`${options.label}: warm-up runs not terminal after ten minutes`);
        await sleep(100);
      }
      // As the tables' owner (the service's role): the observer role may not analyze them, and
      // PostgreSQL then skips each table with a warning, nothing more. pg_class.reltuples is -1
      // until a table was first analyzed or vacuumed.
      await runStatement(db.url, `${TAG} analyze`);
      const unanalyzed = await o.query<{ relname: string }>(
        `select relname from pg_class where relnamespace = 'public'::regnamespace and relkind = 'r' and reltuples < 0`,
      );
      if (unanalyzed.length > 0) throw new Error(`${options.label}: ANALYZE left ${unanalyzed.map((r) => r.relname).join(', ')} without statistics`);
      ctx.log(
        `${options.label}: warm-up of ${options.warmupPeople} people drained in ${((performance.now() - warmupStarted) / 1000).toFixed(1)} s; tables analyzed`,
      );
    }
    // Storage of the measured report: its admission, and what its scans add from here.
    const databaseWarm = await databaseSize();
    const mediaWarm = await directoryBytes(path.join(dataDir, 'media'));
    ctx.log(
      `${options.label}: ${options.processes} worker process(es) × concurrency ${concurrency}, ` +
        `SIMULATOR_DELAY_MS=${options.delayMs}; releasing ${options.people} people`,
    );
    // Let the workers' start-up statistics reach pg_stat_database before the window opens.
    await sleep(2000);
    const window = await startWindow(
      o,
      ctx.server,
      workers.map((w) => w.pid),
    );
    await o.query(`update scan_items set ready_at = ready_at - interval '1 day' where status = 'pending'`);
    await o.query(`select pg_notify('scan_items', '')`);
    const started = performance.now();
    const fromUs = Number(process.hrtime.bigint() / 1000n);
    let polls = 0;
    let runningSamples = 0;
    let runningSum = 0;
    for (;;) {
      const runs = await openRuns(o, reportId);
      if (runs.open === 0) break;
      if (++polls % 5 === 0) {
        await window.sample();
        runningSum += (await o.one<{ n: number }>(`select count(*)::int as n from scan_items where status = 'running'`)).n;
        runningSamples++;
      }
      for (const w of workers) if (!w.alive()) throw new Error(`a worker exited:\n${w.output().slice(-2000)}`);
      if (performance.now() - started > 60 * 60_000) throw new Error(`${options.label}: runs not terminal after an hour`);
      await sleep(100);
    }
    const seconds = (performance.now() - started) / 1000;
    const toUs = Number(process.hrtime.bigint() / 1000n);
    const itemStatuses = await o.itemCounts(reportId);
    const items = sum(itemStatuses);
    const perItem = await window.finish(items, seconds);
    const runStatuses = await o.runCounts(reportId);
    const databaseBytes = databaseAdmitted - databaseBefore + ((await databaseSize()) - databaseWarm);
    const mediaBytes = (await directoryBytes(path.join(dataDir, 'media'))) - mediaWarm;
    const storage = {
      database_bytes_per_person: Math.round(databaseBytes / options.people),
      database_bytes_per_item: Math.round(databaseBytes / items),
      media_bytes_per_person: Math.round(mediaBytes / options.people),
    };
    // After the storage figures: the rolled-back rows leave dead tuples behind.
    const writesAlone =
      ctx.server.postmasterPid === null ? null : await measureWritesAlone(db.url, reportId, ctx.server.postmasterPid, { people: 1000, connections: 8 });
    let floor: FloorPipeline | null = null;
    let floorAnalysis: FloorPipeline | null = null;
    if (options.floor && ctx.server.postmasterPid !== null) {
      // In a child process, as the image work is measured: its CPU is the process's, every thread.
      const people = String(Math.min(options.people, 500));
      const measure = async (mode: string[]) => {
        const { stdout } = await promisify(execFile)(
          process.execPath,
          ['--import', 'tsx', 'bench/floor-pipeline.ts', db.url, reportId, String(ctx.server.postmasterPid), people, ...mode],
          { cwd: ROOT, maxBuffer: 1 << 20 },
        );
        const measured = JSON.parse(stdout) as FloorPipeline;
        ctx.log(
          `floor pipeline${measured.analysis ? ' with the analysis' : ''}: ${measured.items} items in ${measured.seconds} s = ${measured.items_per_second} items/s`,
        );
        return measured;
      };
      // In the order floor, with the analysis, with the analysis, floor: the machine's drift during the four (the
      // image work's CPU moves within a run) weighs on both alike; each figure is the mean of its two.
      const plain = [await measure([])];
      const analysed = [await measure(['analysis']), await measure(['analysis'])];
      plain.push(await measure([]));
      floor = meanFloor(plain);
      floorAnalysis = meanFloor(analysed);
    }
    let profile: DrainResult['profile'] = null;
    if (options.profile) {
      // The profile is written when the worker exits.
      await workers[0].stop();
      const cpuProfile = JSON.parse(await fs.readFile(options.profile, 'utf8')) as CpuProfile;
      profile = { file: path.relative(ROOT, options.profile), summary: summarizeProfile(cpuProfile, { fromUs, toUs }, 20) };
    }
    return {
      processes: options.processes,
      concurrency_per_process: concurrency,
      simulator_delay_ms: options.delayMs,
      people: options.people,
      items,
      admission_seconds: round(admissionSeconds),
      seconds: round(seconds),
      items_per_second: round(items / seconds),
      people_per_second: round(options.people / seconds),
      average_running: round(runningSum / Math.max(1, runningSamples), 1),
      concurrency_bound_seconds: round((items * options.delayMs) / 1000 / (options.processes * concurrency)),
      run_statuses: runStatuses,
      item_statuses: itemStatuses,
      per_item: perItem,
      writes_alone: writesAlone,
      floor,
      floor_analysis: floorAnalysis,
      admission_per_item: {
        postgres_ms: admitted.cpu.postgres_ms_per_item,
        statements: admitted.statements_per_item,
      },
      whole_life_per_item: {
        postgres_ms:
          admitted.cpu.postgres_ms_per_item === null || perItem.cpu.postgres_ms_per_item === null
            ? null
            : round(admitted.cpu.postgres_ms_per_item + perItem.cpu.postgres_ms_per_item),
        statements:
          admitted.statements_per_item === null || perItem.statements_per_item === null
            ? null
            : round(admitted.statements_per_item + perItem.statements_per_item),
      },
      storage,
      profile,
    };
  });
}

/** Bytes of the files under `dir` (0 when it does not exist). */
async function directoryBytes(dir: string): Promise<number> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  let total = 0;
  for (const e of entries) if (e.isFile()) total += (await fs.stat(path.join(e.parentPath ?? dir, e.name))).size;
  return total;
}

// ---- fairness ----

export interface FairnessResult {
  concurrency: number;
  simulator_delay_ms: number;
  a_people: number;
  a_items: number;
  a_admission_seconds: number;
  /** A's items running when B posted. */
  a_running_when_b_arrived: number;
  /** From the start of B's POST /reports until both of B's runs read terminal through the API; null when not within the timeout. */
  b_terminal_seconds: number | null;
  timeout_seconds: number;
  /** From B's POST until B's first item was claimed (started_at). */
  b_first_item_started_seconds: number | null;
  b_items: Record<string, number>;
  /** A's items at the moment B's runs were read terminal. */
  a_pending_then: number;
  a_running_then: number;
  a_done_then: number;
}

export function fairness(ctx: Context, options: { people: number; delayMs: number; timeoutSeconds: number }): Promise<FairnessResult> {
  return scenario(ctx, 'fair', 2, async (db, dataDir, cleanup) => {
    const api = await startService({ databaseUrl: db.url, port: await freePort(), dataDir, logFile: path.join(dataDir, 'service.log') });
    cleanup(() => api.stop());
    const o = await Observer.open(db);
    cleanup(() => o.close());
    const { worker, concurrency } = await startWorker(db, dataDir, options.delayMs, ctx.concurrency);
    cleanup(() => worker.stop());
    ctx.log(`fair: worker × concurrency ${concurrency}, SIMULATOR_DELAY_MS=${options.delayMs}; workspace A queues ${options.people} people`);
    const a: Api = { origin: api.origin, tenant: db.tenants[0] };
    const b: Api = { origin: api.origin, tenant: db.tenants[1] };
    const admitted = performance.now();
    const aReport = await admitReport(a, 'fair-a', options.people);
    const aAdmission = (performance.now() - admitted) / 1000;
    // B arrives while the worker is busy with A's items: all its slots taken, or A's items running for 3 s.
    const admittedAt = performance.now();
    let aRunning = 0;
    for (;;) {
      aRunning = (await o.one<{ n: number }>(`select count(*)::int as n from scan_items where status = 'running'`)).n;
      if (aRunning >= concurrency || (aRunning > 0 && performance.now() - admittedAt > 3000)) break;
      if (performance.now() - admittedAt > 60_000) throw new Error('fair: no item of A ran within 60 s');
      await sleep(50);
    }
    ctx.log(`fair: A admitted in ${aAdmission.toFixed(1)} s, ${aRunning} of its items running; workspace B creates a 2-person report`);

    const bStartedAt = new Date();
    const t0 = performance.now();
    const small = await createReport(b, 'fair-b', 2);
    let seconds: number | null = null;
    while (performance.now() - t0 < options.timeoutSeconds * 1000) {
      let terminal = true;
      for (const runId of small.runIds) {
        const res = await fetch(`${b.origin}/api/v1/reports/${small.reportId}/scans/${runId}`, {
          headers: { authorization: `Bearer ${b.tenant.secret}` },
        });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`GET scan run answered ${res.status}: ${text.slice(0, 300)}`);
        if (['queued', 'running'].includes((JSON.parse(text) as { data: { status: string } }).data.status)) terminal = false;
      }
      if (terminal) {
        seconds = (performance.now() - t0) / 1000;
        break;
      }
      if (!worker.alive()) throw new Error(`the worker exited:\n${worker.output().slice(-2000)}`);
      await sleep(100);
    }
    const aItems = await o.itemCounts(aReport);
    const first = await o.one<{ first: Date | null }>(`select min(started_at) as first from scan_items where report_id = $1`, [small.reportId]);
    return {
      concurrency,
      simulator_delay_ms: options.delayMs,
      a_people: options.people,
      a_items: sum(aItems),
      a_admission_seconds: round(aAdmission),
      a_running_when_b_arrived: aRunning,
      b_terminal_seconds: seconds === null ? null : round(seconds),
      timeout_seconds: options.timeoutSeconds,
      b_first_item_started_seconds: first.first ? round((first.first.getTime() - bStartedAt.getTime()) / 1000) : null,
      b_items: await o.itemCounts(small.reportId),
      a_pending_then: aItems.pending ?? 0,
      a_running_then: aItems.running ?? 0,
      a_done_then: sum(aItems) - (aItems.pending ?? 0) - (aItems.running ?? 0),
    };
  });
}

// ---- API while draining ----

export interface LatencyWindow {
  seconds: number;
  requests: number;
  rps: number;
  non_2xx: number;
  errors: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Without the coordinated-omission correction (see measureReads). */
  raw_p99_ms: number;
  /** CPU of the serve process over the window, in % of one core. */
  serve_cpu_percent: number | null;
}

export interface ApiResult {
  worker_concurrency: number;
  connections: number;
  /** Requests per second asked of autocannon (all connections); 0 = as fast as they can. */
  rate: number;
  idle: LatencyWindow;
  draining: LatencyWindow;
  p99_ratio: number;
  people_admitted: number;
  admission_seconds: number;
  /** Items that reached a terminal status during the draining window, and how many were still pending at its end. */
  items_done_in_window: number;
  items_pending_at_end: number;
  items_per_second_in_window: number;
}

/**
 * GET `urlPath` for `seconds`. With a rate, each connection sends at its share
 * of it, and a response later than that interval also records the samples of
 * the requests it held back (HdrHistogram's coordinated-omission correction:
 * latency − k × interval for k = 1, 2, … while positive), so a stall of the
 * event loop counts for every request that would have met it.
 */
async function measureReads(
  origin: string,
  urlPath: string,
  secret: string,
  seconds: number,
  connections: number,
  rate: number,
  servePid: number,
): Promise<LatencyWindow> {
  const corrected = createHistogram();
  const raw = createHistogram();
  let non2xx = 0;
  let requests = 0;
  const intervalUs = rate > 0 ? (connections / rate) * 1e6 : 0;
  const cpuBefore = processTicks(servePid);
  const started = performance.now();
  const instance = autocannon({
    url: origin,
    connections,
    duration: seconds,
    timeout: 30,
    requests: [{ method: 'GET', path: urlPath, headers: { authorization: `Bearer ${secret}` } }],
    ...(rate > 0 ? { overallRate: rate } : {}),
  });
  instance.on('response', (_client, status, _bytes, responseTime) => {
    requests++;
    if (status < 200 || status >= 300) {
      non2xx++;
      return;
    }
    const us = Math.max(1, Math.round(responseTime * 1000));
    raw.record(us);
    corrected.record(us);
    if (intervalUs > 0) for (let missed = us - intervalUs; missed > 0; missed -= intervalUs) corrected.record(Math.max(1, Math.round(missed)));
  });
  const result = await instance;
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = processTicks(servePid);
  const ms = (us: number) => round(us / 1000, 3);
  return {
    seconds: round(elapsed),
    requests,
    rps: round(raw.count / elapsed, 1),
    non_2xx: non2xx,
    errors: result.errors,
    p50_ms: raw.count ? ms(corrected.percentile(50)) : NaN,
    p99_ms: raw.count ? ms(corrected.percentile(99)) : NaN,
    max_ms: raw.count ? ms(corrected.max) : NaN,
    raw_p99_ms: raw.count ? ms(raw.percentile(99)) : NaN,
    serve_cpu_percent: cpuBefore !== null && cpuAfter !== null ? round((ticksToMs(cpuAfter - cpuBefore) / 1000 / elapsed) * 100, 0) : null,
  };
}

export function apiWhileDraining(ctx: Context, options: { people: number; seconds: number; connections: number; rate: number }): Promise<ApiResult> {
  return scenario(ctx, 'api', 1, async (db, dataDir, cleanup) => {
    const port = await freePort();
    const { process: serve, match } = await startServiceProcess(
      'serve',
      ['serve'],
      {
        DATABASE_URL: db.url,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        SIMULATOR_DELAY_MS: '0',
        LOG_LEVEL: 'warn',
        READ_LIMIT_MULTIPLIER: '1000000',
        ...(ctx.concurrency === null ? {} : { WORKER_CONCURRENCY: String(ctx.concurrency) }),
      },
      /API listening on [^\n]*concurrency (\d+)/,
    );
    cleanup(() => serve.stop());
    const o = await Observer.open(db);
    cleanup(() => o.close());
    const api: Api = { origin: `http://127.0.0.1:${port}`, tenant: db.tenants[0] };
    const concurrency = Number(match[1]);

    // The report read in both windows: 2 people, scanned before the idle window.
    const { reportId } = await createReport(api, 'api', 2);
    const readyBy = performance.now() + 60_000;
    while ((await openRuns(o, reportId)).open > 0) {
      if (performance.now() > readyBy) throw new Error('api: the first 2 people were not scanned in 60 s');
      await sleep(100);
    }
    const urlPath = `/api/v1/reports/${reportId}`;
    const secret = api.tenant.secret;
    ctx.log(
      `api: serve with an in-process worker × ${concurrency}; GET ${urlPath} ` +
        `idle for ${options.seconds} s (${options.connections} connections, ${options.rate || 'unpaced'} req/s)`,
    );
    await measureReads(api.origin, urlPath, secret, 1, options.connections, options.rate, serve.pid);
    const idle = await measureReads(api.origin, urlPath, secret, options.seconds, options.connections, options.rate, serve.pid);

    const admitted = performance.now();
    await importPeople(api, reportId, 'api', 2, 2 + options.people);
    const admission = (performance.now() - admitted) / 1000;
    const terminal = async () => {
      const counts = await o.itemCounts(reportId);
      return { done: sum(counts) - (counts.pending ?? 0) - (counts.running ?? 0), pending: counts.pending ?? 0 };
    };
    const before = await terminal();
    ctx.log(`api: ${options.people} people admitted in ${admission.toFixed(1)} s; GET ${urlPath} while the worker drains them`);
    const draining = await measureReads(api.origin, urlPath, secret, options.seconds, options.connections, options.rate, serve.pid);
    const after = await terminal();
    if (!serve.alive()) throw new Error(`serve exited:\n${serve.output().slice(-2000)}`);
    return {
      worker_concurrency: concurrency,
      connections: options.connections,
      rate: options.rate,
      idle,
      draining,
      p99_ratio: round(draining.p99_ms / idle.p99_ms),
      people_admitted: options.people,
      admission_seconds: round(admission),
      items_done_in_window: after.done - before.done,
      items_pending_at_end: after.pending,
      items_per_second_in_window: round((after.done - before.done) / draining.seconds, 1),
    };
  });
}

/** Measurements of one floor pipeline as one: the means of its times, rates and CPU, over `runs` runs. */
function meanFloor(runs: FloorPipeline[]): FloorPipeline {
  const mean = (pick: (f: FloorPipeline) => number) => round(runs.reduce((total, f) => total + pick(f), 0) / runs.length);
  return {
    ...runs[0],
    runs: runs.length,
    seconds: mean((f) => f.seconds),
    items_per_second: mean((f) => f.items_per_second),
    worker_ms_per_item: mean((f) => f.worker_ms_per_item),
    postgres_ms_per_item: mean((f) => f.postgres_ms_per_item),
    cores_busy: mean((f) => f.cores_busy),
  };
}
