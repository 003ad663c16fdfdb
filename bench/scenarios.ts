/**
 * The benchmark scenarios: a flat list of small objects. Each names its
 * server, concurrency, how long it runs, the scenario its throughput is
 * compared with, and a `setup` that seeds what it needs (bench/seed.ts) and
 * returns the request builder for each lane.
 *
 * Every request to the service goes through all of its layers (auth, rate
 * limits, scopes, validation, envelope); the harness raises limits by
 * configuration only.
 */
import type { RequestSpec } from './load.js';
import type { Fixtures } from './seed.js';

export interface ScenarioEnv {
  /** Origins of the service and of bench/baseline-server.ts. */
  service: string;
  baseline: string;
  fixtures: Fixtures;
  /** Unique per run: keeps idempotency keys and imported URLs new. */
  runId: string;
  /** Imports per connection in the write scenarios (BENCH_IMPORTS). */
  importsPerConnection: number;
}

export interface Scenario {
  /** Unique; other scenarios name it as their baseline. */
  id: string;
  /** The endpoint or baseline, as shown in the table. */
  name: string;
  connections: number;
  /** One lane (own request builder, e.g. own report) per connection, instead of one lane with every connection. */
  lanePerConnection: boolean;
  /** Fixed duration (BENCH_SECONDS after a warm-up), or a fixed number of requests per connection. */
  stop: 'duration' | { requestsPerConnection: (env: ScenarioEnv) => number };
  /** Id of the scenario whose req/s is the denominator of this one's ratio. */
  baseline: string | null;
  /** An endpoint still being built: a 404 on the probe means skipped, not failed. */
  optional: boolean;
  setup(env: ScenarioEnv): Promise<(lane: number) => RequestSpec>;
}

const READ_CONCURRENCY = [1, 32];
const ANALYSIS_SIZES = [100, 10_000];
const IMPORT_ROWS = 100;

function bearer(env: ScenarioEnv): Record<string, string> {
  return { authorization: `Bearer ${env.fixtures.tenant.secret}` };
}

function get(origin: string, path: string, headers: Record<string, string> = {}): RequestSpec {
  return { origin, method: 'GET', path, headers };
}

function readScenarios(c: number): Scenario[] {
  const read = { connections: c, lanePerConnection: false, stop: 'duration' as const, optional: false };
  const newest = async (env: ScenarioEnv) => (await env.fixtures.readReports())[0];
  return [
    {
      ...read,
      id: `memory-report-c${c}`,
      name: 'baseline A: same bytes from memory (report)',
      baseline: null,
      setup: async (env) => {
        await newest(env);
        return () => get(env.baseline, '/memory/report');
      },
    },
    {
      ...read,
      id: `select-report-c${c}`,
      name: 'baseline B: 1 primary-key SELECT (report)',
      baseline: `memory-report-c${c}`,
      setup: async (env) => {
        const id = await newest(env);
        return () => get(env.baseline, `/select/reports/${id}`);
      },
    },
    {
      ...read,
      id: `report-c${c}`,
      name: 'GET /reports/{id}',
      baseline: `select-report-c${c}`,
      setup: async (env) => {
        const id = await newest(env);
        return () => get(env.service, `/api/v1/reports/${id}`, bearer(env));
      },
    },
    {
      ...read,
      id: `memory-list-c${c}`,
      name: 'baseline A: same bytes from memory (list)',
      baseline: null,
      setup: async (env) => {
        await env.fixtures.readReports();
        return () => get(env.baseline, '/memory/list');
      },
    },
    {
      ...read,
      id: `select-list-c${c}`,
      name: 'baseline B: 1 SELECT of 50 rows (list)',
      baseline: `memory-list-c${c}`,
      setup: async (env) => {
        await env.fixtures.readReports();
        return () => get(env.baseline, '/select/reports');
      },
    },
    {
      ...read,
      id: `list-c${c}`,
      name: 'GET /reports?limit=50',
      baseline: `select-list-c${c}`,
      setup: async (env) => {
        await env.fixtures.readReports();
        return () => get(env.service, '/api/v1/reports?limit=50', bearer(env));
      },
    },
  ];
}

/** The analyzed report whose first findings page of 25 records baseline A sends from memory. */
export const MEMORY_FINDINGS_PEOPLE = 10_000;

function analysisScenarios(c: number): Scenario[] {
  const endpoints = [
    { key: 'summary', name: 'GET …/analysis', suffix: '/analysis' },
    // The default page size (10), as in the first runs of this benchmark.
    { key: 'findings', name: 'GET …/analysis/profiles (page 1)', suffix: '/analysis/profiles' },
  ];
  const analysis = (id: string, name: string, people: number, suffix: string, baseline: string | null): Scenario => ({
    id,
    name,
    connections: c,
    lanePerConnection: false,
    stop: 'duration',
    baseline,
    optional: true,
    setup: async (env) => {
      const reportId = await env.fixtures.analyzedReport(people);
      return () => get(env.service, `/api/v1/reports/${reportId}${suffix}`, bearer(env));
    },
  });
  return [
    ...endpoints.flatMap((endpoint) =>
      ANALYSIS_SIZES.map((people) =>
        analysis(
          `${endpoint.key}-${people}-c${c}`,
          `${endpoint.name}, ${people.toLocaleString('en-US')} people`,
          people,
          endpoint.suffix,
          // The summary is compared with the one-SELECT baseline, 10,000 people with 100.
          people !== ANALYSIS_SIZES[0] ? `${endpoint.key}-${ANALYSIS_SIZES[0]}-c${c}` : endpoint.key === 'summary' ? `select-report-c${c}` : null,
        ),
      ),
    ),
    {
      id: `memory-findings-c${c}`,
      name: 'baseline A: same bytes from memory (findings page of 25)',
      connections: c,
      lanePerConnection: false,
      stop: 'duration',
      baseline: null,
      optional: false,
      setup: async (env) => {
        await env.fixtures.analyzedReport(MEMORY_FINDINGS_PEOPLE);
        return () => get(env.baseline, '/memory/findings');
      },
    },
    // The large findings page (25 people), against the same bytes from memory.
    analysis(
      `findings25-${MEMORY_FINDINGS_PEOPLE}-c${c}`,
      `GET …/analysis/profiles?limit=25, ${MEMORY_FINDINGS_PEOPLE.toLocaleString('en-US')} people`,
      MEMORY_FINDINGS_PEOPLE,
      '/analysis/profiles?limit=25',
      `memory-findings-c${c}`,
    ),
  ];
}

/** Commits of 100 new people each, with a new Idempotency-Key per request. */
function importScenario(id: string, name: string, connections: number): Scenario {
  return {
    id,
    name,
    connections,
    lanePerConnection: true,
    stop: { requestsPerConnection: (env) => env.importsPerConnection },
    baseline: null,
    optional: false,
    setup: async (env) => {
      const reports = await env.fixtures.importReports(id, connections);
      let sequence = 0; // across lanes and runs (probe, warm-up, measurement)
      return (lane) => {
        const reportId = reports[lane];
        return {
          origin: env.service,
          method: 'POST',
          path: `/api/v1/reports/${reportId}/profile-imports`,
          headers: { ...bearer(env), 'content-type': 'application/json' },
          next: () => {
            const tag = `${env.runId}-${id}-${lane}-${++sequence}`;
            const profiles = Array.from({ length: IMPORT_ROWS }, (_, i) => ({
              pronet_url: `https://pronet.example/in/bench-${tag}-${i + 1}`,
              name: `Imported ${i + 1}`,
            }));
            return { headers: { 'idempotency-key': `bench-${tag}` }, body: JSON.stringify({ profiles }) };
          },
          admittedRows: (status, body) => {
            if (status !== 201) return 0;
            const counts = (JSON.parse(body) as { data: { counts: { added: number; restored: number } } }).data.counts;
            return counts.added + counts.restored;
          },
        };
      };
    },
  };
}

export const SCENARIOS: Scenario[] = [
  ...READ_CONCURRENCY.flatMap(readScenarios),
  ...READ_CONCURRENCY.flatMap(analysisScenarios),
  importScenario('import-sequential', 'POST …/profile-imports (100 new people), sequential', 1),
  importScenario('import-c8', 'POST …/profile-imports (100 new people), 8 reports at once', 8),
];

/** The scenario profiled with --cpu-prof by `bench/run.ts --profile` (no id given). */
export const DEFAULT_PROFILED_SCENARIO = 'report-c32';
