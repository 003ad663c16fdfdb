/**
 * Figures per group of a report's people (docs/web.md, "Groups"): the people
 * are grouped by the value of one imported column (department, team,
 * location …), and each group's totals are the sum of its people's stored
 * contributions, the same arithmetic as the report's totals
 * (analysis-aggregate.ts), summarized by the same functions as the report's
 * summary (analysis-summary.ts optimizationOf, coverageOf) and ranked by the
 * same most-common-gaps rule (fix-first.ts). Pure: people in, figures out.
 */
import { sumContributions, type Contribution, type Totals } from './analysis-aggregate.js';
import { coverageOf, optimizationOf, type OptimizationFigures } from './analysis-summary.js';
import { commonGaps, type CommonGap } from './fix-first.js';

/** A compare view shows this many groups at most, and at least two. */
export const COMPARE_MAX_GROUPS = 5;
export const COMPARE_MIN_GROUPS = 2;
/** Gaps named per group. */
export const GROUP_GAPS_SHOWN = 3;

export interface GroupMember {
  /** The person's imported columns, by name. */
  columns: Readonly<Record<string, string>>;
  /** Their stored contribution to the report's totals (collections left out: a group has no revision). */
  contribution: Contribution;
}

export interface GroupFigures {
  /** The column's value; null for the whole report. */
  value: string | null;
  totals: Totals;
  coverage: ReturnType<typeof coverageOf>;
  optimization: ReturnType<typeof optimizationOf<object>> & { categories: OptimizationFigures[]; checks: OptimizationFigures[] };
  /** The group's most common gaps, over its analyzed people. */
  gaps: CommonGap[];
}

/** The figures of one set of people. */
export function figuresOf(value: string | null, members: Iterable<GroupMember>, gapsShown = GROUP_GAPS_SHOWN): GroupFigures {
  const contributions: Contribution[] = [];
  for (const member of members) contributions.push(member.contribution);
  const totals = sumContributions(contributions);
  const optimization = optimizationOf(totals, (body) => body);
  return {
    value,
    totals,
    coverage: coverageOf(totals, optimization.counts.unknown),
    optimization,
    gaps: commonGaps(optimization.checks, totals.analyzed, gapsShown),
  };
}

/** The people of each value of `column`, in one pass (people without a value for it belong to no group). */
function membersByValue<M extends GroupMember>(people: Iterable<M>, column: string): Map<string, M[]> {
  const groups = new Map<string, M[]>();
  for (const person of people) {
    const value = person.columns[column];
    if (value === undefined) continue;
    const members = groups.get(value);
    if (members) members.push(person);
    else groups.set(value, [person]);
  }
  return groups;
}

/**
 * The figures of each group of `column`: of the `values` asked for, in that
 * order (a value nobody has gives an empty group), else of every value, the
 * largest groups first (ties by value).
 */
export function groupFigures(people: Iterable<GroupMember>, column: string, values?: readonly string[], gapsShown = GROUP_GAPS_SHOWN): GroupFigures[] {
  const groups = membersByValue(people, column);
  const chosen =
    values && values.length > 0
      ? values
      : [...groups.entries()].sort(([a, x], [b, y]) => y.length - x.length || (a < b ? -1 : a > b ? 1 : 0)).map(([value]) => value);
  return chosen.map((value) => figuresOf(value, groups.get(value) ?? [], gapsShown));
}

/**
 * Whether a column's values group people: at least two values, some value
 * shared by two people or more, and on a larger report no more values than
 * half its people. A column with one value for everyone, or nearly one per
 * person (an employee number, a first name in a small team), would make as
 * many "groups" as people, so it is not offered as a filter or a comparison.
 */
export function groupsPeople(distinctValues: number, peopleWithAValue: number): boolean {
  return distinctValues >= 2 && distinctValues < peopleWithAValue && distinctValues <= Math.max(2, Math.ceil(peopleWithAValue / 2));
}

/** Why a compare view's choice of groups cannot be shown, or null when it can. */
export function compareChoiceProblem(values: readonly string[]): string | null {
  const distinct = new Set(values);
  if (distinct.size < COMPARE_MIN_GROUPS) return `Choose at least ${COMPARE_MIN_GROUPS} groups to compare.`;
  if (distinct.size > COMPARE_MAX_GROUPS) return `Choose at most ${COMPARE_MAX_GROUPS} groups to compare: ${distinct.size} were chosen.`;
  return null;
}
