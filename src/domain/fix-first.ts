/**
 * What to fix first: a person's gaps (checks whose outcome is `optimize`)
 * ranked by the check's impact weight (catalog.ts IMPACT_LEVELS), then in
 * catalog order; and a team's most common gaps, by the share of analyzed
 * people who have them. Plain functions shared by every page that shows
 * them (docs/checks.md, "Fix first").
 */
import { CHECKS, type CheckDefinition } from './checks/catalog.js';
import type { Outcome } from './checks/check-helpers.js';

const order = new Map(CHECKS.map((c, i) => [c.key, i]));
const byKey = new Map(CHECKS.map((c) => [c.key, c]));

/** Higher impact first, then catalog order. */
function byImpact(a: CheckDefinition, b: CheckDefinition): number {
  return b.impact - a.impact || order.get(a.key)! - order.get(b.key)!;
}

/** A person's checks to optimize, most important first (all of them; a page shows the first few). */
export function fixFirst(checks: readonly { key: string; outcome: Outcome }[]): CheckDefinition[] {
  return checks
    .filter((c) => c.outcome === 'optimize')
    .map((c) => byKey.get(c.key))
    .filter((c): c is CheckDefinition => c !== undefined)
    .sort(byImpact);
}

export interface CommonGap {
  check: CheckDefinition;
  /** People whose outcome for the check is `optimize`. */
  people: number;
  /** `people` of the analyzed people, 0 to 1. */
  share: number;
}

/**
 * The checks most analyzed people should optimize: by share, then impact,
 * then catalog order; checks nobody needs to optimize are left out.
 */
export function commonGaps(checks: readonly { key: string; optimize: number }[], analyzedPeople: number, limit: number): CommonGap[] {
  if (analyzedPeople === 0) return [];
  return checks
    .filter((c) => c.optimize > 0 && byKey.has(c.key))
    .map((c) => ({ check: byKey.get(c.key)!, people: c.optimize, share: c.optimize / analyzedPeople }))
    .sort((a, b) => b.people - a.people || byImpact(a.check, b.check))
    .slice(0, limit);
}

/**
 * A check is a team action when at least this share of the analyzed people
 * should optimize it ("most of the team"): it is fixed once, together (a
 * banner, a company page link, a posting plan), so it is listed once on the
 * report page and left out of each person's own list.
 */
export const TEAM_ACTION_SHARE = 0.6;
/** Below this many analyzed people, nothing is a team action: with two people, "most" says nothing about a team. */
export const TEAM_ACTION_MIN_PEOPLE = 3;

/** The checks that are team actions (TEAM_ACTION_SHARE), most people first, then impact and catalog order. */
export function teamActions(checks: readonly { key: string; optimize: number }[], analyzedPeople: number): CommonGap[] {
  if (analyzedPeople < TEAM_ACTION_MIN_PEOPLE) return [];
  return commonGaps(checks, analyzedPeople, checks.length).filter((gap) => gap.share >= TEAM_ACTION_SHARE);
}

/** A person's own fix-first list: their gaps by impact (fixFirst), without the team's actions. */
export function personalFixFirst(checks: readonly { key: string; outcome: Outcome }[], teamActionKeys: ReadonlySet<string>): CheckDefinition[] {
  return fixFirst(checks).filter((c) => !teamActionKeys.has(c.key));
}

/** How many people of `people` should optimize each check: the input of teamActions. */
export function optimizeCounts(people: readonly (Readonly<Record<string, Outcome>> | null)[]): { key: string; optimize: number }[] {
  return CHECKS.map((c) => ({ key: c.key, optimize: people.filter((outcomes) => outcomes?.[c.key] === 'optimize').length }));
}

/**
 * The web's weighted score: the impact weights of the good checks over those
 * of the answered ones (good or optimize), in percent; null with
 * nothing answered (one decimal, like the contract's score). The API's `score_pct` stays the contract's good / answered.
 */
export function weightedScorePct(checks: readonly { key: string; outcome: Outcome }[]): number | null {
  let good = 0;
  let answered = 0;
  for (const c of checks) {
    const check = byKey.get(c.key);
    if (!check || c.outcome === 'unknown') continue;
    answered += check.impact;
    if (c.outcome === 'good') good += check.impact;
  }
  return answered === 0 ? null : Math.round((good * 1000) / answered) / 10;
}
