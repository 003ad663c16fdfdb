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
import { comparesScans, PROGRESS_STATES, progressState, type ProgressState, type ProgressTotals } from './progress-state.js';

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

/** A person's progress from their newest scan (progress-state.ts, `progressState`), with what changed since the scan before it when it compares two. */
export function personProgress(input: { scanned: boolean; since: SincePrevious | null; latestScanFailed: boolean }): PersonProgress {
  const state = progressState(input);
  const compared = comparesScans(state);
  return compared && input.since ? { state, ...input.since } : { state, fixed: [], opened: [], previousScorePct: null, changePct: null };
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

/** The team's progress from its people's as the report's roll-up sums them (analysis-aggregate.ts): counts per state and each check's movement. */
export function teamProgress(totals: ProgressTotals): TeamProgress {
  const counts = Object.fromEntries(PROGRESS_STATES.map((s) => [s, totals.states[s] ?? 0])) as Record<ProgressState, number>;
  const order = new Map(CHECKS.map((c, i) => [c.key, i]));
  const checks = CHECKS.filter((c) => totals.fixed[c.key] || totals.opened[c.key])
    .map((check) => ({ check, fixed: totals.fixed[check.key] ?? 0, opened: totals.opened[check.key] ?? 0 }))
    .sort((a, b) => b.fixed - a.fixed || b.opened - a.opened || order.get(a.check.key)! - order.get(b.check.key)!);
  return { counts, checks, fixedTotal: checks.reduce((s, c) => s + c.fixed, 0), openedTotal: checks.reduce((s, c) => s + c.opened, 0) };
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

/** What a round's point shows of the team: the score as the summary computes it, and the top gaps. */
export interface RoundFigures {
  scorePct: number | null;
  topGaps: string[];
}

/** A round's figures from each check's counts at that round (a report snapshot's). */
export function roundFigures(checks: Readonly<Record<string, CheckTotals>>): RoundFigures {
  const topGaps = CHECKS.map((check, i) => ({ key: check.key, optimize: checks[check.id]?.optimize ?? 0, i }))
    .filter((c) => c.optimize > 0)
    .sort((a, b) => b.optimize - a.optimize || a.i - b.i)
    .slice(0, TOP_GAPS)
    .map((c) => c.key);
  return { scorePct: totalsScore({ checks }).score_pct, topGaps };
}
