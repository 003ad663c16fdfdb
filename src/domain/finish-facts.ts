/**
 * What a person's finishing item knows once its writes are decided: the
 * person's facts as those writes (evidence, activity) leave them, from what
 * the finish read before them (store/analysis-repository.ts,
 * readFinishFacts). The rules of each write applied to the rows read, so the
 * writes and these facts go into one statement (queue/finish.ts) with no
 * second read.
 */
import type { Contribution, PersonFacts } from './analysis-aggregate.js';
import type { CollectedActivityEvent, CollectedProfile, EvidenceOrigin } from './collected.js';
import type { ProfileFacts, StoredAnalysisState } from './profile-analysis.js';

/** A person's facts and the contribution stored for them. */
export interface GatheredPerson {
  facts: PersonFacts;
  stored: Contribution | null;
}

/** An evidence image of a person as the finish's facts read returns it (`readFinishFacts`) and as an item's writes leave it. */
export interface EvidenceImageRow {
  id: string;
  section: string;
  origin: EvidenceOrigin;
  item_id: string;
  original_sha256: string;
}

/** An observed event as an item's writes leave it: its id, its record's revision, and the event as the store reads it back. */
export interface EventRow {
  id: string;
  revision: string;
  event: CollectedActivityEvent;
}

/** A person's stored analysis as the next one is decided against it, with the item that observed its profile. */
export interface StoredAnalysisRow extends StoredAnalysisState {
  item_id: string;
}

/** What a finish read of the person before its writes, as `finishFacts` needs it. */
export interface FinishBefore {
  /** The stored analysis, and the profile data it was evaluated from. */
  stored: { analysis: StoredAnalysisRow; profile: CollectedProfile } | undefined;
  /** Whether the person's activity was collected, and their events as a person. */
  activity: { covered: boolean; events: CollectedActivityEvent[] };
  /** The person's evidence images that are not obsolete. */
  evidence: EvidenceImageRow[];
  /** The person's roll-up facts and stored contribution; null when the attachment is gone. */
  person: GatheredPerson | null;
}

/** What a finishing item of a person knows once its writes are decided (`finishFacts`). */
export interface FinishFacts {
  /** What the person's analysis is evaluated from, and the stored one; null when there is no profile data yet. */
  profile: { facts: ProfileFacts; stored: StoredAnalysisRow | undefined } | null;
  /** The person's roll-up facts as they stand after the item's writes (the analysis aside); null when the attachment is gone. */
  person: GatheredPerson | null;
}

/**
 * The person's facts as the item's writes (`evidenceWrites`,
 * `activityWrites`) leave them, from what `readFinishFacts` read before
 * them: the rule of each write applied to the rows read (a section's newer
 * images make the older ones of other items obsolete; an event is upserted
 * by its external id; an observed activity is covered). The writes and these
 * facts then go into one statement, so the facts need no second read.
 *
 * - what the person's analysis is evaluated from: the profile data
 *   (`observed` when this item collected it, else the stored one), the
 *   activity, the evidence images per section (a section's card first, then
 *   what was captured), and the stored analysis. Null when there is no
 *   profile data yet: findings need it, activity alone waits for it;
 * - the person's roll-up facts.
 */
export function finishFacts(
  read: FinishBefore,
  item: {
    itemId: string;
    observed: { profile: CollectedProfile; capturedAt: Date } | null;
    company: { name: string; domain: string | null };
    evidence: EvidenceImageRow[];
    /** The events the item stored (null: it collected no activity). */
    activity: EventRow[] | null;
  },
): FinishFacts {
  const observedIds = new Set((item.activity ?? []).map((row) => row.event.external_id));
  const covered = read.activity.covered || item.activity !== null;
  const person = read.person && {
    ...read.person,
    facts: {
      ...read.person.facts,
      activityObserved: read.person.facts.activityObserved || item.activity !== null,
      events: { ...read.person.facts.events, ...Object.fromEntries((item.activity ?? []).map((row) => [row.id, row.revision])) },
    },
  };
  const stored = read.stored;
  const observed = item.observed ?? (stored ? { profile: stored.profile, capturedAt: stored.analysis.captured_at } : null);
  if (observed === null) return { profile: null, person };
  const activity = covered
    ? [
        ...read.activity.events.filter((e) => !observedIds.has(e.external_id)),
        ...(item.activity ?? []).map((row) => row.event).filter((e) => e.actor.kind === 'person'),
      ]
    : null;
  const newSections = new Set(item.evidence.map((image) => image.section));
  const key = (image: EvidenceImageRow) => `${image.item_id}\n${image.section}\n${image.original_sha256}`;
  const kept = read.evidence.filter((image) => !newSections.has(image.section) || image.item_id === item.itemId);
  const keptKeys = new Set(kept.map(key));
  const images = [...kept, ...item.evidence.filter((image) => !keptKeys.has(key(image)))].sort(
    (a, b) => (a.origin === b.origin ? 0 : a.origin === 'rendered' ? -1 : 1) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const imagesBySection = new Map<string, string[]>();
  for (const image of images) imagesBySection.set(image.section, [...(imagesBySection.get(image.section) ?? []), image.id]);
  return {
    profile: {
      facts: { profile: observed.profile, activity, company: item.company, capturedAt: observed.capturedAt, imagesBySection },
      stored: stored?.analysis,
    },
    person,
  };
}
