/**
 * `npm run bench:reads`: analysis reads at scale. The summary and
 * any findings page should cost about the same at 10,000 analyzed people as
 * at 100. A benchmark, not a test: it prints figures and ratios and never
 * fails on a target.
 *
 * 1. PostgreSQL as in bench/run.ts: a scratch database on DATABASE_URL's
 *    server when set (dropped afterwards; the role needs CREATE DATABASE),
 *    else an embedded server under a temporary directory.
 * 2. The service as its own process (`node bin/profile-scan.js serve`,
 *    WORKER_CONCURRENCY=0, LOG_LEVEL=warn, READ_LIMIT_MULTIPLIER raised), so
 *    autocannon never shares its event loop.
 * 3. One analyzed report each of 100, 1,000 and 10,000 people
 *    (bench/seed.ts `seedAnalyzedReport`).
 * 4. For each size, at concurrency 1, after a warm-up: GET …/analysis, the
 *    first findings page (…/analysis/profiles?limit=25) and the last one. The
 *    last page's cursor is found by traversing with limit=25 (first page with
 *    `expected_revision` from the summary, 4.13) until `next_cursor` is null,
 *    right before that page is measured (cursors expire after 15 minutes).
 *    Nothing writes during the run, so the revision stays the same; it is
 *    checked again after each size.
 * 5. One table on stdout (size, endpoint, req/s, median, p99, median ÷ the
 *    100-people median of the same endpoint) and bench/results/reads.json.
 *
 * Environment: BENCH_SECONDS (default 5), BENCH_WARMUP_SECONDS (1),
 * BENCH_READ_SIZES (default "100,1000,10000"; the first is the ratio's
 * reference), DATABASE_URL.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { createDb, createPool, type Db } from '../src/store/database.js';
import { openDatabase, positiveInt, prepareRun, startService } from './harness.js';
import { measure, probe, type Measurement, type RequestSpec } from './load.js';
import { freePort } from './processes.js';
import { createTenant, seedAnalyzedReport } from './seed.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const RESULTS = path.join(ROOT, 'bench', 'results');
const PAGE_LIMIT = 25;

const log = (message: string) => console.error(`bench:reads: ${message}`);

function sizes(): number[] {
  const raw = process.env.BENCH_READ_SIZES?.trim() || '100,1000,10000';
  const list = raw.split(',').map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('BENCH_READ_SIZES must be a list of positive integers');
  return list;
}

// --- the reads ---------------------------------------------------------------

type Endpoint = 'summary' | 'first page' | 'last page';
const ENDPOINTS: Endpoint[] = ['summary', 'first page', 'last page'];

interface Row {
  people: number;
  endpoint: Endpoint;
  path: string;
  /** Findings records on the measured page (null for the summary). */
  records: number | null;
  /** Pages walked to find the last page's cursor (last page only). */
  pagesTraversed: number | null;
  traversalSeconds: number | null;
  measurement: Measurement;
  /** Median ÷ the median of the same endpoint at the reference (smallest) size. */
  medianRatio: number | null;
}

interface Page {
  data: unknown[];
  revision: string;
  next_cursor: string | null;
}

async function getJson<T>(origin: string, secret: string, urlPath: string): Promise<T> {
  const res = await fetch(origin + urlPath, { headers: { authorization: `Bearer ${secret}` } });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET ${urlPath} answered ${res.status}: ${body.slice(0, 200)}`);
  return JSON.parse(body) as T;
}

async function profilesRevision(origin: string, secret: string, reportId: string): Promise<string> {
  const summary = await getJson<{ data: { collections: { profiles_revision: string } } }>(origin, secret, `/api/v1/reports/${reportId}/analysis`);
  return summary.data.collections.profiles_revision;
}

/**
 * Walks the findings collection with limit=25 (first page with the summary's
 * `expected_revision`) and returns the path of the last page: the cursor that
 * produced the page whose `next_cursor` is null.
 */
async function lastPagePath(origin: string, secret: string, reportId: string, revision: string) {
  const base = `/api/v1/reports/${reportId}/analysis/profiles?limit=${PAGE_LIMIT}`;
  const started = performance.now();
  let pathOfPage = `${base}&expected_revision=${encodeURIComponent(revision)}`;
  let pages = 0;
  let seen = 0;
  for (;;) {
    const page = await getJson<Page>(origin, secret, pathOfPage);
    pages++;
    seen += page.data.length;
    if (page.revision !== revision) throw new Error(`the findings revision changed during the traversal (${revision} → ${page.revision})`);
    if (page.next_cursor === null) {
      return { path: pathOfPage, records: page.data.length, pages, seen, seconds: (performance.now() - started) / 1000 };
    }
    pathOfPage = `${base}&cursor=${encodeURIComponent(page.next_cursor)}`;
  }
}

async function measureRead(spec: RequestSpec, seconds: number, warmupSeconds: number): Promise<Measurement> {
  const first = await probe(spec);
  if (first.status !== 200) throw new Error(`probe of ${spec.path} answered ${first.status}: ${first.body.slice(0, 200)}`);
  const lane = [{ spec, connections: 1 }];
  await measure(lane, { seconds: warmupSeconds });
  const m = await measure(lane, { seconds });
  const notOk = Object.entries(m.statuses).filter(([status]) => !status.startsWith('2'));
  if (notOk.length > 0 || m.errors > 0) log(`${spec.path}: non-2xx ${JSON.stringify(Object.fromEntries(notOk))}, errors ${m.errors}`);
  return m;
}

function withMedianRatios(rows: Row[]): Row[] {
  const reference = Math.min(...rows.map((r) => r.people));
  const refMedian = new Map(rows.filter((r) => r.people === reference).map((r) => [r.endpoint, r.measurement.medianMs]));
  return rows.map((r) => {
    const ref = refMedian.get(r.endpoint);
    return { ...r, medianRatio: ref && Number.isFinite(ref) ? r.measurement.medianMs / ref : null };
  });
}

function table(rows: Row[], reference: number): string {
  const head = ['people', 'endpoint', 'req/s', 'median ms', 'p99 ms', `median ÷ ${reference.toLocaleString('en-US')} people`];
  const body = rows.map((r) => [
    r.people.toLocaleString('en-US'),
    r.endpoint,
    r.measurement.rps.toFixed(0),
    r.measurement.medianMs.toFixed(2),
    r.measurement.p99Ms.toFixed(2),
    r.medianRatio === null ? '–' : `${r.medianRatio.toFixed(2)} ×`,
  ]);
  const right = [true, false, true, true, true, true];
  const lines = [head, ...body];
  const widths = head.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  const cell = (text: string, i: number) => (right[i] ? text.padStart(widths[i]) : text.padEnd(widths[i]));
  const md = (l: string[]) => `| ${l.map(cell).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (right[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [md(head), rule, ...body.map(md)].join('\n');
}

async function postgresVersion(db: Db): Promise<string> {
  const result = await sql<{ version: string }>`select version()`.execute(db);
  return result.rows[0].version.replace(/ on .*$/, '');
}

async function main(): Promise<void> {
  const seconds = positiveInt('BENCH_SECONDS', 5);
  const warmupSeconds = positiveInt('BENCH_WARMUP_SECONDS', 1);
  const peopleSizes = sizes();
  const startedAt = new Date().toISOString();
  const loadAtStart = os.loadavg();

  await fs.mkdir(RESULTS, { recursive: true });
  await fs.rm(path.join(RESULTS, 'reads-service.log.tmp'), { force: true });
  const { tempDir, onCleanup, cleanup } = await prepareRun('ps-bench-reads-', log);

  try {
    const database = await openDatabase(tempDir, log);
    onCleanup(() => database.close());
    const service = await startService({
      databaseUrl: database.url,
      port: await freePort(),
      dataDir: path.join(tempDir, 'service'),
      logFile: path.join(RESULTS, 'reads-service.log.tmp'),
    });
    onCleanup(() => service.stop());
    log(`service on ${service.origin} (${database.description})`);

    const pool = createPool(database.url, 4);
    const db = createDb(pool);
    onCleanup(() => db.destroy());
    const tenant = await createTenant(db);
    const headers = { authorization: `Bearer ${tenant.secret}` };
    const get = (urlPath: string): RequestSpec => ({ origin: service.origin, method: 'GET', path: urlPath, headers });

    const reports = new Map<number, string>();
    for (const people of peopleSizes) {
      const t = performance.now();
      reports.set(people, await seedAnalyzedReport(db, tenant.workspaceId, people));
      log(`seeded ${people} analyzed people in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    // Fresh statistics for the planner, as autovacuum would eventually do.
    await sql`analyze`.execute(db);

    const rows: Row[] = [];
    for (const people of peopleSizes) {
      const reportId = reports.get(people)!;
      const revision = await profilesRevision(service.origin, tenant.secret, reportId);
      const analysis = `/api/v1/reports/${reportId}/analysis`;
      for (const endpoint of ENDPOINTS) {
        let urlPath: string;
        let records: number | null = null;
        let pagesTraversed: number | null = null;
        let traversalSeconds: number | null = null;
        if (endpoint === 'summary') {
          urlPath = analysis;
        } else if (endpoint === 'first page') {
          urlPath = `${analysis}/profiles?limit=${PAGE_LIMIT}`;
          records = (await getJson<Page>(service.origin, tenant.secret, urlPath)).data.length;
        } else {
          // Right before measuring: the cursor expires after 15 minutes.
          const last = await lastPagePath(service.origin, tenant.secret, reportId, revision);
          if (last.seen !== people) throw new Error(`the traversal saw ${last.seen} records, expected ${people}`);
          urlPath = last.path;
          records = last.records;
          pagesTraversed = last.pages;
          traversalSeconds = last.seconds;
          log(`${people}: last page found after ${last.pages} pages in ${last.seconds.toFixed(1)} s`);
        }
        log(`${people}: ${endpoint}`);
        const measurement = await measureRead(get(urlPath), seconds, warmupSeconds);
        rows.push({ people, endpoint, path: urlPath, records, pagesTraversed, traversalSeconds, measurement, medianRatio: null });
      }
      const after = await profilesRevision(service.origin, tenant.secret, reportId);
      if (after !== revision) log(`${people}: the findings revision changed during the run (${revision} → ${after})`);
    }

    const measured = withMedianRatios(rows);
    const machine = {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
      node: process.version,
      postgres: await postgresVersion(db),
      database: database.description,
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: os.loadavg(),
    };
    const report = {
      startedAt,
      machine,
      settings: { seconds, warmupSeconds, connections: 1, pageLimit: PAGE_LIMIT, sizes: peopleSizes },
      results: measured.map((r) => ({
        people: r.people,
        endpoint: r.endpoint,
        path: r.path.replace(/cursor=[^&]+/, 'cursor=…'),
        records: r.records,
        pagesTraversed: r.pagesTraversed,
        traversalSeconds: r.traversalSeconds,
        rps: r.measurement.rps,
        medianMs: r.measurement.medianMs,
        p99Ms: r.measurement.p99Ms,
        medianRatio: r.medianRatio,
        responses: r.measurement.responses,
        statuses: r.measurement.statuses,
        errors: r.measurement.errors,
      })),
    };
    await fs.writeFile(path.join(RESULTS, 'reads.json'), `${JSON.stringify(report, null, 2)}\n`);
    const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
    console.log(
      `\n${machine.cpus} × ${machine.cpuModel}; Node ${machine.node}; ${machine.postgres} (${machine.database}); ` +
        `c=1, ${seconds} s per read after ${warmupSeconds} s warm-up; load average ${load(loadAtStart)} → ${load(machine.loadAverageAtEnd)}\n`,
    );
    console.log(table(measured, Math.min(...peopleSizes)));
    console.log('\nwritten: bench/results/reads.json');
  } finally {
    await cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:reads: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
