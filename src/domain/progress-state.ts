/**
 * Where a person stands since their previous scan (docs/analysis.md,
 * "History and progress"): the one rule of a person's progress state, shared
 * by their roll-up contribution (analysis-aggregate.ts), which keeps the
 * team's counts, and by each person's progress (progress.ts), which the
 * person page and the exports show.
 */

/**
 * - `improved` / `regressed` / `unchanged`: more gaps fixed than new ones, fewer, or as many;
 * - `first_scan`: no earlier scan to compare with;
 * - `not_rescanned`: their latest scan of the profile ended without it (private, unreachable,
 *   failed): the results shown are the earlier ones, so nothing is compared;
 * - `not_analyzed`: no analysis at all.
 */
export type ProgressState = 'improved' | 'regressed' | 'unchanged' | 'first_scan' | 'not_rescanned' | 'not_analyzed';

export const PROGRESS_STATES: readonly ProgressState[] = ['improved', 'regressed', 'unchanged', 'first_scan', 'not_rescanned', 'not_analyzed'];

/** The gaps fixed and the new ones since a person's previous scan (check keys), as their newest scan's history row keeps them. */
export interface GapMoves {
  fixed: readonly string[];
  opened: readonly string[];
}

/**
 * A person's progress state from their newest scan: whether there is one
 * (`scanned`), what changed since the scan before it (`since`, null when it
 * is their first), and whether their latest scan of the profile ended without
 * observing it (failed or inaccessible).
 */
export function progressState(input: { scanned: boolean; since: GapMoves | null; latestScanFailed: boolean }): ProgressState {
  if (!input.scanned) return 'not_analyzed';
  if (input.latestScanFailed) return 'not_rescanned';
  if (input.since === null) return 'first_scan';
  const { fixed, opened } = input.since;
  return fixed.length > opened.length ? 'improved' : fixed.length < opened.length ? 'regressed' : 'unchanged';
}

/** Whether a state compares two scans (and so has gap moves to show). */
export function comparesScans(state: ProgressState): boolean {
  return state === 'improved' || state === 'regressed' || state === 'unchanged';
}

/** Whether a latest full-profile item's status ended without observing the profile. */
export function endedUnobserved(status: string | null | undefined): boolean {
  return status === 'failed' || status === 'inaccessible';
}

/** A person's state and gap moves, as their roll-up contribution keeps them (none unless the state compares two scans). */
export interface PersonMoves extends GapMoves {
  state: ProgressState;
}

/** The team's progress as the report's roll-up sums it: people per state, and per check key how many fixed it and for how many it became a gap. */
export interface ProgressTotals {
  states: Record<ProgressState, number>;
  fixed: Record<string, number>;
  opened: Record<string, number>;
}

export function emptyProgressTotals(): ProgressTotals {
  return { states: Object.fromEntries(PROGRESS_STATES.map((s) => [s, 0])) as Record<ProgressState, number>, fixed: {}, opened: {} };
}

function count(counts: Record<string, number>, key: string, n: number): void {
  const next = (counts[key] ?? 0) + n;
  if (next === 0) delete counts[key];
  else counts[key] = next;
}

/** Adds (`sign` 1) or takes away (−1) one person's moves, in place; a check's count that reaches zero is dropped. */
export function addPersonMoves(totals: ProgressTotals, person: PersonMoves, sign: 1 | -1): void {
  totals.states[person.state] += sign;
  for (const key of person.fixed) count(totals.fixed, key, sign);
  for (const key of person.opened) count(totals.opened, key, sign);
}

/** `totals` plus `delta` (either may be a difference), in place. */
export function addProgressTotals(totals: ProgressTotals, delta: ProgressTotals): void {
  for (const state of PROGRESS_STATES) totals.states[state] += delta.states[state] ?? 0;
  for (const [key, n] of Object.entries(delta.fixed)) count(totals.fixed, key, n);
  for (const [key, n] of Object.entries(delta.opened)) count(totals.opened, key, n);
}
