/**
 * Part of `npm run bench` (alone: `npm run bench -- groups`): the cost of
 * grouping a report's figures (domain/group-summary.ts, docs/web.md
 * "Groups"). One analyzed report of 10,000 people (bench/seed.ts) whose
 * people carry a Department column of 20 values; in alternating rounds, in
 * this process against the same database:
 *
 * - ungrouped: the people read the report page makes (use-cases
 *   report-people.ts readReportPeople) and the figures of everyone from
 *   their contributions (figuresOf): the report's summary computed the way
 *   a group's is;
 * - grouped: the same read and the figures of each of the 20 groups
 *   (groupFigures), what the compare view and its CSV compute.
 *
 * The grouped median is printed as a ratio of the ungrouped one. The
 * figures alone (without the read) are printed beside it. Results:
 * bench/results/groups.json.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { figuresOf, groupFigures } from '../src/domain/group-summary.js';
import { readReportPeople } from '../src/use-cases/report-people.js';
import type { Db } from '../src/store/database.js';
import { createTenant, seedAnalyzedReport } from './seed.js';

export const GROUPS_PEOPLE = 10_000;
export const GROUPS = 20;
const TARGET_RATIO = 1.5;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function timed<T>(run: () => Promise<T> | T): Promise<[number, T]> {
  const started = performance.now();
  const value = await run();
  return [performance.now() - started, value];
}

/** Seeds the report, measures `rounds` alternating rounds and writes bench/results/groups.json. */
export async function benchGroups(db: Db, options: { rounds: number; resultsDir: string; database: string; log: (message: string) => void }): Promise<void> {
  const { log } = options;
  const tenant = await createTenant(db);
  log(`groups: seeding ${GROUPS_PEOPLE.toLocaleString('en-US')} analyzed people in ${GROUPS} departments`);
  const reportId = await seedAnalyzedReport(db, tenant.workspaceId, GROUPS_PEOPLE);
  await sql`update report_profiles p set imported_columns = jsonb_build_object('Department', 'Department ' || (1 + n.i % ${GROUPS}::int))
              from (select id, row_number() over (order by id) as i from report_profiles where report_id = ${reportId}) n
             where p.id = n.id`.execute(db);
  await sql`vacuum (analyze) report_profiles`.execute(db);
  const ctx = { db, workspaceId: tenant.workspaceId };

  const rounds = { ungrouped: [] as number[], grouped: [] as number[], ungroupedFigures: [] as number[], groupedFigures: [] as number[] };
  let groupsSeen = 0;
  for (let round = -2; round < options.rounds; round++) {
    // Alternating order, so neither side always runs on a warmer cache; the first two rounds warm up.
    for (const side of round % 2 === 0 ? (['ungrouped', 'grouped'] as const) : (['grouped', 'ungrouped'] as const)) {
      const [read, people] = await timed(() => readReportPeople(ctx, reportId));
      const [compute, figures] = await timed(() => (side === 'grouped' ? groupFigures(people, 'Department') : [figuresOf(null, people)]));
      if (round < 0) continue;
      rounds[side].push(read + compute);
      rounds[side === 'grouped' ? 'groupedFigures' : 'ungroupedFigures'].push(compute);
      if (side === 'grouped') groupsSeen = figures.length;
    }
  }
  if (groupsSeen !== GROUPS) throw new Error(`groups: expected ${GROUPS} groups, got ${groupsSeen}`);

  const ungroupedMs = median(rounds.ungrouped);
  const groupedMs = median(rounds.grouped);
  const ratio = groupedMs / ungroupedMs;
  const figuresRatio = median(rounds.groupedFigures) / median(rounds.ungroupedFigures);
  const result = {
    benchmark: 'npm run bench -- groups',
    startedAt: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version, database: options.database, loadAverage: os.loadavg() },
    settings: { people: GROUPS_PEOPLE, groups: GROUPS, rounds: options.rounds },
    medians: {
      ungroupedMs,
      groupedMs,
      ungroupedFiguresOnlyMs: median(rounds.ungroupedFigures),
      groupedFiguresOnlyMs: median(rounds.groupedFigures),
    },
    targets: [
      {
        target: `grouped summary (${GROUPS} groups) within ${TARGET_RATIO} × the ungrouped one, ${GROUPS_PEOPLE.toLocaleString('en-US')} people (read and figures)`,
        measured: `${ratio.toFixed(2)} ×`,
        met: ratio <= TARGET_RATIO,
      },
      {
        target: 'the figures alone, grouped against ungrouped (reference)',
        measured: `${figuresRatio.toFixed(2)} ×`,
        met: null,
      },
    ],
  };
  await fs.writeFile(path.join(options.resultsDir, 'groups.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    `\ngroups (${GROUPS_PEOPLE.toLocaleString('en-US')} people, ${GROUPS} groups, ${options.rounds} rounds): ungrouped ${ungroupedMs.toFixed(1)} ms, grouped ${groupedMs.toFixed(1)} ms, ${ratio.toFixed(2)} × (target ≤ ${TARGET_RATIO}: ${ratio <= TARGET_RATIO ? 'met' : 'MISSED'}); figures alone ${figuresRatio.toFixed(2)} ×`,
  );
  console.log('written: bench/results/groups.json');
}
