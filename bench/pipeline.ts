/**
 * `npm run bench:pipeline`: scan pipeline throughput with 1 and 2 worker
 * processes.
 *
 * For each process count: a fresh database (migrated through openRuntime), a
 * workspace with a test key (simulator, SIMULATOR_DELAY_MS=0) and raised write
 * limits, an in-process API server without a worker, N real
 * `node bin/profile-scan.js worker --concurrency C` children, then 10
 * POST /reports of 100 people each through HTTP. Both scan modes run for
 * every person (full_profile + activity items) plus one company-page item per
 * report. Measured: from the first admission until every run is terminal
 * (polled in the database). While it runs, pg_stat_activity is sampled to see
 * what the database sessions wait on.
 *
 * Uses DATABASE_URL (a role that may CREATE DATABASE) when set, else starts
 * the embedded PostgreSQL under a temporary DATA_DIR.
 * Results: printed table and bench/results/pipeline.json.
 *
 * Knobs (env): BENCH_WORKER_CONCURRENCY (default 4), BENCH_REPORTS (10),
 * BENCH_PEOPLE_PER_REPORT (100), BENCH_PROCESSES ("1,2").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { buildServer } from '../src/http/server.js';
import { openRuntime } from '../src/runtime.js';
import { ScanItemQueue } from '../src/scanning/queue.js';
import { startEmbeddedPostgres, type EmbeddedServer } from '../src/store/embedded-postgres.js';
import { adminQuery, positiveInt, withDatabase } from './harness.js';
import { createKey, createWorkspace, updateWorkspace } from '../src/store/workspace-repository.js';

const root = path.resolve(import.meta.dirname, '..');

const CONCURRENCY = positiveInt('BENCH_WORKER_CONCURRENCY', 4);
const REPORTS = positiveInt('BENCH_REPORTS', 10);
const PEOPLE_PER_REPORT = positiveInt('BENCH_PEOPLE_PER_REPORT', 100);
const PROCESS_COUNTS = (process.env.BENCH_PROCESSES ?? '1,2').split(',').map((s) => Number(s.trim()));
if (PROCESS_COUNTS.some((n) => !Number.isInteger(n) || n < 1 || n > 16)) throw new Error('BENCH_PROCESSES must be a list of integers from 1 to 16');

const log = (m: string) => console.error(`[bench:pipeline] ${m}`);

interface PhaseResult {
  processes: number;
  concurrency_per_process: number;
  reports: number;
  people: number;
  runs: number;
  items: number;
  admission_seconds: number;
  seconds: number;
  people_per_second: number;
  items_per_second: number;
  run_statuses: Record<string, number>;
  item_statuses: Record<string, number>;
  /** The tables with the most rows read per item (pg_stat_all_tables deltas). */
  table_reads_per_item: Array<{ table: string; seq_scans: number; seq_rows: number; index_rows: number }>;
  /** pg_stat_database deltas over the measured interval, per item. */
  per_item: { transactions: number; rows_read: number; rows_written: number };
  /** Average over samples of this database's sessions: running a query, waiting on a lock, idle in transaction. */
  sessions: { samples: number; active: number; waiting_on_lock: number; idle_in_transaction: number; lock_waits_by_relation: Record<string, number> };
}

interface WorkerChild {
  child: ChildProcess;
  exited: Promise<void>;
  output(): string;
}

async function spawnWorker(env: Record<string, string>): Promise<WorkerChild> {
  const child = spawn(process.execPath, ['bin/profile-scan.js', 'worker', '--concurrency', String(CONCURRENCY)], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  while (!output.includes('started with concurrency')) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`worker exited during start:\n${output}`);
    if (Date.now() > deadline) throw new Error(`worker did not start in 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, exited, output: () => output };
}

async function stopWorker(w: WorkerChild): Promise<void> {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return;
  w.child.kill('SIGTERM');
  const timer = setTimeout(() => w.child.kill('SIGKILL'), 30_000);
  await w.exited;
  clearTimeout(timer);
}

async function dbStats(client: pg.Client, database: string) {
  const { rows } = await client.query(
    `select xact_commit + xact_rollback as xacts, tup_returned + tup_fetched as rows_read,
            tup_inserted + tup_updated + tup_deleted as rows_written
       from pg_stat_database where datname = $1`,
    [database],
  );
  return { xacts: Number(rows[0].xacts), rowsRead: Number(rows[0].rows_read), rowsWritten: Number(rows[0].rows_written) };
}

/** Rows read per table (sequential + index fetches), to see which tables the per-item work scans. */
async function tableReads(client: pg.Client): Promise<Map<string, { seq: number; seqRows: number; idxRows: number }>> {
  const { rows } = await client.query(
    `select schemaname || '.' || relname as name, coalesce(seq_scan, 0) as seq, coalesce(seq_tup_read, 0) as seq_rows, coalesce(idx_tup_fetch, 0) as idx_rows
       from pg_stat_all_tables where schemaname = 'public'`,
  );
  return new Map(rows.map((r) => [r.name, { seq: Number(r.seq), seqRows: Number(r.seq_rows), idxRows: Number(r.idx_rows) }]));
}

async function runPhase(serverUrl: string, processes: number, tmp: string): Promise<PhaseResult> {
  const database = `ps_bench_${processes}p_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${database}`);
  const databaseUrl = withDatabase(serverUrl, database);
  const dataDir = await fs.mkdtemp(path.join(tmp, `phase-${processes}-`));
  const workers: WorkerChild[] = [];
  const stats = new pg.Client({ connectionString: databaseUrl });
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    WORKER_CONCURRENCY: '0',
    SIMULATOR_DELAY_MS: '0',
  });
  const runtime = await openRuntime(config, { poolSize: 10 });
  const app = await buildServer({
    db: runtime.db,
    config,
    clock: systemClock,
    cursorSecret: randomBytes(32).toString('hex'),
    queue: new ScanItemQueue(),
  });
  try {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    config.publicBaseUrl = address;
    const now = new Date();
    const ws = await createWorkspace(runtime.db, `Bench ${processes}p`, now);
    await updateWorkspace(
      runtime.db,
      ws.id,
      { writes_per_minute_per_key: 100_000, writes_per_minute_per_workspace: 100_000, submitted_profiles_per_minute_per_workspace: 1_000_000 },
      now,
    );
    const key = await createKey(runtime.db, { workspaceId: ws.id, scopes: ['*'], mode: 'test' }, now);

    for (let i = 0; i < processes; i++) {
      workers.push(
        await spawnWorker({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir, SIMULATOR_DELAY_MS: '0', LOG_LEVEL: 'silent', WORKER_CONCURRENCY: String(CONCURRENCY) }),
      );
    }
    log(`${processes} worker process(es) × concurrency ${CONCURRENCY} started; admitting ${REPORTS} × ${PEOPLE_PER_REPORT} people`);
    await stats.connect();
    const before = await dbStats(stats, database);
    const tablesBefore = await tableReads(stats);

    const started = performance.now();
    const sessions = { samples: 0, active: 0, waiting_on_lock: 0, idle_in_transaction: 0, lock_waits_by_relation: {} as Record<string, number> };
    const sample = async () => {
      const { rows } = await stats.query(
        `select a.state, a.wait_event_type, (select l.relation::regclass::text from pg_locks l where l.pid = a.pid and not l.granted limit 1) as relation
           from pg_stat_activity a where a.datname = $1 and a.pid <> pg_backend_pid()`,
        [database],
      );
      sessions.samples++;
      for (const r of rows) {
        if (r.state === 'active') sessions.active++;
        if (r.state === 'idle in transaction') sessions.idle_in_transaction++;
        if (r.wait_event_type === 'Lock') {
          sessions.waiting_on_lock++;
          const rel = r.relation ?? 'transaction/other';
          sessions.lock_waits_by_relation[rel] = (sessions.lock_waits_by_relation[rel] ?? 0) + 1;
        }
      }
    };

    let admitted = 0;
    const admission = (async () => {
      for (let r = 0; r < REPORTS; r++) {
        const res = await fetch(`${address}/api/v1/reports`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json', 'idempotency-key': `bench-${processes}-${r}` },
          body: JSON.stringify({
            name: `Bench report ${r + 1}`,
            company: { name: `Bench Co ${r + 1}`, domain: `bench-co-${r + 1}.example.com`, pronet_company_url: `https://pronet.example/company/bench-co-${r + 1}` },
            profiles: Array.from({ length: PEOPLE_PER_REPORT }, (_, i) => ({ pronet_url: `https://pronet.example/in/bench-${r + 1}-person-${i + 1}` })),
          }),
        });
        if (res.status !== 201) throw new Error(`POST /reports answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer().catch(() => {});
        admitted++;
      }
      return (performance.now() - started) / 1000;
    })();
    const expectedRuns = REPORTS * 2;
    let admissionSeconds = 0;
    let admissionDone = false;
    let admissionError: unknown = null;
    admission.then(
      (s) => {
        admissionSeconds = s;
        admissionDone = true;
      },
      (error) => (admissionError = error),
    );
    for (;;) {
      if (admissionError) throw admissionError;
      await sample();
      const { rows } = await stats.query(
        `select count(*)::int as runs, count(*) filter (where status in ('queued', 'running'))::int as open from scan_runs`,
      );
      if (admissionDone && rows[0].runs === expectedRuns && rows[0].open === 0) break;
      if (performance.now() - started > 30 * 60_000) throw new Error('runs not terminal after 30 minutes');
      for (const w of workers) {
        if (w.child.exitCode !== null || w.child.signalCode !== null) throw new Error(`a worker died:\n${w.output()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const after = await dbStats(stats, database);
    // Table statistics reach the view up to a second late.
    await new Promise((r) => setTimeout(r, 1500));
    const tablesAfter = await tableReads(stats);

    const runStatuses = Object.fromEntries(
      (await stats.query(`select status, count(*)::int as n from scan_runs group by status order by status`)).rows.map((r) => [r.status, r.n]),
    );
    const itemStatuses = Object.fromEntries(
      (await stats.query(`select status, count(*)::int as n from scan_items group by status order by status`)).rows.map((r) => [r.status, r.n]),
    );
    const items = Object.values(itemStatuses).reduce((a: number, b) => a + Number(b), 0);
    const people = admitted * PEOPLE_PER_REPORT;
    const reads = [...tablesAfter].map(([name, a]) => {
      const b = tablesBefore.get(name) ?? { seq: 0, seqRows: 0, idxRows: 0 };
      return { table: name, seq_scans: round((a.seq - b.seq) / items), seq_rows: round((a.seqRows - b.seqRows) / items), index_rows: round((a.idxRows - b.idxRows) / items) };
    });
    reads.sort((x, y) => y.seq_rows + y.index_rows - (x.seq_rows + x.index_rows));
    const avg = (n: number) => Math.round((n / Math.max(1, sessions.samples)) * 100) / 100;
    return {
      processes,
      concurrency_per_process: CONCURRENCY,
      reports: admitted,
      people,
      runs: expectedRuns,
      items,
      admission_seconds: round(admissionSeconds),
      seconds: round(seconds),
      people_per_second: round(people / seconds),
      items_per_second: round(items / seconds),
      run_statuses: runStatuses,
      item_statuses: itemStatuses,
      table_reads_per_item: reads.slice(0, 6),
      per_item: {
        transactions: round((after.xacts - before.xacts) / items),
        rows_read: round((after.rowsRead - before.rowsRead) / items),
        rows_written: round((after.rowsWritten - before.rowsWritten) / items),
      },
      sessions: {
        samples: sessions.samples,
        active: avg(sessions.active),
        waiting_on_lock: avg(sessions.waiting_on_lock),
        idle_in_transaction: avg(sessions.idle_in_transaction),
        lock_waits_by_relation: Object.fromEntries(Object.entries(sessions.lock_waits_by_relation).map(([k, v]) => [k, avg(v)])),
      },
    };
  } finally {
    for (const w of workers) await stopWorker(w);
    await stats.end().catch(() => {});
    await app.close().catch(() => {});
    await runtime.close();
    await adminQuery(serverUrl, `drop database if exists ${database} with (force)`).catch((e) => log(`could not drop ${database}: ${e}`));
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function table(results: PhaseResult[]): string {
  const header = ['processes', 'people', 'items', 'seconds', 'people/s', 'items/s'];
  const rows = results.map((r) => [r.processes, r.people, r.items, r.seconds.toFixed(2), r.people_per_second.toFixed(1), r.items_per_second.toFixed(1)].map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-bench-pipeline-'));
  let embedded: EmbeddedServer | null = null;
  const results: PhaseResult[] = [];
  try {
    let serverUrl: string;
    if (process.env.DATABASE_URL && process.env.DATABASE_URL.trim() !== '') {
      serverUrl = process.env.DATABASE_URL.trim();
      log('using DATABASE_URL');
    } else {
      embedded = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'data'), database: 'postgres', log });
      serverUrl = embedded.url;
    }
    for (const processes of PROCESS_COUNTS) {
      const result = await runPhase(serverUrl, processes, tmp);
      log(`${processes} process(es): ${result.items} items in ${result.seconds} s`);
      results.push(result);
    }
  } finally {
    await embedded?.stop().catch(() => {});
    await fs.rm(tmp, { recursive: true, force: true }).catch(() => {});
  }

  const one = results.find((r) => r.processes === 1);
  const two = results.find((r) => r.processes === 2);
  const ratio = one && two ? round(two.items_per_second / one.items_per_second) : null;
  console.log(table(results));
  if (ratio !== null) console.log(`\n2 processes vs 1: ×${ratio.toFixed(2)} items/s`);
  for (const r of results) {
    console.log(
      `${r.processes} process(es): admission ${r.admission_seconds} s; per item ${r.per_item.transactions} transactions, ` +
        `${r.per_item.rows_read} rows read, ${r.per_item.rows_written} rows written; sessions on average ${r.sessions.active} active, ` +
        `${r.sessions.waiting_on_lock} waiting on a lock ${JSON.stringify(r.sessions.lock_waits_by_relation)}, ${r.sessions.idle_in_transaction} idle in transaction`,
    );
    console.log(`  most rows read per item: ${r.table_reads_per_item.map((t) => `${t.table} ${t.seq_rows} seq (${t.seq_scans} scans) + ${t.index_rows} index`).join('; ')}`);
  }
  const output = {
    benchmark: 'pipeline',
    generated_at: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    database: process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded',
    settings: { reports: REPORTS, people_per_report: PEOPLE_PER_REPORT, worker_concurrency: CONCURRENCY, simulator_delay_ms: 0 },
    results,
    ratio_2_vs_1_items_per_second: ratio,
  };
  await fs.mkdir(path.join(root, 'bench/results'), { recursive: true });
  await fs.writeFile(path.join(root, 'bench/results/pipeline.json'), `${JSON.stringify(output, null, 2)}\n`);
  log('wrote bench/results/pipeline.json');
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
