/**
 * The people of a report as the web's pages show them (the report page's
 * table and its CSV export): who each person is, by the supplied name, else
 * the name the scan observed, else the profile's handle (docs/web.md,
 * "Names"); status, score, counts, each check's outcome and what to fix
 * first. `selectPeople` is the one implementation of the table's search,
 * filters and order, so the export is exactly the table.
 */
import type { Observed, Outcome } from '../domain/checks/check-helpers.js';
import { scorePct } from '../domain/analysis-records.js';
import { EMPTY_CONTRIBUTION, unanalyzedReason, type Contribution } from '../domain/analysis-aggregate.js';
import { notFound } from '../domain/errors.js';
import { optimizeCounts, personalFixFirst, teamActions, weightedScorePct, type CommonGap } from '../domain/fix-first.js';
import type { CheckDefinition } from '../domain/checks/catalog.js';
import { profileHandle } from '../domain/profile-url.js';
import { groupsPeople } from '../domain/group-summary.js';
import type { Db } from '../store/database.js';
import { readReportPeople as readRows } from '../store/report-people-repository.js';

export interface ReportPerson {
  profile_id: string;
  pronet_url: string;
  /** The name to show: supplied, else observed, else the profile's handle. */
  display_name: string;
  /** Where `display_name` comes from. */
  name_source: 'supplied' | 'observed' | 'url';
  title: string | null;
  /** Supplied, else observed. */
  headline: string | null;
  /** The other columns the web's CSV import carried (department, office …), by header. */
  columns: Readonly<Record<string, string>>;
  /** 'analyzed', else why not (the findings record's `reason`). */
  status: string;
  /** Analyzed, and being scanned again: the results shown are the previous scan's until it finishes. */
  rescanning: boolean;
  /** The contract's score: good of answered checks. */
  score_pct: number | null;
  /** The web's score, by impact weight (domain/fix-first.ts weightedScorePct): what the table shows and sorts by. */
  weighted_score_pct: number | null;
  good: number;
  optimize: number;
  unknown: number;
  /** When the analysed profile was observed; null without an analysis. */
  captured_at: Date | null;
  /** Each check's observed value, by check key ({} without an analysis). */
  observed: Readonly<Record<string, Observed>>;
  /** Null when the person has no analysis. */
  outcomes: Readonly<Record<string, Outcome>> | null;
  /** Their gaps by impact, without the team's actions (domain/fix-first.ts personalFixFirst). */
  fix_first: CheckDefinition[];
  /** A latest scan of theirs (profile or activity) succeeded with a warning. */
  warning: boolean;
  /** Their analysis lacks fields the source withholds from public view. */
  restricted: boolean;
  /** Their contribution to the report's totals: what a group's figures are summed from (domain/group-summary.ts). */
  contribution: Contribution;
}

/** The name a page shows for a person: supplied, else observed, else the profile's handle; and where it comes from. */
export function personName(row: { name: string | null; observed_name: string | null; pronet_url: string }): [string, ReportPerson['name_source']] {
  if (row.name !== null) return [row.name, 'supplied'];
  if (row.observed_name !== null) return [row.observed_name, 'observed'];
  return [profileHandle(row.pronet_url), 'url'];
}

export async function readReportPeople(ctx: { db: Db; workspaceId: string }, reportId: string): Promise<ReportPerson[]> {
  const rows = await readRows(ctx.db, ctx.workspaceId, reportId);
  if (!rows) throw notFound('report');
  const team = new Set(reportTeamActions(rows.map((r) => r.analysis?.outcomes ?? null)).map((gap) => gap.check.key));
  return rows.map((r) => {
    const [display_name, name_source] = personName(r);
    const a = r.analysis;
    const outcomes = a ? Object.entries(a.outcomes).map(([key, outcome]) => ({ key, outcome })) : [];
    return {
      profile_id: r.profile_id,
      pronet_url: r.pronet_url,
      display_name,
      name_source,
      title: r.title,
      headline: r.headline ?? r.observed_headline,
      columns: orderedColumns(r.imported_columns),
      status: a ? 'analyzed' : unanalyzedReason(r.full),
      rescanning: a !== null && (r.full?.status === 'pending' || r.full?.status === 'running'),
      score_pct: a ? scorePct(a.good, a.good + a.optimize) : null,
      weighted_score_pct: a ? weightedScorePct(outcomes) : null,
      good: a?.good ?? 0,
      optimize: a?.optimize ?? 0,
      unknown: a?.unknown ?? 0,
      captured_at: a?.captured_at ?? null,
      observed: a?.observed ?? {},
      outcomes: a?.outcomes ?? null,
      fix_first: personalFixFirst(outcomes, team),
      warning: (r.contribution?.work ?? []).some((item) => item.status === 'succeeded' && item.warning),
      restricted: (r.contribution?.restricted_persons ?? 0) > 0,
      contribution: r.contribution ? { ...r.contribution, record: null, events: {} } : EMPTY_CONTRIBUTION,
    };
  });
}

/**
 * The report's team actions (domain/fix-first.ts teamActions), counted over
 * everyone analyzed on it whatever a page's filter: the report page lists
 * them, and every person's fix-first list leaves them out.
 */
export function reportTeamActions(outcomes: readonly (Readonly<Record<string, Outcome>> | null)[]): CommonGap[] {
  const analyzed = outcomes.filter((o) => o !== null);
  return teamActions(optimizeCounts(analyzed), analyzed.length);
}

export const PEOPLE_SORTS = ['name', 'title', 'status', 'score', 'good', 'optimize', 'unknown'] as const;
export type PeopleSort = (typeof PEOPLE_SORTS)[number];

export interface PeopleSelection {
  /** Words to find in the name, title, headline, profile URL or imported columns (case-insensitive; every word must match). */
  search: string;
  /** Only people with exactly this title ('' any). */
  title: string;
  /** Only people whose imported column has this value, as `column=value` ('' any): groupValue(). */
  group: string;
  /** With `outcome`: only people whose outcome for this check is that outcome (no analysis counts as unknown). */
  check: string;
  outcome: '' | Outcome;
  /** Only people in this state or with this kind of trouble ('' any): STATUS_FILTERS. */
  status: '' | StatusFilter;
  sort: PeopleSort;
  descending: boolean;
}

/**
 * The people table's status filter: a person's state (analyzed, being
 * scanned, or why there is no analysis) or a kind of trouble they have
 * (web/components/plain-words.ts troubleList links each count here).
 */
export const STATUS_FILTERS = [
  'analyzed',
  'scanning',
  'profile_inaccessible',
  'scan_failed',
  'scan_cancelled',
  'no_data',
  'warnings',
  'unknown_checks',
  'restricted',
] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

/** Whether a person is in the state, or has the trouble, a status filter names. */
function hasStatus(p: ReportPerson, filter: StatusFilter): boolean {
  switch (filter) {
    case 'scanning':
      return p.status === 'scan_queued' || p.status === 'scan_in_progress';
    case 'no_data':
      return p.status === 'no_usable_analysis' || p.status === 'not_requested';
    case 'warnings':
      return p.warning;
    case 'unknown_checks':
      return p.status === 'analyzed' && p.unknown > 0;
    case 'restricted':
      return p.restricted;
    default:
      return p.status === filter;
  }
}

/** Analyzed first, then the people still in progress, then those who need attention. */
const STATUS_ORDER = [
  'analyzed',
  'scan_in_progress',
  'scan_queued',
  'profile_inaccessible',
  'scan_failed',
  'no_usable_analysis',
  'scan_cancelled',
  'not_requested',
];

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

function compareBy(sort: PeopleSort): (a: ReportPerson, b: ReportPerson) => number {
  const nullsLast = (x: number | null, y: number | null) => (x === null ? (y === null ? 0 : 1) : y === null ? -1 : x - y);
  switch (sort) {
    case 'name':
      return () => 0;
    case 'title':
      return (a, b) => (a.title === null ? (b.title === null ? 0 : 1) : b.title === null ? -1 : collator.compare(a.title, b.title));
    case 'status':
      return (a, b) => STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status);
    case 'score':
      return (a, b) => nullsLast(a.weighted_score_pct, b.weighted_score_pct);
    default:
      return (a, b) => a[sort] - b[sort];
  }
}

/** The people the table shows, in its order: search, title, group, status, check outcome; then the sort, ties by name. */
export function selectPeople(people: readonly ReportPerson[], selection: PeopleSelection): ReportPerson[] {
  const words = selection.search.toLocaleLowerCase('en').split(/\s+/u).filter(Boolean);
  const group = parseGroup(selection.group);
  const matches = (p: ReportPerson) => {
    if (selection.title !== '' && p.title !== selection.title) return false;
    if (group !== null && p.columns[group.column] !== group.value) return false;
    if (selection.status !== '' && !hasStatus(p, selection.status)) return false;
    if (selection.check !== '' && selection.outcome !== '' && (p.outcomes?.[selection.check] ?? 'unknown') !== selection.outcome) return false;
    if (words.length === 0) return true;
    const text = [p.display_name, p.title, p.headline, p.pronet_url, ...Object.values(p.columns)].filter(Boolean).join(' ').toLocaleLowerCase('en');
    return words.every((w) => text.includes(w));
  };
  const primary = compareBy(selection.sort);
  const byName = (a: ReportPerson, b: ReportPerson) => collator.compare(a.display_name, b.display_name) || (a.profile_id < b.profile_id ? -1 : 1);
  const direction = selection.descending ? -1 : 1;
  // People without a score go last whichever way the scores are sorted.
  const unscored = (a: ReportPerson, b: ReportPerson) =>
    selection.sort === 'score' ? Number(a.weighted_score_pct === null) - Number(b.weighted_score_pct === null) : 0;
  return people.filter(matches).sort((a, b) => unscored(a, b) || direction * primary(a, b) || (selection.sort === 'name' ? direction : 1) * byName(a, b));
}

/** The distinct supplied titles, for the title filter. */
export function titlesOf(people: readonly ReportPerson[]): string[] {
  return [...new Set(people.map((p) => p.title).filter((t): t is string => t !== null))].sort(collator.compare);
}

/** A person's imported columns by name (PostgreSQL's jsonb keeps no order): the order every page and export shows them in. */
export function orderedColumns(columns: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  return Object.fromEntries(Object.entries(columns).sort(([a], [b]) => collator.compare(a, b)));
}

/** A group filter's value: `column=value` (column names never hold `=`: web/people-input.ts). */
export function groupValue(column: string, value: string): string {
  return `${column}=${value}`;
}

export function parseGroup(group: string): { column: string; value: string } | null {
  const at = group.indexOf('=');
  return at <= 0 ? null : { column: group.slice(0, at), value: group.slice(at + 1) };
}

/** Each imported column on the report and its distinct values, by name. */
export function importedColumnsOf(people: readonly ReportPerson[]): Array<{ column: string; values: string[]; people: number }> {
  const byColumn = new Map<string, { values: Set<string>; people: number }>();
  for (const p of people) {
    for (const [column, value] of Object.entries(p.columns)) {
      const seen = byColumn.get(column) ?? { values: new Set<string>(), people: 0 };
      seen.values.add(value);
      seen.people += 1;
      byColumn.set(column, seen);
    }
  }
  return [...byColumn.entries()]
    .sort(([a], [b]) => collator.compare(a, b))
    .map(([column, seen]) => ({ column, values: [...seen.values].sort(collator.compare), people: seen.people }));
}

/** The imported columns whose values group people (domain/group-summary.ts, groupsPeople): the group filter's and the compare view's choices. */
export function groupColumnsOf(people: readonly ReportPerson[]): Array<{ column: string; values: string[] }> {
  return importedColumnsOf(people)
    .filter((c) => groupsPeople(c.values.length, c.people))
    .map(({ column, values }) => ({ column, values }));
}
