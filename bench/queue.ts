/**
 * `npm run bench:queue`: what the scan queue costs the database as the
 * number of tenants grows (docs/scaling.md, docs/benchmarks.md "npm run bench:queue"), on stdout and in
 * bench/results/queue.json (progress on stderr).
 *
 * 1. claim: R reports with 2 pending people each over R/10 workspaces (at
 *    least 1), plus 64 running items, for R = 10, 100, 1,000, 10,000: one
 *    `select * from claim_scan_item(60)` in a rolled-back transaction (so
 *    every sample sees the same queue), median and p95 of the statement's
 *    round trip, ready (every item claimable) and all-deferred (every
 *    pending item's ready_at an hour ahead); each as a ratio to R = 10 of the
 *    same run (target ≤ 2 ×).
 * 2. admission: inserting a new report's 2 pending items (what an admission
 *    adds to the queue: the items and the queue's offer, scan_items
 *    triggers), rolled back, at the same sizes.
 * 3. claim and admission again with 1 million scan items and 100,000 people
 *    of finished work in the database besides (BENCH_QUEUE_BIG=0 skips it),
 *    and the hot reads of `npm run bench` (`GET /reports/{id}`, the summary,
 *    the first findings page of a 100-person analyzed report) through a
 *    `profile-scan serve` on the same database, before and after those rows
 *    are added: ratio to the same figure on the almost empty database
 *    (target ≤ 1.5 ×).
 * 4. a report's fold (rollup-repository.ts, `foldOnce`) on the workers'
 *    pool (generic plans), in a 100-person analyzed report: one pending
 *    delta with 0, 1,000 and 10,000 finished runs in the report's history
 *    (each as a ratio to 0), and a backlog of 150,000 pending deltas folded
 *    to the end (rounds, and the time of all of them; BENCH_QUEUE_BACKLOG
 *    sets its size), twice: with the plans the pool made while rollup_deltas
 *    was nearly empty (its usual state, as at its last ANALYZE), then after
 *    an ANALYZE that sees the backlog. BENCH_QUEUE_FOLDS=0 skips it.
 *
 * 5. the background lane: 10,000 people of 100 workspaces (one
 *    100-person report each) in scheduled refreshes, worked by 4 simulated
 *    worker slots (claim_scan_item, a fixed item time, the item finished) for
 *    a window, twice on fresh clones: alone, and with a new 2-person report of
 *    another workspace admitted one second in. Figures: the seconds until the
 *    newcomer's items are all terminal (target ≤ 5 s), and the background
 *    items finished in the window with the newcomer as a ratio to without
 *    (target ≥ 0.9). BENCH_QUEUE_LANES=0 skips it; BENCH_QUEUE_ONLY=lanes
 *    runs only it and keeps the other figures of bench/results/queue.json.
 *
 * Each size runs on a fresh database cloned from one migrated template, on
 * DATABASE_URL's server (the role needs CREATE DATABASE) or an embedded one.
 * Knobs (env): BENCH_QUEUE_SIZES ("10,100,1000,10000"), BENCH_QUEUE_SAMPLES
 * (300), BENCH_QUEUE_BIG (1).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { emptyTotals } from '../src/domain/analysis-aggregate.js';
import { createDb, createPool } from '../src/store/database.js';
import { foldOnce } from '../src/queue/fold.js';
import { adminQuery, openDatabase, positiveInt, prepareRun, ROOT, startService, withDatabase } from './harness.js';
import { freePort } from './processes.js';
import { createTenant, seedAnalyzedReport } from './seed.js';

const log = (message: string) => process.stderr.write(`${message}\n`);
const SAMPLES = positiveInt('BENCH_QUEUE_SAMPLES', 300);
const SIZES = (process.env.BENCH_QUEUE_SIZES ?? '10,100,1000,10000').split(',').map((s) => Number(s.trim()));
const BIG = process.env.BENCH_QUEUE_BIG !== '0';
const FOLDS = process.env.BENCH_QUEUE_FOLDS !== '0';
const BACKLOG = positiveInt('BENCH_QUEUE_BACKLOG', 150_000);
const HISTORIES = [0, 1000, 10_000];

interface Figure {
  median: number;
  p95: number;
}

function summarize(samples: number[]): Figure {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95) };
}

/** Times `statement` inside begin … rollback, SAMPLES times (after 20 warm-up runs). */
async function timeRolledBack(client: pg.Client, statement: string, params: unknown[] = []): Promise<Figure> {
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    await client.query('begin');
    const started = process.hrtime.bigint();
    await client.query(statement, params);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    await client.query('rollback');
    if (i >= 20) samples.push(ms);
  }
  return summarize(samples);
}

/**
 * The queue of the issue: `reports` reports with 2 pending people each over
 * reports/10 workspaces, plus 64 running items; pending items ready now or
 * an hour ahead.
 */
async function seedQueue(client: pg.Client, reports: number, deferred: boolean): Promise<void> {
  const workspaces = Math.max(1, Math.floor(reports / 10));
  await client.query(`
    insert into workspaces (id, name, slug, created_at, updated_at)
    select gen_random_uuid(), 'Queue ' || i, 'queue-bench-' || i, now(), now() from generate_series(1, ${workspaces}) i;
    create temp table ws as select id, row_number() over (order by id) as n from workspaces where slug like 'queue-bench-%';
    create temp table rs as
      select gen_random_uuid() as id, (select id from ws where ws.n = 1 + (i % ${workspaces})) as workspace_id, i
        from generate_series(1, ${reports}) i;
    insert into reports (id, workspace_id, name, company_name, supplied_domain, root_domain, pronet_company_url, visibility, archived, created_at, updated_at)
    select id, workspace_id, 'Queue ' || i, 'Acme', 'acme.example', 'acme.example', 'https://pronet.example/company/acme', 'private', false, now(), now() from rs;
    create temp table ps as
      select gen_random_uuid() as id, rs.id as report_id, rs.workspace_id, rs.i, k
        from rs, generate_series(1, 3) k where k <= 2 or rs.i <= 64;
    insert into report_profiles (id, report_id, workspace_id, pronet_url, source, status, added_at, created_at, updated_at)
    select id, report_id, workspace_id, 'https://pronet.example/in/q-' || i || '-' || k, 'api_import', 'active', now(), now(), now() from ps;
    create temp table runs as select gen_random_uuid() as id, rs.id as report_id, rs.workspace_id from rs;
    insert into scan_runs (id, report_id, workspace_id, mode, key_mode, status, requested, created_at)
    select id, report_id, workspace_id, 'full_profile', 'test', 'running', 3, now() from runs;
    insert into scan_items (id, run_id, run_mode, run_created_at, report_id, profile_id, kind, status, attempts, created_at, ready_at, claim_id, lease_expires_at, started_at)
    select gen_random_uuid(), runs.id, 'full_profile', now(), ps.report_id, ps.id, 'person',
           case when ps.k = 3 then 'running' else 'pending' end,
           case when ps.k = 3 then 1 else 0 end,
           now(), now() - interval '1 minute' + ${deferred ? "interval '61 minutes'" : "interval '0 minutes'"},
           case when ps.k = 3 then gen_random_uuid() end,
           case when ps.k = 3 then now() + interval '1 hour' end,
           case when ps.k = 3 then now() end
      from ps join runs on runs.report_id = ps.report_id;
    drop table ws, rs, ps, runs;
    analyze;
  `);
}

/** A million scan items and 100,000 people of finished work in 1,000 reports of 100 workspaces. */
async function seedFinishedWork(client: pg.Client): Promise<void> {
  await client.query(`
    insert into workspaces (id, name, slug, created_at, updated_at)
    select gen_random_uuid(), 'Done ' || i, 'done-bench-' || i, now(), now() from generate_series(1, 100) i;
    create temp table ws as select id, row_number() over (order by id) as n from workspaces where slug like 'done-bench-%';
    create temp table rs as
      select gen_random_uuid() as id, (select id from ws where ws.n = 1 + (i % 100)) as workspace_id, i from generate_series(1, 1000) i;
    insert into reports (id, workspace_id, name, company_name, supplied_domain, root_domain, pronet_company_url, visibility, archived, created_at, updated_at)
    select id, workspace_id, 'Done ' || i, 'Acme', 'acme.example', 'acme.example', 'https://pronet.example/company/acme', 'private', false, now(), now() from rs;
    create temp table ps as select gen_random_uuid() as id, rs.id as report_id, rs.workspace_id, rs.i, k from rs, generate_series(1, 100) k;
    insert into report_profiles (id, report_id, workspace_id, pronet_url, source, status, added_at, created_at, updated_at)
    select id, report_id, workspace_id, 'https://pronet.example/in/d-' || i || '-' || k, 'api_import', 'active', now(), now(), now() from ps;
    -- Ten scans of every person: five runs of each mode per report.
    create temp table runs as select gen_random_uuid() as id, rs.id as report_id, rs.workspace_id, r from rs, generate_series(1, 10) r;
    insert into scan_runs (id, report_id, workspace_id, mode, key_mode, status, requested, completed, created_at, completed_at)
    select id, report_id, workspace_id, case when r % 2 = 0 then 'full_profile' else 'activity' end, 'test', 'completed', 100, 100, now(), now() from runs;
    insert into scan_items (id, run_id, run_mode, run_created_at, report_id, profile_id, kind, status, attempts, created_at, ready_at, started_at, finished_at)
    select gen_random_uuid(), runs.id, case when runs.r % 2 = 0 then 'full_profile' else 'activity' end, now(), ps.report_id, ps.id, 'person', 'succeeded', 1, now(), now(), now(), now()
      from ps join runs on runs.report_id = ps.report_id;
    drop table ws, rs, ps, runs;
    analyze;
  `);
}

interface SizeFigures {
  reports: number;
  claimReady: Figure;
  claimDeferred: Figure;
  admission: Figure;
}

async function measureSize(url: string, template: string, reports: number, withFinished: boolean): Promise<SizeFigures> {
  const name = `${template}_r${reports}${withFinished ? '_big' : ''}`;
  await adminQuery(url, `create database ${name} template ${template}`);
  const client = new pg.Client({ connectionString: withDatabase(url, name) });
  await client.connect();
  try {
    if (withFinished) await seedFinishedWork(client);
    await seedQueue(client, reports, false);
    const claimReady = await timeRolledBack(client, 'select * from claim_scan_item(60)');
    // An admission's share of the queue: a new report's two pending items (the items and the offer).
    const { rows } = await client.query<{ report_id: string; run_id: string; a: string; b: string }>(`
      with w as (select id from workspaces where slug like 'queue-bench-%' order by id limit 1),
      r as (insert into reports (id, workspace_id, name, company_name, supplied_domain, root_domain, pronet_company_url, visibility, archived, created_at, updated_at)
            select gen_random_uuid(), w.id, 'Admission', 'Acme', 'acme.example', 'acme.example', 'https://pronet.example/company/acme', 'private', false, now(), now() from w
            returning id, workspace_id),
      p as (insert into report_profiles (id, report_id, workspace_id, pronet_url, source, status, added_at, created_at, updated_at)
            select gen_random_uuid(), r.id, r.workspace_id, 'https://pronet.example/in/admitted-' || k, 'api_import', 'active', now(), now(), now()
              from r, generate_series(1, 2) k returning id, report_id),
      run as (insert into scan_runs (id, report_id, workspace_id, mode, key_mode, status, requested, created_at)
              select gen_random_uuid(), r.id, r.workspace_id, 'full_profile', 'test', 'queued', 2, now() from r returning id, report_id)
      select run.report_id, run.id as run_id, (select min(id::text) from p)::uuid as a, (select max(id::text) from p)::uuid as b from run`);
    const target = rows[0];
    const admission = await timeRolledBack(
      client,
      `insert into scan_items (id, run_id, report_id, profile_id, kind, status, created_at, ready_at)
       values (gen_random_uuid(), $2, $1, $3, 'person', 'pending', now(), now()), (gen_random_uuid(), $2, $1, $4, 'person', 'pending', now(), now())`,
      [target.report_id, target.run_id, target.a, target.b],
    );
    // All deferred: the pending items' ready time an hour ahead (the triggers re-read the bounds).
    await client.query(`update scan_items set ready_at = now() + interval '1 hour' where status = 'pending'`);
    await client.query('analyze');
    const claimDeferred = await timeRolledBack(client, 'select * from claim_scan_item(60)');
    return { reports, claimReady, claimDeferred, admission };
  } finally {
    await client.end();
    await adminQuery(url, `drop database if exists ${name} with (force)`);
  }
}

interface ReadFigures {
  report: Figure;
  summary: Figure;
  findings: Figure;
}

/** Sequential GETs of the hot reads (after 20 warm-up requests each). */
async function timeReads(origin: string, secret: string, reportId: string): Promise<ReadFigures> {
  const get = async (url: string) => {
    const started = process.hrtime.bigint();
    const res = await fetch(origin + url, { headers: { authorization: `Bearer ${secret}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const time = async (url: string) => {
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES + 20; i++) {
      const took = await get(url);
      if (i >= 20) samples.push(took);
    }
    return summarize(samples);
  };
  return {
    report: await time(`/api/v1/reports/${reportId}`),
    summary: await time(`/api/v1/reports/${reportId}/analysis`),
    findings: await time(`/api/v1/reports/${reportId}/analysis/profiles?limit=10`),
  };
}

/** The hot reads on an almost empty database, then with 1 M finished scan items and 100,000 people besides. */
async function measureReads(url: string, template: string, tempDir: string): Promise<{ empty: ReadFigures; full: ReadFigures }> {
  const name = `${template}_reads`;
  await adminQuery(url, `create database ${name} template ${template}`);
  const databaseUrl = withDatabase(url, name);
  const pool = createPool(databaseUrl, 2);
  const db = createDb(pool);
  const service = await startService({ databaseUrl, port: await freePort(), dataDir: path.join(tempDir, 'reads'), logFile: path.join(tempDir, 'reads.log') });
  try {
    const tenant = await createTenant(db);
    const reportId = await seedAnalyzedReport(db, tenant.workspaceId, 100);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('analyze');
    const empty = await timeReads(service.origin, tenant.secret, reportId);
    log('hot reads: adding 1,000,000 finished scan items and 100,000 people…');
    await seedFinishedWork(client);
    await client.end();
    const full = await timeReads(service.origin, tenant.secret, reportId);
    return { empty, full };
  } finally {
    await service.stop();
    await db.destroy();
    await adminQuery(url, `drop database if exists ${name} with (force)`);
  }
}

interface FoldFigures {
  /** One pending delta, by the number of finished runs in the report's history. */
  history: { runs: number; fold: Figure }[];
  /**
   * The backlog folded to the end twice: with the plans the pool made while
   * rollup_deltas was nearly empty (as at its last ANALYZE), then once more
   * after an ANALYZE that sees it (autovacuum's, on a busy table).
   */
  backlog: { deltas: number; stale: BacklogFolds; analyzed: BacklogFolds };
}

interface BacklogFolds {
  rounds: number;
  ms: number;
}

/** A report's fold as its history of runs and its backlog of deltas grow (the module's header, 4). */
async function measureFolds(url: string, template: string): Promise<FoldFigures> {
  const name = `${template}_folds`;
  await adminQuery(url, `create database ${name} template ${template}`);
  const databaseUrl = withDatabase(url, name);
  // The workers' pool: their folds run under generic plans (prepared-statements.ts).
  const pool = createPool(databaseUrl, 2, { genericPlans: true });
  const db = createDb(pool);
  try {
    const tenant = await createTenant(db);
    const reportId = await seedAnalyzedReport(db, tenant.workspaceId, 100);
    const delta = (count: number) =>
      sql`insert into rollup_deltas (report_id, run_id, started, totals, at)
          select ${reportId}::uuid, null, false, ${JSON.stringify(emptyTotals())}::jsonb, now() from generate_series(1, ${count}::int)`.execute(db);
    const history: FoldFigures['history'] = [];
    for (const runs of HISTORIES) {
      const have = Number((await sql<{ n: string }>`select count(*) as n from scan_runs where report_id = ${reportId}`.execute(db)).rows[0].n);
      await sql`insert into scan_runs (id, report_id, workspace_id, mode, key_mode, status, created_at, started_at, completed_at)
                select gen_random_uuid(), r.report_id, r.workspace_id, r.mode, r.key_mode, 'completed', now(), now(), now()
                  from (select * from scan_runs where report_id = ${reportId} limit 1) r, generate_series(1, ${Math.max(0, runs - have)}::int)`.execute(db);
      await sql`analyze`.execute(db);
      const samples: number[] = [];
      for (let i = 0; i < Math.min(SAMPLES, 100) + 10; i++) {
        await delta(1);
        const started = process.hrtime.bigint();
        await foldOnce(db, reportId, new Date());
        if (i >= 10) samples.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      history.push({ runs, fold: summarize(samples) });
    }
    const foldBacklog = async (analyze: boolean): Promise<BacklogFolds> => {
      await delta(BACKLOG);
      if (analyze) await sql`analyze rollup_deltas`.execute(db);
      const started = process.hrtime.bigint();
      let rounds = 0;
      for (let more = true; more;) {
        rounds++;
        const folded = await foldOnce(db, reportId, new Date());
        more = folded.kind === 'folded' && folded.more;
      }
      const left = Number((await sql<{ n: string }>`select count(*) as n from rollup_deltas where report_id = ${reportId}`.execute(db)).rows[0].n);
      if (left !== 0) throw new Error(`the backlog's folds left ${left} deltas`);
      return { rounds, ms: Number(process.hrtime.bigint() - started) / 1e6 };
    };
    const stale = await foldBacklog(false);
    const analyzed = await foldBacklog(true);
    return { history, backlog: { deltas: BACKLOG, stale, analyzed } };
  } finally {
    await db.destroy();
    await adminQuery(url, `drop database if exists ${name} with (force)`);
  }
}

const LANE_SLOTS = 4;
const LANE_ITEM_MS = 10;
const LANE_WINDOW_MS = positiveInt('BENCH_QUEUE_LANE_WINDOW_MS', 8000);

interface LaneRun {
  backgroundFinished: number;
  newcomerSeconds: number | null;
}

/** 100 workspaces with one 100-person report each, every person's full_profile item pending in a background (scheduled) run. */
async function seedBackground(client: pg.Client): Promise<void> {
  await client.query(`
    create temp table ws as select gen_random_uuid() as id, i from generate_series(1, 100) i;
    insert into workspaces (id, name, slug, created_at, updated_at) select id, 'Lane ' || i, 'lane-bench-' || i, now(), now() from ws;
    create temp table rs as select gen_random_uuid() as id, ws.id as workspace_id, ws.i from ws;
    insert into reports (id, workspace_id, name, company_name, supplied_domain, root_domain, pronet_company_url, visibility, archived, created_at, updated_at)
    select id, workspace_id, 'Lane ' || i, 'Acme', 'acme.example', 'acme.example', 'https://pronet.example/company/acme', 'private', false, now(), now() from rs;
    create temp table ps as select gen_random_uuid() as id, rs.id as report_id, rs.workspace_id, rs.i, k from rs, generate_series(1, 100) k;
    insert into report_profiles (id, report_id, workspace_id, pronet_url, source, status, added_at, created_at, updated_at)
    select id, report_id, workspace_id, 'https://pronet.example/in/l-' || i || '-' || k, 'api_import', 'active', now(), now(), now() from ps;
    create temp table runs as select gen_random_uuid() as id, rs.id as report_id, rs.workspace_id from rs;
    insert into scan_runs (id, report_id, workspace_id, mode, key_mode, status, requested, created_at, background)
    select id, report_id, workspace_id, 'full_profile', 'test', 'queued', 100, now(), true from runs;
    insert into scan_items (id, run_id, report_id, profile_id, kind, status, created_at, ready_at, background)
    select gen_random_uuid(), runs.id, ps.report_id, ps.id, 'person', 'pending', now(), now() - interval '1 second', true
      from ps join runs on runs.report_id = ps.report_id;
    drop table ws, rs, ps, runs;
    analyze;
  `);
}

/** A new workspace's 2-person report, admitted as an import admits it: both modes, and the company page. */
async function admitNewcomer(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ id: string }>(`
    with w as (insert into workspaces (id, name, slug, created_at, updated_at) values (gen_random_uuid(), 'Newcomer', 'lane-newcomer', now(), now()) returning id),
    r as (insert into reports (id, workspace_id, name, company_name, supplied_domain, root_domain, pronet_company_url, visibility, archived, created_at, updated_at)
          select gen_random_uuid(), w.id, 'Newcomer', 'Acme', 'acme.example', 'acme.example', 'https://pronet.example/company/acme', 'private', false, now(), now() from w
          returning id, workspace_id),
    p as (insert into report_profiles (id, report_id, workspace_id, pronet_url, source, status, added_at, created_at, updated_at)
          select gen_random_uuid(), r.id, r.workspace_id, 'https://pronet.example/in/new-' || k, 'api_import', 'active', now(), now(), now()
            from r, generate_series(1, 2) k returning id, report_id),
    run as (insert into scan_runs (id, report_id, workspace_id, mode, key_mode, status, requested, created_at)
            select gen_random_uuid(), r.id, r.workspace_id, m, 'test', 'queued', 2, now() from r, unnest(array['full_profile', 'activity']::text[]) m
            returning id, report_id, mode),
    items as (insert into scan_items (id, run_id, report_id, profile_id, kind, status, created_at, ready_at)
              select gen_random_uuid(), run.id, run.report_id, p.id, 'person', 'pending', now(), now() from run join p on p.report_id = run.report_id
              union all
              select gen_random_uuid(), run.id, run.report_id, null, 'company_page', 'pending', now(), now() from run where run.mode = 'activity'
              returning id)
    select id from r`);
  return rows[0].id;
}

/** LANE_SLOTS simulated worker slots for LANE_WINDOW_MS: claim, work LANE_ITEM_MS, finish. */
async function runLanes(url: string, template: string, withNewcomer: boolean): Promise<LaneRun> {
  const name = `${template}_lanes${withNewcomer ? '_new' : ''}`;
  await adminQuery(url, `create database ${name} template ${template}`);
  const clients = Array.from({ length: LANE_SLOTS + 1 }, () => new pg.Client({ connectionString: withDatabase(url, name) }));
  await Promise.all(clients.map((c) => c.connect()));
  try {
    await seedBackground(clients[0]);
    const started = performance.now();
    const deadline = started + LANE_WINDOW_MS;
    let newcomer: string | null = null;
    let admittedAt = 0;
    let newcomerSeconds: number | null = null;
    let backgroundFinished = 0;
    const slot = async (client: pg.Client) => {
      while (performance.now() < deadline) {
        const { rows } = await client.query<{ item_id: string }>('select item_id from claim_scan_item(60)');
        if (rows.length === 0) {
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        await new Promise((r) => setTimeout(r, LANE_ITEM_MS));
        const done = await client.query<{ report_id: string; background: boolean }>(
          `update scan_items set status = 'succeeded', finished_at = now(), claim_id = null, lease_expires_at = null where id = $1 returning report_id, background`,
          [rows[0].item_id],
        );
        if (done.rows[0].background) backgroundFinished++;
        else if (newcomer !== null && done.rows[0].report_id === newcomer && newcomerSeconds === null) {
          const left = await client.query<{ n: string }>(`select count(*) as n from scan_items where report_id = $1 and status in ('pending', 'running')`, [
            newcomer,
          ]);
          if (Number(left.rows[0].n) === 0) newcomerSeconds = (performance.now() - admittedAt) / 1000;
        }
      }
    };
    const arrive = async () => {
      if (!withNewcomer) return;
      await new Promise((r) => setTimeout(r, 1000));
      admittedAt = performance.now();
      newcomer = await admitNewcomer(clients[LANE_SLOTS]);
    };
    await Promise.all([...clients.slice(0, LANE_SLOTS).map(slot), arrive()]);
    return { backgroundFinished, newcomerSeconds };
  } finally {
    await Promise.all(clients.map((c) => c.end()));
    await adminQuery(url, `drop database if exists ${name} with (force)`);
  }
}

async function measureLanes(url: string, template: string) {
  const alone = await runLanes(url, template, false);
  const withNewcomer = await runLanes(url, template, true);
  return {
    slots: LANE_SLOTS,
    item_ms: LANE_ITEM_MS,
    window_ms: LANE_WINDOW_MS,
    background_people: 10_000,
    background_workspaces: 100,
    alone,
    with_newcomer: withNewcomer,
    newcomer_terminal_seconds: withNewcomer.newcomerSeconds,
    throughput_ratio: withNewcomer.backgroundFinished / alone.backgroundFinished,
  };
}

const ms = (f: Figure) => `${f.median.toFixed(3)} ms (p95 ${f.p95.toFixed(3)})`;
const backlog = (b: BacklogFolds) => `${b.rounds} rounds, ${Math.round(b.ms).toLocaleString('en')} ms in all (${(b.ms / b.rounds).toFixed(1)} ms a round)`;
const ratio = (a: Figure, b: Figure) => a.median / b.median;

function laneLines(lanes: Awaited<ReturnType<typeof measureLanes>>): string[] {
  return [
    `The background lane (${lanes.slots} worker slots, ${lanes.item_ms} ms an item, ${lanes.window_ms / 1000} s window; ${lanes.background_people.toLocaleString('en')} people of ${lanes.background_workspaces} workspaces in scheduled refreshes):`,
    '',
    '| figure | value | target |',
    '|---|---:|---:|',
    `| a new 2-person report terminal after | ${lanes.newcomer_terminal_seconds === null ? 'not in the window' : `${lanes.newcomer_terminal_seconds.toFixed(2)} s`} | ≤ 5 s |`,
    `| background items finished, alone | ${lanes.alone.backgroundFinished} | |`,
    `| background items finished, with the newcomer | ${lanes.with_newcomer.backgroundFinished} | |`,
    `| background throughput, ratio | ${lanes.throughput_ratio.toFixed(3)} | ≥ 0.9 |`,
  ];
}

async function main(): Promise<void> {
  const { tempDir, onCleanup, cleanup } = await prepareRun('ps-bench-queue-', log);
  try {
    const database = await openDatabase(tempDir, log);
    onCleanup(() => database.close());
    log(`database: ${database.description}`);
    const migrated = spawnSync(process.execPath, [path.join(ROOT, 'bin/profile-scan.js'), 'migrate'], {
      env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    if (migrated.status !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
    const template = new URL(database.url).pathname.slice(1);

    if (process.env.BENCH_QUEUE_ONLY === 'lanes') {
      log('the background lane: 10,000 people of 100 workspaces in scheduled refreshes, then a new 2-person report…');
      const lanes = await measureLanes(database.url, template);
      console.log(laneLines(lanes).join('\n'));
      const file = path.join(ROOT, 'bench/results/queue.json');
      const previous = JSON.parse(await fs.readFile(file, 'utf8').catch(() => '{}')) as Record<string, unknown>;
      await fs.writeFile(file, `${JSON.stringify({ ...previous, lanes }, null, 2)}\n`);
      return;
    }

    const figures: SizeFigures[] = [];
    for (const size of SIZES) {
      log(`claim and admission at ${size} reports with pending work…`);
      figures.push(await measureSize(database.url, template, size, false));
    }
    let big: { empty: SizeFigures; full: SizeFigures } | null = null;
    let reads: { empty: ReadFigures; full: ReadFigures } | null = null;
    if (BIG) {
      log('claim and admission with 1,000,000 finished scan items and 100,000 people besides (seeding takes a minute)…');
      big = { empty: figures[0], full: await measureSize(database.url, template, SIZES[0], true) };
      log('hot reads on an almost empty database…');
      reads = await measureReads(database.url, template, tempDir);
    }
    let folds: FoldFigures | null = null;
    if (FOLDS) {
      log(`a report's fold with a history of runs, then a backlog of ${BACKLOG.toLocaleString('en')} deltas…`);
      folds = await measureFolds(database.url, template);
    }

    const base = figures[0];
    const lines = [
      '# Queue at scale (bench/queue.ts)',
      '',
      `Samples per figure: ${SAMPLES}, each one statement in a rolled-back transaction (round trip included).`,
      '',
      '| reports with pending work | claim, ready | × | claim, all deferred | × | admission (2 items) | × |',
      '|---:|---:|---:|---:|---:|---:|---:|',
      ...figures.map(
        (f) =>
          `| ${f.reports.toLocaleString('en')} | ${ms(f.claimReady)} | ${ratio(f.claimReady, base.claimReady).toFixed(2)} | ${ms(f.claimDeferred)} | ${ratio(f.claimDeferred, base.claimDeferred).toFixed(2)} | ${ms(f.admission)} | ${ratio(f.admission, base.admission).toFixed(2)} |`,
      ),
      '',
      'Target: at the largest size, each × ≤ 2 (against the smallest size of the same run).',
    ];
    if (big) {
      lines.push(
        '',
        `With 1,000,000 finished scan items and 100,000 people besides (${SIZES[0]} reports with pending work):`,
        '',
        '| figure | almost empty | 1M items | × (target ≤ 1.5) |',
        '|---|---:|---:|---:|',
        `| claim, ready | ${ms(big.empty.claimReady)} | ${ms(big.full.claimReady)} | ${ratio(big.full.claimReady, big.empty.claimReady).toFixed(2)} |`,
        `| claim, all deferred | ${ms(big.empty.claimDeferred)} | ${ms(big.full.claimDeferred)} | ${ratio(big.full.claimDeferred, big.empty.claimDeferred).toFixed(2)} |`,
        `| admission | ${ms(big.empty.admission)} | ${ms(big.full.admission)} | ${ratio(big.full.admission, big.empty.admission).toFixed(2)} |`,
      );
    }
    if (reads) {
      const row = (label: string, key: keyof ReadFigures) =>
        `| ${label} | ${ms(reads.empty[key])} | ${ms(reads.full[key])} | ${ratio(reads.full[key], reads.empty[key]).toFixed(2)} |`;
      lines.push(
        '',
        'Hot reads through `profile-scan serve` (a 100-person analyzed report; sequential requests, round trip included):',
        '',
        '| read | almost empty | 1M items | × (target ≤ 1.5) |',
        '|---|---:|---:|---:|',
        row('`GET /reports/{id}`', 'report'),
        row('summary', 'summary'),
        row('first findings page (10)', 'findings'),
      );
    }
    if (folds) {
      const first = folds.history[0].fold;
      lines.push(
        '',
        "A report's fold on the workers' pool (a 100-person analyzed report, one pending delta, round trips included):",
        '',
        '| finished runs in the report | fold | × |',
        '|---:|---:|---:|',
        ...folds.history.map((h) => `| ${h.runs.toLocaleString('en')} | ${ms(h.fold)} | ${ratio(h.fold, first).toFixed(2)} |`),
        '',
        `A backlog of ${folds.backlog.deltas.toLocaleString('en')} deltas folded to the end, with plans made while rollup_deltas was nearly empty: ${backlog(folds.backlog.stale)}; ` +
          `again after an ANALYZE that sees the backlog: ${backlog(folds.backlog.analyzed)}.`,
      );
    }
    let lanes: Awaited<ReturnType<typeof measureLanes>> | null = null;
    if (process.env.BENCH_QUEUE_LANES !== '0') {
      log('the background lane: 10,000 people of 100 workspaces in scheduled refreshes, then a new 2-person report…');
      lanes = await measureLanes(database.url, template);
      lines.push('', ...laneLines(lanes));
    }
    console.log(lines.join('\n'));
    await fs.mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
    await fs.writeFile(path.join(ROOT, 'bench/results/queue.json'), `${JSON.stringify({ samples: SAMPLES, figures, big, reads, folds, lanes }, null, 2)}\n`);
  } finally {
    await cleanup();
  }
}

await main();
