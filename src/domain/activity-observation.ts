/**
 * Whether a collection positively observed a person's activity, and if not,
 * why: the one rule every collector's result goes through before anything
 * is rendered, stored or evaluated (scanning/item-handler.ts,
 * scanning/finish-item.ts).
 *
 * Absence is never advice: an activity check may say `optimize` because
 * posts are missing only when the source positively observed that there are
 * none. So activity counts as observed only when the collector returned a
 * list (events, or a positively empty one), gave no gap, and did not list the
 * `activity` section among those it could not read. Anything else is not
 * observed: the activity is null (the checks are unknown, nothing is stored
 * as observed), and in activity mode the gap says why, for the summary's
 * limitations.
 */
import type { ActivityGap, CollectedActivityEvent, CollectResult, ItemKind, ScanMode } from './collected.js';

export const ACTIVITY_GAPS: readonly ActivityGap[] = Object.freeze(['not_delivered', 'unattributable', 'failed']);

/** The page section a collector names in `missing_sections` when it could not read the activity. */
export const ACTIVITY_SECTION = 'activity';

export type ActivityObservation =
  | { observed: true; events: CollectedActivityEvent[] }
  /** `gap` null: a person's activity was not asked for (a full_profile item), or the item is the company page's. */
  | { observed: false; gap: ActivityGap | null };

type Collected = Extract<CollectResult, { outcome: 'ok' }>;

/** What a collected result says of the activity of its item. */
export function activityObservation(result: Collected, item: { kind: ItemKind; mode: ScanMode }): ActivityObservation {
  const unread = result.missing_sections.includes(ACTIVITY_SECTION);
  if (result.activity !== null && result.activity_gap === undefined && !unread) return { observed: true, events: result.activity };
  // The company page's events feed no check and no limitation, and a full_profile item does not ask for
  // activity: not observed is all there is to say.
  if (item.kind !== 'person' || item.mode !== 'activity') return { observed: false, gap: null };
  return { observed: false, gap: result.activity_gap ?? 'not_delivered' };
}

/**
 * The result as the rule reads it: activity that was not positively observed
 * is null, with its gap (a person's activity item: the `activity` section is
 * then also missing, which makes the item a warning); observed activity is
 * left as it was. Idempotent.
 */
export function withActivityObservation(result: Collected, item: { kind: ItemKind; mode: ScanMode }): Collected {
  const observation = activityObservation(result, item);
  if (observation.observed) return result;
  const { activity_gap: _given, ...rest } = result;
  if (observation.gap === null) return { ...rest, activity: null };
  const missing = result.missing_sections.includes(ACTIVITY_SECTION) ? result.missing_sections : [...result.missing_sections, ACTIVITY_SECTION];
  return { ...rest, activity: null, activity_gap: observation.gap, missing_sections: missing };
}
