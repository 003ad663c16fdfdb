/**
 * Progress between two scans (docs/analysis.md, "History and progress"):
 * which of a person's gaps were fixed and which are new, whether the person
 * improved, regressed or stayed unchanged, their score before and after,
 * and the team's picture per completed round. One rule for the report page,
 * the person page and the exports.
 *
 * A gap is a check whose outcome is `optimize`. It is fixed only when the
 * check is now positively `good`: a check that moved from `optimize` to
 * `unknown` is not fixed, for absence of data is never advice (the source
 * may simply have stopped showing it). A new gap is a check now `optimize`
 * that was `good` or `unknown` before (a check the earlier scan did not
 * have, after a catalog change, is neither).
 */
import { CHECKS, type CheckDefinition } from './checks/catalog.js';
import type { CheckTotals, Outcome } from './analysis-aggregate.js';
import { totalsScore } from './analysis-summary.js';
import { weightedScorePct } from './fix-first.js';

/** A person's outcomes by check key. */
export type Outcomes = Readonly<Record<string, Outcome>>;

/** The checks fixed and the new gaps from `before` to `after`, each in catalog order (check keys). */
export function gapChanges(before: Outcomes, after: Outcomes): { fixed: string[]; opened: string[] } {
  const fixed: string[] = [];
  const opened: string[] = [];
  for (const check of CHECKS) {
    const was = before[check.key];
    const now = after[check.key];
    if (was === undefined || now === undefined) continue;
    if (was === 'optimize' && now === 'good') fixed.push(check.key);
    else if (was !== 'optimize' && now === 'optimize') opened.push(check.key);
  }
  return { fixed, opened };
}

/**
 * Where a person stands since their previous scan:
 * - `improved` / `regressed` / `unchanged`: more gaps fixed than new ones, fewer, or as many;
 * - `first_scan`: no earlier scan to compare with;
 * - `not_rescanned`: their latest scan of the profile ended without it (private, unreachable,
 *   failed): the results shown are the earlier ones, so nothing is compared;
 * - `not_analyzed`: no analysis at all.
 */
export type ProgressState = 'improved' | 'regressed' | 'unchanged' | 'first_scan' | 'not_rescanned' | 'not_analyzed';

export const PROGRESS_STATES: readonly ProgressState[] = ['improved', 'regressed', 'unchanged', 'first_scan', 'not_rescanned', 'not_analyzed'];

/**
 * What changed from a person's previous scan to a later one: the gaps fixed
 * and the new ones, and the web's weighted score (fix-first.ts) before and
 * the change. Computed once, when the later scan's history row is written
 * (store/history-repository.ts), and stored with it, so reading a team's
 * progress reads one row per person whatever the depth of their history.
 */
export interface SincePrevious {
  /** Check keys fixed since the previous scan. */
  fixed: string[];
  /** Check keys that became gaps since the previous scan. */
  opened: string[];
  /** The weighted score at the previous scan; null when it was not scored. */
  previousScorePct: number | null;
  /** This scan's weighted score minus the previous one, one decimal; null when either is missing. */
  changePct: number | null;
}

export interface PersonProgress extends SincePrevious {
  state: ProgressState;
}

/** A scan's weighted score from its outcomes (fix-first.ts weightedScorePct): the points of a person's trend. */
export function scanScorePct(outcomes: Outcomes): number | null {
  return weightedScorePct(Object.entries(outcomes).map(([key, outcome]) => ({ key, outcome })));
}

/** What changed from the `previous` scan's outcomes to the `current` one's. */
export function sincePrevious(previous: Outcomes, current: Outcomes): SincePrevious {
  const { fixed, opened } = gapChanges(previous, current);
  const previousScorePct = scanScorePct(previous);
  const score = scanScorePct(current);
  const changePct = previousScorePct === null || score === null ? null : Math.round((score - previousScorePct) * 10) / 10;
  return { fixed, opened, previousScorePct, changePct };
}

/**
 * A person's progress from their newest scan: whether there is one
 * (`scanned`), what changed since the scan before it (`since`, null when it
 * is their first), and whether their latest scan of the profile ended without
 * observing it (failed or inaccessible).
 */
export function personProgress(input: { scanned: boolean; since: SincePrevious | null; latestScanFailed: boolean }): PersonProgress {
  const none = { fixed: [], opened: [], previousScorePct: null, changePct: null };
  if (!input.scanned) return { state: 'not_analyzed', ...none };
  if (input.latestScanFailed) return { state: 'not_rescanned', ...none };
  if (input.since === null) return { state: 'first_scan', ...none };
  const { fixed, opened } = input.since;
  const state = fixed.length > opened.length ? 'improved' : fixed.length < opened.length ? 'regressed' : 'unchanged';
  return { state, ...input.since };
}

/** One check's movement across the team: how many people fixed it, and for how many it became a gap. */
export interface CheckMovement {
  check: CheckDefinition;
  fixed: number;
  opened: number;
}

export interface TeamProgress {
  /** People per progress state (every state present, zero included). */
  counts: Record<ProgressState, number>;
  /** Checks that moved, most fixed first, then most opened, then catalog order. */
  checks: CheckMovement[];
  fixedTotal: number;
  openedTotal: number;
}

/** The team's progress from its people's: counts per state and each check's movement. */
export function teamProgress(people: readonly PersonProgress[]): TeamProgress {
  const counts = Object.fromEntries(PROGRESS_STATES.map((s) => [s, 0])) as Record<ProgressState, number>;
  const fixed = new Map<string, number>();
  const opened = new Map<string, number>();
  for (const p of people) {
    counts[p.state] += 1;
    for (const key of p.fixed) fixed.set(key, (fixed.get(key) ?? 0) + 1);
    for (const key of p.opened) opened.set(key, (opened.get(key) ?? 0) + 1);
  }
  const order = new Map(CHECKS.map((c, i) => [c.key, i]));
  const checks = CHECKS.filter((c) => fixed.has(c.key) || opened.has(c.key))
    .map((check) => ({ check, fixed: fixed.get(check.key) ?? 0, opened: opened.get(check.key) ?? 0 }))
    .sort((a, b) => b.fixed - a.fixed || b.opened - a.opened || order.get(a.check.key)! - order.get(b.check.key)!);
  const sum = (m: Map<string, number>) => [...m.values()].reduce((s, n) => s + n, 0);
  return { counts, checks, fixedTotal: sum(fixed), openedTotal: sum(opened) };
}

/** The team's picture at one completed round (a report snapshot). */
export interface RoundPoint {
  completedAt: Date;
  persons: number;
  analyzed: number;
  /** The contract's score over the team: good of answered checks (analysis-summary.ts totalsScore). */
  scorePct: number | null;
  /** The checks most people should optimize, most first (check keys, at most `TOP_GAPS`). */
  topGaps: string[];
}

export const TOP_GAPS = 3;

/** A round's point from a snapshot's counts: the score as the summary computes it, and the top gaps. */
export function roundPoint(snapshot: { completedAt: Date; persons: number; analyzed: number; checks: Readonly<Record<string, CheckTotals>> }): RoundPoint {
  const topGaps = CHECKS.map((check, i) => ({ key: check.key, optimize: snapshot.checks[check.id]?.optimize ?? 0, i }))
    .filter((c) => c.optimize > 0)
    .sort((a, b) => b.optimize - a.optimize || a.i - b.i)
    .slice(0, TOP_GAPS)
    .map((c) => c.key);
  return { completedAt: snapshot.completedAt, persons: snapshot.persons, analyzed: snapshot.analyzed, scorePct: totalsScore(snapshot).score_pct, topGaps };
}
