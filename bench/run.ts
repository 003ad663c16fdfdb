/**
 * `npm run bench [-- [--profile[=SCENARIO_ID]] [FILTER…]]`: the HTTP benchmark (docs/benchmarks.md).
 *
 * 1. PostgreSQL: a scratch database on DATABASE_URL's server when set
 *    (dropped afterwards; the role needs CREATE DATABASE), else an embedded
 *    server under a temporary DATA_DIR.
 * 2. The service as a separate process (`node bin/profile-scan.js serve`,
 *    WORKER_CONCURRENCY=0, LOG_LEVEL=warn, READ_LIMIT_MULTIPLIER raised), so
 *    autocannon never shares its event loop; write limits are raised as
 *    workspace settings (bench/seed.ts).
 * 3. Every scenario's setup seeds its data; then bench/baseline-server.ts
 *    starts with the exact bytes the service returned (baseline A).
 * 4. Each scenario: one probe request (a 404 from an optional endpoint means
 *    "skipped (endpoint missing)"), a warm-up, then the measurement.
 * 5. The table and targets on stdout; bench/results/latest.json and
 *    bench/RESULTS.md. With --profile[=SCENARIO_ID] (default report-c32), the
 *    service is then restarted under `node --cpu-prof` for that scenario and
 *    the profile, limited to the measurement window, is summarized.
 *
 * Environment: BENCH_SECONDS (default 5), BENCH_WARMUP_SECONDS (1),
 * BENCH_IMPORTS (imports per connection in write scenarios, 30),
 * BENCH_NOTE (a remark printed in RESULTS.md), BENCH_GROUP_ROUNDS (rounds of
 * bench/groups.ts, 15; it runs after the scenarios of an unfiltered run, or
 * alone with the filter `groups`), BENCH_HISTORY_ROUNDS (rounds of
 * bench/history.ts, 15; after the scenarios of an unfiltered run, or alone
 * with the filter `history`), DATABASE_URL.
 * FILTER words keep scenarios whose id contains one of them (plus their baselines).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { createDb, createPool, type Db } from '../src/store/database.js';
import { openDatabase, positiveInt, prepareRun, startService } from './harness.js';
import { formatSummary, summarizeProfile, type CpuProfile } from './cpu-profile-summary.js';
import { startCpuWindow, type CpuGroups } from './cpu-usage.js';
import { measure, probe, type Lane, type Measurement, type RequestSpec } from './load.js';
import { freePort, startChild } from './processes.js';
import { evaluateTargets, textTable, textTargets, withRatios, writeReport, type RunReport, type ScenarioResult } from './report.js';
import { DEFAULT_PROFILED_SCENARIO, MEMORY_FINDINGS_PEOPLE, SCENARIOS, type Scenario, type ScenarioEnv } from './scenarios.js';
import { createTenant, Fixtures } from './seed.js';
import { benchGroups } from './groups.js';
import { benchHistory } from './history.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const BENCH = path.join(ROOT, 'bench');
const RESULTS = path.join(BENCH, 'results');

const log = (message: string) => console.error(`bench: ${message}`);

function selected(filters: string[]): Scenario[] {
  if (filters.length === 0) return SCENARIOS;
  const keep = new Set(SCENARIOS.filter((s) => filters.some((f) => s.id.includes(f))).map((s) => s.id));
  // Baselines of kept scenarios, transitively.
  for (let grew = true; grew;) {
    grew = false;
    for (const s of SCENARIOS) {
      if (keep.has(s.id) && s.baseline && !keep.has(s.baseline)) {
        keep.add(s.baseline);
        grew = true;
      }
    }
  }
  return SCENARIOS.filter((s) => keep.has(s.id));
}

function lanes(scenario: Scenario, build: (lane: number) => RequestSpec): Lane[] {
  return scenario.lanePerConnection
    ? Array.from({ length: scenario.connections }, (_, i) => ({ spec: build(i), connections: 1 }))
    : [{ spec: build(0), connections: scenario.connections }];
}

interface Timing {
  seconds: number;
  warmupSeconds: number;
}

/** Probe, warm-up, measurement; `onMeasure` sees the monotonic window (µs) of the measurement. */
async function runScenario(
  scenario: Scenario,
  build: (lane: number) => RequestSpec,
  env: ScenarioEnv,
  timing: Timing,
  cpuOf: (origin: string) => CpuGroups,
  onMeasure?: (fromUs: number, toUs: number) => void,
): Promise<ScenarioResult> {
  const result = {
    id: scenario.id,
    name: scenario.name,
    connections: scenario.connections,
    baseline: scenario.baseline,
    ratio: null,
    cpu: null,
  };
  const work = lanes(scenario, build);
  const first = await probe(work[0].spec);
  if (first.status === 404 && scenario.optional) {
    return { ...result, outcome: 'skipped', reason: 'endpoint missing', measurement: null };
  }
  if (first.status < 200 || first.status >= 300) {
    return { ...result, outcome: 'failed', reason: `probe answered ${first.status}: ${first.body.slice(0, 160)}`, measurement: null };
  }
  const byDuration = scenario.stop === 'duration';
  await measure(work, byDuration ? { seconds: timing.warmupSeconds } : { requestsPerLane: 1 });
  const from = process.hrtime.bigint();
  const cpuWindow = startCpuWindow(cpuOf(work[0].spec.origin));
  const measurement: Measurement = await measure(
    work,
    scenario.stop === 'duration' ? { seconds: timing.seconds } : { requestsPerLane: scenario.stop.requestsPerConnection(env) },
  );
  const cpu = cpuWindow();
  onMeasure?.(Number(from / 1000n), Number(process.hrtime.bigint() / 1000n));
  return { ...result, outcome: 'measured', reason: null, measurement, cpu };
}

/** The exact bodies of the service's reads that baseline A sends from memory (name -> file). */
async function baselineBodies(env: ScenarioEnv, dir: string, scenarios: Scenario[]): Promise<Record<string, string>> {
  const headers = { authorization: `Bearer ${env.fixtures.tenant.secret}` };
  const reportId = (await env.fixtures.readReports())[0];
  const reads: [string, string][] = [
    ['report', `/api/v1/reports/${reportId}`],
    ['list', '/api/v1/reports?limit=50'],
  ];
  if (scenarios.some((s) => s.id.startsWith('memory-findings'))) {
    reads.push(['findings', `/api/v1/reports/${await env.fixtures.analyzedReport(MEMORY_FINDINGS_PEOPLE)}/analysis/profiles?limit=25`]);
  }
  const files: Record<string, string> = {};
  for (const [name, urlPath] of reads) {
    const res = await fetch(env.service + urlPath, { headers });
    if (res.status !== 200) throw new Error(`GET ${urlPath} answered ${res.status}: ${await res.text()}`);
    files[name] = path.join(dir, `${name}.json`);
    await fs.writeFile(files[name], Buffer.from(await res.arrayBuffer()));
  }
  return files;
}

async function postgresVersion(db: Db): Promise<string> {
  const result = await sql<{ version: string }>`select version()`.execute(db);
  return result.rows[0].version.replace(/ on .*$/, '');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const profileFlag = args.find((a) => a === '--profile' || a.startsWith('--profile='));
  const profileId = profileFlag === undefined ? null : (profileFlag.split('=')[1] ?? DEFAULT_PROFILED_SCENARIO);
  const filters = args.filter((a) => !a.startsWith('--'));
  // `groups` and `history` alone run only their measurements (bench/groups.ts, bench/history.ts), leaving latest.json as it is.
  const extrasOnly = filters.length > 0 && filters.every((f) => f === 'groups' || f === 'history');
  const scenarios = extrasOnly ? [] : selected(filters);
  const timing: Timing = { seconds: positiveInt('BENCH_SECONDS', 5), warmupSeconds: positiveInt('BENCH_WARMUP_SECONDS', 1) };
  const importsPerConnection = positiveInt('BENCH_IMPORTS', 30);
  const startedAt = new Date().toISOString();
  const loadAtStart = os.loadavg();

  await fs.mkdir(RESULTS, { recursive: true });
  await fs.rm(path.join(RESULTS, 'service.log.tmp'), { force: true });
  const { tempDir, onCleanup, cleanup } = await prepareRun('ps-bench-', log);

  try {
    const database = await openDatabase(tempDir, log);
    onCleanup(() => database.close());
    const serviceDataDir = path.join(tempDir, 'service');
    const servicePort = await freePort();
    const serviceLog = path.join(RESULTS, 'service.log.tmp');
    let service = await startService({ databaseUrl: database.url, port: servicePort, dataDir: serviceDataDir, logFile: serviceLog });
    onCleanup(() => service.stop());
    log(`service on ${service.origin} (${database.description})`);
    // The service has migrated the database by now.
    const groupRounds = positiveInt('BENCH_GROUP_ROUNDS', 15);
    const historyRounds = positiveInt('BENCH_HISTORY_ROUNDS', 15);
    const history = async (db: Db) =>
      benchHistory(db, {
        tenant: await createTenant(db),
        service: service.origin,
        rounds: historyRounds,
        resultsDir: RESULTS,
        database: database.description,
        log,
      });
    if (extrasOnly) {
      const extrasDb = createDb(createPool(database.url, 2));
      onCleanup(() => extrasDb.destroy());
      if (filters.includes('groups')) await benchGroups(extrasDb, { rounds: groupRounds, resultsDir: RESULTS, database: database.description, log });
      if (filters.includes('history')) await history(extrasDb);
      return;
    }

    const pool = createPool(database.url, 4);
    const db = createDb(pool);
    onCleanup(() => db.destroy());
    const fixtures = new Fixtures(db, await createTenant(db));
    const baselinePort = await freePort();
    const env: ScenarioEnv = {
      service: service.origin,
      baseline: `http://127.0.0.1:${baselinePort}`,
      fixtures,
      runId: randomBytes(4).toString('hex'),
      importsPerConnection,
    };

    log('seeding');
    const builders = new Map<string, (lane: number) => RequestSpec>();
    for (const scenario of scenarios) builders.set(scenario.id, await scenario.setup(env));
    await settle(db, log);

    const bodies = await baselineBodies(env, tempDir, scenarios);
    const baseline = await startChild({
      name: 'baseline server',
      cwd: ROOT,
      args: ['--import', 'tsx', 'bench/baseline-server.ts'],
      env: {
        PORT: String(baselinePort),
        DATABASE_URL: database.url,
        WORKSPACE_ID: fixtures.tenant.workspaceId,
        MEMORY_BODIES: JSON.stringify(bodies),
      },
      port: baselinePort,
      logFile: path.join(RESULTS, 'baseline.log.tmp'),
    });
    onCleanup(() => baseline.stop());
    // CPU of the server a scenario talks to (service or baseline), of PostgreSQL and of this process.
    const cpuOf = (origin: string): CpuGroups => ({
      service: () => (origin === env.baseline ? baseline.pid : service.pid),
      postmaster: () => database.postmasterPid(),
    });

    const results: ScenarioResult[] = [];
    for (const scenario of scenarios) {
      log(`${scenario.id}: ${scenario.name}, c=${scenario.connections}`);
      results.push(await runScenario(scenario, builders.get(scenario.id)!, env, timing, cpuOf));
    }
    await baseline.stop();

    let profiled: RunReport['profile'] = null;
    const target = scenarios.find((s) => s.id === profileId);
    if (profileId !== null && !target) log(`--profile: scenario ${profileId} is not selected; not profiling`);
    if (target) {
      log(`profiling ${target.id} with node --cpu-prof`);
      await service.stop();
      const dir = path.join(RESULTS, 'profiles');
      const name = `service-${target.id}.cpuprofile`;
      await fs.mkdir(dir, { recursive: true });
      service = await startService({
        databaseUrl: database.url,
        port: servicePort,
        dataDir: serviceDataDir,
        logFile: serviceLog,
        nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`],
      });
      let window = { fromUs: 0, toUs: 0 };
      await runScenario(target, builders.get(target.id)!, env, timing, cpuOf, (fromUs, toUs) => (window = { fromUs, toUs }));
      await service.stop();
      // The history measurement below reads from the service: back without the profiler.
      service = await startService({ databaseUrl: database.url, port: servicePort, dataDir: serviceDataDir, logFile: serviceLog });
      const cpuProfile = JSON.parse(await fs.readFile(path.join(dir, name), 'utf8')) as CpuProfile;
      profiled = {
        scenario: `${target.name}, c=${target.connections}`,
        file: path.relative(ROOT, path.join(dir, name)),
        summary: summarizeProfile(cpuProfile, window),
      };
    }

    const measured = withRatios(results);
    const report: RunReport = {
      startedAt,
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
        memoryGiB: os.totalmem() / 2 ** 30,
        platform: `${os.type()} ${os.release()} ${os.arch()}`,
        node: process.version,
        postgres: await postgresVersion(db),
        database: database.description,
        loadAverageAtStart: loadAtStart,
        loadAverageAtEnd: os.loadavg(),
      },
      settings: { ...timing, importsPerConnection, note: process.env.BENCH_NOTE?.trim() || null },
      results: measured,
      targets: evaluateTargets(measured),
      profile: profiled,
    };
    await writeReport(report, BENCH);
    console.log(
      `\n${report.machine.cpus} × ${report.machine.cpuModel}; Node ${report.machine.node}; ${report.machine.postgres} (${report.machine.database})\n`,
    );
    console.log(textTable(measured));
    console.log(`\n${textTargets(report.targets)}`);
    if (profiled) console.log(`\nCPU profile of ${profiled.scenario} (${profiled.file}):\n${formatSummary(profiled.summary)}`);
    console.log('\nwritten: bench/results/latest.json, bench/RESULTS.md');
    if (filters.length === 0) {
      await benchGroups(db, { rounds: groupRounds, resultsDir: RESULTS, database: database.description, log });
      await history(db);
    }
  } finally {
    await cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});

/**
 * After seeding, before the first measurement: vacuum and analyze what the
 * seeding wrote (visibility map, hint bits, planner statistics), then write
 * its dirty pages (CHECKPOINT). Otherwise the first scenarios share the CPU
 * with autovacuum and the first readers of 10,000 fresh rows, and measure the
 * seeding's aftermath instead of the read (pgbench vacuums before a run for
 * the same reason). CHECKPOINT needs a superuser or pg_checkpoint: on a
 * DATABASE_URL role without it, the run goes on with a note.
 */
async function settle(db: Db, log: (message: string) => void): Promise<void> {
  const started = performance.now();
  await sql`vacuum (analyze)`.execute(db);
  try {
    await sql`checkpoint`.execute(db);
  } catch (error) {
    log(`settle: CHECKPOINT refused (${(error as Error).message}); measuring without it`);
  }
  log(`settled the seeded data (vacuum, analyze, checkpoint) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
