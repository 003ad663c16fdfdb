/**
 * Part of `npm run bench` (alone: `npm run bench -- history`): the cost of
 * the history of what was shown (docs/analysis.md, "History and progress").
 * Reports of HISTORY_PEOPLE analyzed people (bench/seed.ts), their rounds of
 * scans written straight into the scratch database: one completed run per
 * round, one succeeded item per person and round, a `person_scan_history`
 * row per item (with what changed since the previous one, compared by the
 * service's own rule) and a `report_snapshots` row per round, as the service
 * leaves them after each completed refresh. In alternating rounds, against the
 * same database:
 *
 * - a person's history: readPersonProgress (use-cases/progress.ts) of a
 *   person with PERSON_SCANS scans, against the same read of a person with
 *   one scan;
 * - a report's progress: readReportProgress of a report after
 *   REPORT_REFRESHES refreshes, against the same read of a report with one
 *   scan;
 * - the contract's summary and findings reads (GET …/analysis and
 *   GET …/analysis/profiles, over HTTP from the service) of the refreshed
 *   report, against a report with the same runs and items whose history was
 *   not stored: the history must not change them beyond noise.
 *
 * Targets: each history read within TARGET_RATIO times its one-scan read; the contract's
 * reads within NOISE_RATIO. Results: bench/results/history.json.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { Db } from '../src/store/database.js';
import { compareHistory, pointRounds } from '../src/store/history-repository.js';
import { refreshReportRollup } from '../src/store/rollup-repository.js';
import { readPersonProgress, readReportProgress } from '../src/use-cases/progress.js';
import { seedAnalyzedReport, type Tenant } from './seed.js';

export const HISTORY_PEOPLE = 1_000;
const PERSON_SCANS = 24;
const REPORT_REFRESHES = 12;
const TARGET_RATIO = 1.5;
/** Two reads of the same work differ by this much between rounds on a shared machine. */
const NOISE_RATIO = 1.1;
/** Sequential reads per side and round, in process or over HTTP (their mean is the round's figure). */
const HTTP_REQUESTS = 20;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The mean time of `HTTP_REQUESTS` sequential calls of `run` (one call of a few milliseconds is mostly the machine's noise). */
async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < HTTP_REQUESTS; i++) await run();
  return (performance.now() - started) / HTTP_REQUESTS;
}

/**
 * Adds `rounds` completed full-profile runs to a report seeded by
 * seedAnalyzedReport, each newer than the last, with a succeeded item per
 * person; with `history`, every item's row in person_scan_history (the seeded
 * run's included, oldest first) and a snapshot per completed run. Outcomes
 * vary by person and round (some checks were `optimize` before they were
 * `good`), so progress has changes to count. The shown analysis points at the
 * newest item, as after a refresh.
 */
async function seedRounds(db: Db, reportId: string, rounds: number, history: boolean): Promise<void> {
  const base = new Date(Date.now() - (rounds + 1) * 86_400_000);
  await db.transaction().execute(async (trx) => {
    await sql`update scan_runs set created_at = ${base}, started_at = ${base}, completed_at = ${base} where report_id = ${reportId}::uuid`.execute(trx);
    await sql`update scan_items set created_at = ${base}, ready_at = ${base}, started_at = ${base}, finished_at = ${base} where report_id = ${reportId}::uuid`.execute(
      trx,
    );
    await sql`
      insert into scan_runs (id, report_id, workspace_id, mode, key_mode, status, requested, completed, created_at, started_at, completed_at)
      select md5(${reportId} || ':run:' || r)::uuid, r0.report_id, r0.workspace_id, 'full_profile', 'test', 'completed', r0.requested, r0.completed,
             ${base}::timestamptz + make_interval(days => r), ${base}::timestamptz + make_interval(days => r),
             ${base}::timestamptz + make_interval(days => r)
        from scan_runs r0, generate_series(1, ${rounds}::integer) as r
       where r0.report_id = ${reportId}::uuid`.execute(trx);
    await sql`
      insert into scan_items (id, run_id, run_mode, run_created_at, report_id, profile_id, kind, status, attempts, created_at, ready_at, started_at, finished_at)
      select md5(${reportId} || ':item:' || p.id || ':' || r)::uuid, md5(${reportId} || ':run:' || r)::uuid, 'full_profile', t, p.report_id, p.id,
             'person', 'succeeded', 1, t, t, t, t
        from report_profiles p, generate_series(1, ${rounds}::integer) as r,
             lateral (select ${base}::timestamptz + make_interval(days => r) as t) at
       where p.report_id = ${reportId}::uuid`.execute(trx);
    if (history) {
      // Round 0 is the seeded run's item; rows go in oldest first, so `seq` orders them as the service would.
      await sql`
        insert into person_scan_history (item_id, report_id, profile_id, scanned_at, captured_at, updated_at, good, optimize, unknown, outcomes)
        select i.id, i.report_id, i.profile_id, i.finished_at, a.captured_at, i.finished_at,
               (select count(*) from jsonb_each_text(o.outcomes) e where e.value = 'good'),
               (select count(*) from jsonb_each_text(o.outcomes) e where e.value = 'optimize'),
               (select count(*) from jsonb_each_text(o.outcomes) e where e.value = 'unknown'),
               o.outcomes
          from scan_items i
          join profile_analyses a on a.profile_id = i.profile_id
          join lateral (select i.finished_at - ${base}::timestamptz as age) d on true
          cross join lateral (
            select jsonb_object_agg(f.value ->> 'check_key',
                     case when f.value ->> 'outcome' = 'good' and (f.ordinality + hashtext(i.profile_id::text) + extract(day from d.age)::int) % 4 = 0
                          then 'optimize' else f.value ->> 'outcome' end) as outcomes
              from jsonb_array_elements(a.findings) with ordinality f) o
         where i.report_id = ${reportId}::uuid
         order by i.finished_at, i.profile_id`.execute(trx);
      await sql`
        insert into report_snapshots (report_id, run_id, completed_at, persons, analyzed, answered_persons, checks)
        select r.report_id, r.id, r.completed_at, (g.totals ->> 'persons')::int, (g.totals ->> 'analyzed')::int,
               (g.totals ->> 'answered_persons')::int, coalesce(g.totals -> 'checks', '{}'::jsonb)
          from scan_runs r join report_aggregates g on g.report_id = r.report_id
         where r.report_id = ${reportId}::uuid
         order by r.completed_at`.execute(trx);
    }
    // What changed since each row's previous scan, as the finish stores it (migration 0058).
    if (history) while ((await compareHistory(trx, new Date())) > 0);
    // Each round's trend figures, as recording the round stores them (migration 0060).
    if (history) while ((await pointRounds(trx)) > 0);
    // Each person's contribution with their newest scan, as the finishes leave the report's roll-up.
    await refreshReportRollup(trx, reportId, 'all', new Date());
    if (rounds > 0) {
      await sql`update profile_analyses a set item_id = md5(${reportId} || ':item:' || a.profile_id || ':' || ${rounds}::integer)::uuid
                 where a.report_id = ${reportId}::uuid`.execute(trx);
    }
  });
}

async function firstPerson(db: Db, reportId: string): Promise<string> {
  const { rows } = await sql<{ id: string }>`select id from report_profiles where report_id = ${reportId}::uuid order by added_at desc limit 1`.execute(db);
  return rows[0].id;
}

/** The mean time of `HTTP_REQUESTS` sequential GETs of `url`; each must answer 200. */
async function httpReads(origin: string, secret: string, url: string): Promise<number> {
  const headers = { authorization: `Bearer ${secret}` };
  const started = performance.now();
  for (let i = 0; i < HTTP_REQUESTS; i++) {
    const res = await fetch(origin + url, { headers });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`history: GET ${url} answered ${res.status}: ${Buffer.from(body).toString().slice(0, 160)}`);
  }
  return (performance.now() - started) / HTTP_REQUESTS;
}

interface Pair {
  name: string;
  /** The read measured against its reference. */
  subject: () => Promise<number>;
  reference: () => Promise<number>;
  target: number;
  description: string;
}

/** Seeds the reports, measures `rounds` alternating rounds and writes bench/results/history.json. */
export async function benchHistory(
  db: Db,
  options: { tenant: Tenant; service: string; rounds: number; resultsDir: string; database: string; log: (message: string) => void },
): Promise<void> {
  const { log, tenant } = options;
  const people = HISTORY_PEOPLE.toLocaleString('en-US');
  log(`history: seeding four reports of ${people} analyzed people (1, ${PERSON_SCANS} and ${REPORT_REFRESHES + 1} scans)`);
  const oneScan = await seedAnalyzedReport(db, tenant.workspaceId, HISTORY_PEOPLE);
  await seedRounds(db, oneScan, 0, true);
  const personReport = await seedAnalyzedReport(db, tenant.workspaceId, HISTORY_PEOPLE);
  await seedRounds(db, personReport, PERSON_SCANS - 1, true);
  const refreshed = await seedAnalyzedReport(db, tenant.workspaceId, HISTORY_PEOPLE);
  await seedRounds(db, refreshed, REPORT_REFRESHES, true);
  const withoutHistory = await seedAnalyzedReport(db, tenant.workspaceId, HISTORY_PEOPLE);
  await seedRounds(db, withoutHistory, REPORT_REFRESHES, false);
  await sql`vacuum (analyze)`.execute(db);

  const ctx = { db, workspaceId: tenant.workspaceId };
  const onePerson = await firstPerson(db, oneScan);
  const deepPerson = await firstPerson(db, personReport);
  const check = await readPersonProgress(ctx, personReport, deepPerson);
  if (check.trend.length !== PERSON_SCANS) throw new Error(`history: expected ${PERSON_SCANS} scans, read ${check.trend.length}`);
  const progress = await readReportProgress(ctx, refreshed);
  const counted = Object.values(progress.team.counts).reduce((sum, n) => sum + n, 0);
  if (progress.rounds.length === 0 || counted !== HISTORY_PEOPLE || progress.team.counts.first_scan === HISTORY_PEOPLE)
    throw new Error('history: the refreshed report reads no progress');

  const http = (reportId: string, tail: string) => () => httpReads(options.service, tenant.secret, `/api/v1/reports/${reportId}/analysis${tail}`);
  const pairs: Pair[] = [
    {
      name: 'person',
      subject: () => timed(() => readPersonProgress(ctx, personReport, deepPerson)),
      reference: () => timed(() => readPersonProgress(ctx, oneScan, onePerson)),
      target: TARGET_RATIO,
      description: `a person's history and progress, ${PERSON_SCANS} scans against one`,
    },
    {
      name: 'report',
      subject: () => timed(() => readReportProgress(ctx, refreshed)),
      reference: () => timed(() => readReportProgress(ctx, oneScan)),
      target: TARGET_RATIO,
      description: `a report's progress, ${people} people, ${REPORT_REFRESHES} refreshes against one scan`,
    },
    {
      name: 'summary',
      subject: http(refreshed, ''),
      reference: http(withoutHistory, ''),
      target: NOISE_RATIO,
      description: `the contract's summary read (GET …/analysis), ${REPORT_REFRESHES} refreshes with their history stored against without`,
    },
    {
      name: 'findings',
      subject: http(refreshed, '/profiles?limit=25'),
      reference: http(withoutHistory, '/profiles?limit=25'),
      target: NOISE_RATIO,
      description: `the contract's findings read (GET …/analysis/profiles?limit=25), with the history stored against without`,
    },
  ];

  const times = new Map(pairs.map((p) => [p.name, { subject: [] as number[], reference: [] as number[] }]));
  for (let round = -2; round < options.rounds; round++) {
    // Alternating order, so neither side always runs on a warmer cache; the first two rounds warm up.
    for (const pair of pairs) {
      const sides = round % 2 === 0 ? (['subject', 'reference'] as const) : (['reference', 'subject'] as const);
      for (const side of sides) {
        const ms = await pair[side]();
        if (round >= 0) times.get(pair.name)![side].push(ms);
      }
    }
  }

  const medians = Object.fromEntries(
    pairs.map((p) => [p.name, { subjectMs: median(times.get(p.name)!.subject), referenceMs: median(times.get(p.name)!.reference) }]),
  );
  const targets = pairs.map((p) => {
    const ratio = medians[p.name].subjectMs / medians[p.name].referenceMs;
    return { target: `${p.description} within ${p.target} ×`, measured: `${ratio.toFixed(2)} ×`, met: ratio <= p.target };
  });
  const result = {
    benchmark: 'npm run bench -- history',
    startedAt: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version, database: options.database, loadAverage: os.loadavg() },
    settings: {
      people: HISTORY_PEOPLE,
      personScans: PERSON_SCANS,
      reportRefreshes: REPORT_REFRESHES,
      rounds: options.rounds,
      httpRequestsPerRound: HTTP_REQUESTS,
    },
    medians,
    targets,
  };
  await fs.writeFile(path.join(options.resultsDir, 'history.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nhistory (${people} people, ${options.rounds} rounds):`);
  for (const [i, p] of pairs.entries()) {
    const m = medians[p.name];
    console.log(
      `  ${p.name}: ${m.subjectMs.toFixed(2)} ms against ${m.referenceMs.toFixed(2)} ms, ${targets[i].measured} (target ≤ ${p.target}: ${targets[i].met ? 'met' : 'MISSED'})`,
    );
  }
  console.log('written: bench/results/history.json');
}
