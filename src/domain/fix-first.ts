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
