/**
 * Presentation of a benchmark run: the table printed on stdout, the targets
 * (docs/benchmarks.md) with met/missed, bench/results/latest.json and bench/RESULTS.md.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Measurement } from './load.js';
import { formatSummary, type ProfileSummary } from './cpu-profile-summary.js';
import type { CpuUsage } from './cpu-usage.js';

export interface ScenarioResult {
  id: string;
  name: string;
  connections: number;
  outcome: 'measured' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  reason: string | null;
  measurement: Measurement | null;
  baseline: string | null;
  /** req/s divided by the baseline's req/s. */
  ratio: number | null;
  /** CPU time of the measurement window: the server it talks to, PostgreSQL, the load generator. */
  cpu: CpuUsage | null;
}

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  platform: string;
  node: string;
  postgres: string;
  database: string;
  loadAverageAtStart: number[];
  loadAverageAtEnd: number[];
}

export interface Settings {
  seconds: number;
  warmupSeconds: number;
  importsPerConnection: number;
  note: string | null;
}

export interface Target {
  goal: string;
  value: string;
  met: boolean | null;
}

export interface RunReport {
  startedAt: string;
  machine: Machine;
  settings: Settings;
  results: ScenarioResult[];
  targets: Target[];
  profile: { scenario: string; file: string; summary: ProfileSummary } | null;
}

/** Fills in each result's ratio to its baseline (both measured). */
export function withRatios(results: ScenarioResult[]): ScenarioResult[] {
  const byId = new Map(results.map((r) => [r.id, r]));
  return results.map((r) => {
    const base = r.baseline ? byId.get(r.baseline) : undefined;
    const ratio = r.measurement && base?.measurement && base.measurement.rps > 0 ? r.measurement.rps / base.measurement.rps : null;
    return { ...r, ratio };
  });
}

/** req/s of `GET …/analysis/profiles` (page 1) at c=32 in the first runs: 120-196; the best of them. */
const FIRST_RUNS_FINDINGS_RPS = 196;

export function evaluateTargets(results: ScenarioResult[]): Target[] {
  const m = (id: string) => results.find((r) => r.id === id)?.measurement ?? null;
  const fmt = (n: number, digits = 2) => n.toFixed(digits);
  const targets: Target[] = [];

  const ours = m('report-c32');
  const select = m('select-report-c32');
  targets.push({
    goal: 'GET /reports/{id} at c=32 ≥ 0.5 × the one-SELECT baseline (req/s)',
    value: ours && select ? `${fmt(ours.rps / select.rps)} × (${fmt(ours.rps, 0)} vs ${fmt(select.rps, 0)} req/s)` : 'not measured',
    met: ours && select ? ours.rps >= 0.5 * select.rps : null,
  });

  for (const people of [100, 10_000]) {
    const summary = m(`summary-${people}-c32`);
    targets.push({
      goal: `GET …/analysis (${people.toLocaleString('en-US')} people) at c=32 ≥ 0.25 × the one-SELECT baseline (req/s)`,
      value: summary && select ? `${fmt(summary.rps / select.rps)} × (${fmt(summary.rps, 0)} vs ${fmt(select.rps, 0)} req/s)` : 'not measured',
      met: summary && select ? summary.rps >= 0.25 * select.rps : null,
    });
  }
  // Target: at least 3 × FIRST_RUNS_FINDINGS_RPS, the best req/s of this scenario's first measurements at c=32.
  for (const people of [100, 10_000]) {
    const page = m(`findings-${people}-c32`);
    targets.push({
      goal: `GET …/analysis/profiles page 1 (${people.toLocaleString('en-US')} people) at c=32 ≥ 3 × 196 req/s (the first runs: 120-196)`,
      value: page ? `${fmt(page.rps, 0)} req/s = ${fmt(page.rps / FIRST_RUNS_FINDINGS_RPS)} × 196` : 'not measured',
      met: page ? page.rps >= 3 * FIRST_RUNS_FINDINGS_RPS : null,
    });
  }

  const commit = m('import-sequential');
  targets.push({
    goal: 'Import commit of 100 people: median ≤ 50 ms (sequential)',
    value: commit ? `median ${fmt(commit.medianMs, 1)} ms` : 'not measured',
    met: commit ? commit.medianMs <= 50 : null,
  });

  const small = m('summary-100-c1');
  const large = m('summary-10000-c1');
  targets.push({
    goal: 'GET …/analysis at 10,000 people ≤ 2 × at 100 people (median, c=1)',
    value:
      small && large
        ? `${fmt(large.medianMs / small.medianMs)} × (${fmt(large.medianMs, 1)} vs ${fmt(small.medianMs, 1)} ms)`
        : 'not measured (endpoint missing or failed)',
    met: small && large ? large.medianMs <= 2 * small.medianMs : null,
  });
  return targets;
}

interface Cells {
  n: string;
  scenario: string;
  c: string;
  rps: string;
  median: string;
  p99: string;
  vs: string;
  cpu: string;
  notes: string;
}

const HEAD: Cells = {
  n: '#',
  scenario: 'scenario',
  c: 'c',
  rps: 'req/s',
  median: 'median ms',
  p99: 'p99 ms',
  vs: 'vs baseline',
  cpu: 'CPU µs/req server/pg/load',
  notes: 'notes',
};

function cpuPerRequest(r: ScenarioResult): string {
  const m = r.measurement;
  if (!r.cpu || !m || m.responses === 0) return '';
  const per = (ms: number | null) => (ms === null ? '?' : ((ms * 1000) / m.responses).toFixed(0));
  return `${per(r.cpu.serviceMs)}/${per(r.cpu.postgresMs)}/${per(r.cpu.loadMs)}`;
}

function cells(results: ScenarioResult[]): Cells[] {
  const number = new Map(results.map((r, i) => [r.id, i + 1]));
  return results.map((r, i) => {
    const m = r.measurement;
    const notes: string[] = [];
    if (r.outcome !== 'measured') notes.push(r.outcome === 'skipped' ? `skipped (${r.reason})` : `FAILED: ${r.reason}`);
    if (r.cpu?.serviceMs && r.cpu.serviceSystemMs !== null) notes.push(`server ${((100 * r.cpu.serviceSystemMs) / r.cpu.serviceMs).toFixed(0)} % in kernel`);
    if (m) {
      if (m.rowsAdmitted > 0) notes.push(`${(m.rowsAdmitted / m.seconds).toFixed(0)} rows/s admitted (${m.ok} imports)`);
      const bad = Object.entries(m.statuses).filter(([code]) => !code.startsWith('2'));
      if (bad.length > 0 || m.errors > 0) {
        notes.push(`non-2xx: ${bad.map(([code, n]) => `${n}×${code}`).join(', ') || 'none'}; errors ${m.errors}`);
      }
    }
    return {
      n: String(i + 1),
      scenario: r.name,
      c: String(r.connections),
      rps: m ? m.rps.toFixed(0) : '–',
      median: m ? m.medianMs.toFixed(2) : '–',
      p99: m ? m.p99Ms.toFixed(2) : '–',
      vs: r.ratio !== null && r.baseline ? `${r.ratio.toFixed(2)} × #${number.get(r.baseline)}` : '',
      cpu: cpuPerRequest(r),
      notes: notes.join('; '),
    };
  });
}

const COLUMNS: (keyof Cells)[] = ['n', 'scenario', 'c', 'rps', 'median', 'p99', 'vs', 'cpu', 'notes'];
const RIGHT = new Set<keyof Cells>(['n', 'c', 'rps', 'median', 'p99']);

export function textTable(results: ScenarioResult[]): string {
  const rows = [HEAD, ...cells(results)];
  const width = (col: keyof Cells) => Math.max(...rows.map((r) => r[col].length));
  const line = (r: Cells) =>
    COLUMNS.map((col) => (RIGHT.has(col) ? r[col].padStart(width(col)) : r[col].padEnd(width(col))))
      .join('  ')
      .trimEnd();
  return [line(HEAD), COLUMNS.map((col) => '-'.repeat(width(col))).join('  '), ...rows.slice(1).map(line)].join('\n');
}

export function textTargets(targets: Target[]): string {
  return targets.map((t) => `${t.met === null ? 'n/a   ' : t.met ? 'met   ' : 'MISSED'}  ${t.goal}: ${t.value}`).join('\n');
}

function markdownTable(results: ScenarioResult[]): string {
  const escape = (s: string) => s.replace(/\|/g, '\\|');
  const rows = cells(results).map((r) => `| ${COLUMNS.map((col) => escape(r[col])).join(' | ')} |`);
  const align = COLUMNS.map((col) => (RIGHT.has(col) ? '---:' : '---')).join(' | ');
  return [`| ${COLUMNS.map((col) => HEAD[col]).join(' | ')} |`, `| ${align} |`, ...rows].join('\n');
}

function markdown(report: RunReport): string {
  const { machine: m, settings: s } = report;
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  return [
    '# Benchmark results',
    '',
    `Generated by \`npm run bench\` on ${report.startedAt}; raw numbers in \`bench/results/latest.json\`. How to run and`,
    'read it, and profiling notes: `docs/benchmarks.md`.',
    '',
    `- Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB.toFixed(1)} GiB, ${m.platform}`,
    `- Node ${m.node}; ${m.postgres} (${m.database})`,
    `- Load average (1/5/15 min) at start ${load(m.loadAverageAtStart)}, at end ${load(m.loadAverageAtEnd)}`,
    `- ${s.seconds} s per read scenario after a ${s.warmupSeconds} s warm-up; ${s.importsPerConnection} imports per connection in the write scenarios`,
    '- Load generator (autocannon), service, baseline server and PostgreSQL all share these cores.',
    ...(s.note ? [`- Note: ${s.note}`] : []),
    '',
    markdownTable(report.results),
    '',
    '"vs baseline" is req/s divided by the req/s of the numbered row. req/s counts 2xx responses only.',
    '"CPU µs/req" is the CPU time of the measurement window per response: the server the scenario talks to (service or',
    'baseline), PostgreSQL (all its processes; "?" on a DATABASE_URL server), the load generator (autocannon, this process).',
    '',
    '## Targets',
    '',
    ...report.targets.map((t) => `- ${t.met === null ? 'n/a' : t.met ? '**met**' : '**missed**'}: ${t.goal}: ${t.value}`),
    '',
    ...(report.profile
      ? [
          '## CPU profile',
          '',
          `\`${report.profile.scenario}\`, service run with \`node --cpu-prof\`:`,
          '',
          '```',
          formatSummary(report.profile.summary),
          '```',
          '',
        ]
      : []),
  ].join('\n');
}

export async function writeReport(report: RunReport, benchDir: string): Promise<void> {
  await fs.mkdir(path.join(benchDir, 'results'), { recursive: true });
  await fs.writeFile(path.join(benchDir, 'results', 'latest.json'), JSON.stringify(report, null, 2) + '\n');
  await fs.writeFile(path.join(benchDir, 'RESULTS.md'), markdown(report));
}
