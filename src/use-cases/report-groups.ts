/**
 * A report's people by group (docs/web.md, "Groups"): the figures of the
 * group the people table is filtered on, and the compare view of two to five
 * groups of one imported column, with the CSV of the same figures. The
 * figures are domain/group-summary.ts's, summed from the people the table and
 * the people CSV read (report-people.ts), so the page, both CSVs and the
 * figures agree under any group filter.
 */
import { compareChoiceProblem, COMPARE_MAX_GROUPS, figuresOf, groupFigures, type GroupFigures } from '../domain/group-summary.js';
import type { Db } from '../store/database.js';
import { requireReport } from './require-report.js';
import { groupColumnsOf, parseGroup, readReportPeople, type ReportPerson } from './report-people.js';
import type { ReportRow } from '../store/report-repository.js';

export type { GroupFigures };

/** The figures of the people a group filter (`column=value`) keeps; null without one. */
export function filteredGroupFigures(people: readonly ReportPerson[], group: string, gapsShown: number): GroupFigures | null {
  const parsed = parseGroup(group);
  if (!parsed) return null;
  return figuresOf(
    parsed.value,
    people.filter((p) => p.columns[parsed.column] === parsed.value),
    gapsShown,
  );
}

export interface Comparison {
  report: ReportRow;
  /** Every imported column and its values, for the choice of what to compare. */
  columns: Array<{ column: string; values: string[] }>;
  /** The column compared ('' when none is chosen or the report has none). */
  column: string;
  /** The values compared, in the order shown. */
  values: string[];
  /** Why the choice cannot be compared (too few or too many groups), or null. */
  problem: string | null;
  /** One per value, empty when there is a problem. */
  groups: GroupFigures[];
  /** How many people the report has. */
  totalPeople: number;
}

/**
 * The compare view: the groups of `column` named in `values` (two to five);
 * without values, the largest groups of the column, up to five. A column the
 * report does not have falls back to its first.
 */
export async function readComparison(ctx: { db: Db; workspaceId: string }, reportId: string, column: string, values: readonly string[]): Promise<Comparison> {
  const report = await requireReport(ctx.db, ctx.workspaceId, reportId);
  const people = await readReportPeople(ctx, reportId);
  const columns = groupColumnsOf(people);
  const chosen = columns.find((c) => c.column === column) ?? columns[0];
  const base = { report, columns, totalPeople: people.length };
  if (!chosen)
    return {
      ...base,
      column: '',
      values: [],
      problem: 'This report has no imported column that groups people: a column such as a department, with values shared by several people.',
      groups: [],
    };
  const asked = [...new Set(values.filter((v) => chosen.values.includes(v)))];
  const picked =
    asked.length > 0
      ? asked
      : groupFigures(people, chosen.column)
          .slice(0, COMPARE_MAX_GROUPS)
          .map((g) => g.value!);
  const problem = compareChoiceProblem(picked);
  return { ...base, column: chosen.column, values: picked, problem, groups: problem ? [] : groupFigures(people, chosen.column, picked) };
}
