/**
 * Report aggregates maintained on write (decisions "Analysis").
 *
 * Every attachment (and the company page) makes a *contribution* to its
 * report's totals: whether it counts as an active person, is analyzed, its
 * per-check outcomes, its latest work items, its activity coverage, its
 * progress since the previous scan, and the (id, revision) pairs it adds to
 * the profiles and activity collections.
 * A write recomputes only the contributions it touched and applies
 * `totals + new − old`, so summary reads never scan the roster.
 *
 * Collection revisions use an additive multiset hash: the sum, modulo 2^128,
 * of SHA-256(id, revision) over the collection's records. It equals a hash of
 * the sorted (id, revision) pairs in what it detects (any record added,
 * removed or changed changes it, short of a 2^-128 accident) but can be
 * updated in O(1) per changed record. Pure: no I/O.
 */
import { createHash } from 'node:crypto';
import { revisionOf } from './revision.js';
import { ACTIVITY_GAPS } from './activity-observation.js';
import type { ActivityGap } from './collected.js';
import {
  addPersonMoves,
  addProgressTotals,
  comparesScans,
  emptyProgressTotals,
  endedUnobserved,
  progressState,
  type GapMoves,
  type PersonMoves,
  type ProgressTotals,
} from './progress-state.js';

import type { ItemStatus } from './scan-status.js';

export type { ItemStatus };
export type Outcome = 'good' | 'optimize' | 'unknown';

export interface LatestItem {
  status: ItemStatus;
  warning: boolean;
}

export interface WorkCounts {
  requested: number;
  queued: number;
  processing: number;
  succeeded: number;
  failed: number;
  inaccessible: number;
  cancelled: number;
  warnings: number;
}

export interface CheckTotals {
  good: number;
  optimize: number;
  unknown: number;
}

export interface Contribution {
  persons: number;
  analyzed: number;
  /** Analyzed with at least one answered check: "usable analysis". */
  answered_persons: number;
  /** Anything usable: an answered check or verified (possibly empty) activity. */
  usable_persons: number;
  activity_observed: number;
  /** Latest attempt in both modes succeeded, the activity one observing the activity (so the shown result is the latest). */
  fresh: number;
  company_observed: number;
  /**
   * Analyzed, with profile members the source withholds from public view
   * (CollectedProfile.restricted). Absent from contributions and totals
   * stored before it existed: read as 0.
   */
  restricted_persons?: number;
  /**
   * Why the person's latest activity item did not observe their activity
   * (domain/activity-observation.ts). Absent when it did, when there is none
   * yet, and from contributions stored before it existed.
   */
  activity_gap?: ActivityGap;
  checks: Record<string, Outcome>;
  work: LatestItem[];
  /** The record in the profiles collection, as [id, revision]. */
  record: [string, string] | null;
  /** Activity events in the activity collection: id → revision. */
  events: Record<string, string>;
  /**
   * The revision of the analysis whose outcomes `checks` holds (a revision
   * identifies its findings: domain/profile-analysis.ts), so that a read of
   * the person can take the outcomes from here instead of expanding the
   * findings (store/rollup-repository.ts, `BEGUN_PERSON_FACTS_COLUMNS`).
   * Absent without an analysis, and from contributions stored before it
   * existed. Counted in no total.
   */
  analysis?: string;
  /**
   * Where an active person stands since their previous scan, and the gaps
   * their newest scan fixed and opened when it compares two
   * (progress-state.ts): the team's progress is the sum. Absent for
   * inactive people and the company page.
   */
  progress?: PersonMoves;
}

export interface Totals {
  persons: number;
  analyzed: number;
  answered_persons: number;
  usable_persons: number;
  activity_observed: number;
  fresh: number;
  company_observed: number;
  /** People whose analysis lacks members the source withholds (see Contribution); absent in totals stored before it existed. */
  restricted_persons?: number;
  /** People per gap of their latest activity item (see Contribution); absent in totals stored before it existed. */
  activity_gaps?: Record<ActivityGap, number>;
  checks: Record<string, CheckTotals>;
  work: WorkCounts;
  profiles: { n: number; acc: string };
  activity: { n: number; acc: string };
  /** The team's progress since the previous scan (see Contribution); absent in totals stored before it existed, which the upgrade recomputes (maintenance-repository.ts, completeProgressRollups). */
  progress?: ProgressTotals;
}

export const EMPTY_CONTRIBUTION: Contribution = Object.freeze({
  persons: 0,
  analyzed: 0,
  answered_persons: 0,
  usable_persons: 0,
  activity_observed: 0,
  fresh: 0,
  company_observed: 0,
  checks: {},
  work: [],
  record: null,
  events: {},
});

export function emptyWork(): WorkCounts {
  return { requested: 0, queued: 0, processing: 0, succeeded: 0, failed: 0, inaccessible: 0, cancelled: 0, warnings: 0 };
}

function noGaps(): Record<ActivityGap, number> {
  return Object.fromEntries(ACTIVITY_GAPS.map((gap) => [gap, 0])) as Record<ActivityGap, number>;
}

/** People per activity gap of totals, stored before it existed or not. */
export function activityGaps(t: Pick<Totals, 'activity_gaps'>): Record<ActivityGap, number> {
  return { ...noGaps(), ...t.activity_gaps };
}

export function emptyTotals(): Totals {
  return {
    persons: 0,
    analyzed: 0,
    answered_persons: 0,
    usable_persons: 0,
    activity_observed: 0,
    fresh: 0,
    company_observed: 0,
    restricted_persons: 0,
    activity_gaps: noGaps(),
    checks: {},
    work: emptyWork(),
    profiles: { n: 0, acc: ZERO_ACC },
    activity: { n: 0, acc: ZERO_ACC },
    progress: emptyProgressTotals(),
  };
}

// ------------------------------------------------------------ what a person contributes

/** What the store knows about one attachment, gathered for its contribution. */
export interface PersonFacts {
  profileId: string;
  active: boolean;
  /** The visible fields of the roster attachment that the findings record shows. */
  person: { pronet_url: string; name: string | null; title: string | null; headline: string | null };
  analysis: { revision: string; outcomes: Record<string, Outcome>; restricted?: boolean } | null;
  full: LatestItem | null;
  activity: LatestItem | null;
  activityObserved: boolean;
  /** Why their latest activity item did not observe their activity; null when it did or there is none (or it has not ended). */
  activityGap: ActivityGap | null;
  events: Record<string, string>;
  /** Their newest scan in the history (null: none), with the gaps it fixed and opened since the one before it (`since` null: their first, or not compared yet). */
  latestScan: { since: GapMoves | null } | null;
}

/**
 * `PersonFacts.analysis` of an analysis about to be stored, from its findings
 * and the profile data it was evaluated from: its revision, each check's
 * outcome, and whether the source withheld members. The store derives the
 * same from a stored analysis (rollup-repository.ts, personFacts); the
 * rebuild comparison (test/support/rollups.ts) holds the two together.
 */
export function analysisFacts(
  analysis: { revision: string; findings: readonly { check_id: string; outcome: Outcome }[] },
  profile: { restricted?: readonly string[] },
): NonNullable<PersonFacts['analysis']> {
  return {
    revision: analysis.revision,
    outcomes: Object.fromEntries(analysis.findings.map((f) => [f.check_id, f.outcome])),
    restricted: (profile.restricted?.length ?? 0) > 0,
  };
}

export interface CompanyFacts {
  item: LatestItem | null;
  observed: boolean;
  events: Record<string, string>;
}

/** Why a person's findings record has `analysis: null`, from their latest full_profile item. */
export function unanalyzedReason(full: LatestItem | null): string {
  switch (full?.status) {
    case undefined:
      return 'not_requested';
    case 'pending':
      return 'scan_queued';
    case 'running':
      return 'scan_in_progress';
    case 'failed':
      return 'scan_failed';
    case 'inaccessible':
      return 'profile_inaccessible';
    case 'cancelled':
      return 'scan_cancelled';
    case 'succeeded':
      return 'no_usable_analysis';
  }
}

/**
 * The revision of one findings record: a hash of what the record shows (the
 * attachment's fields, the stored analysis revision, the reason it has none).
 */
export function profileRecordRevision(facts: Pick<PersonFacts, 'profileId' | 'person' | 'analysis' | 'full'>): string {
  return revisionOf({
    profile_id: facts.profileId,
    ...facts.person,
    analysis: facts.analysis?.revision ?? null,
    reason: facts.analysis ? null : unanalyzedReason(facts.full),
  });
}

export function personContribution(facts: PersonFacts): Contribution {
  if (!facts.active) return EMPTY_CONTRIBUTION;
  const outcomes = facts.analysis?.outcomes ?? {};
  const answered = Object.values(outcomes).some((o) => o !== 'unknown');
  const work = [facts.full, facts.activity].filter((i): i is LatestItem => i !== null);
  return {
    persons: 1,
    analyzed: facts.analysis ? 1 : 0,
    answered_persons: answered ? 1 : 0,
    usable_persons: answered || facts.activityObserved ? 1 : 0,
    activity_observed: facts.activityObserved ? 1 : 0,
    fresh: facts.full?.status === 'succeeded' && facts.activity?.status === 'succeeded' && facts.activityGap === null ? 1 : 0,
    company_observed: 0,
    restricted_persons: facts.analysis?.restricted === true ? 1 : 0,
    ...(facts.activityGap ? { activity_gap: facts.activityGap } : {}),
    checks: { ...outcomes },
    work,
    record: [facts.profileId, profileRecordRevision(facts)],
    events: { ...facts.events },
    ...(facts.analysis ? { analysis: facts.analysis.revision } : {}),
    progress: personMoves(facts),
  };
}

/** A person's progress state and, when it compares two scans, their newest scan's gap moves. */
function personMoves(facts: Pick<PersonFacts, 'latestScan' | 'full'>): PersonMoves {
  const since = facts.latestScan?.since ?? null;
  const state = progressState({ scanned: facts.latestScan !== null, since, latestScanFailed: endedUnobserved(facts.full?.status) });
  const compared = comparesScans(state);
  return { state, fixed: compared ? [...since!.fixed] : [], opened: compared ? [...since!.opened] : [] };
}

export function companyContribution(facts: CompanyFacts): Contribution {
  return {
    ...EMPTY_CONTRIBUTION,
    company_observed: facts.observed ? 1 : 0,
    work: facts.item ? [facts.item] : [],
    events: { ...facts.events },
  };
}

// ------------------------------------------------------------ applying differences

const MOD = 1n << 128n;
export const ZERO_ACC = '0';

function pairHash(id: string, revision: string): bigint {
  const digest = createHash('sha256').update(id).update('\u0000').update(revision).digest();
  return digest.readBigUInt64BE(0) * (1n << 64n) + digest.readBigUInt64BE(8);
}

function accumulate(acc: string, id: string, revision: string, sign: 1 | -1): string {
  const value = (BigInt(`0x${acc}`) + BigInt(sign) * pairHash(id, revision)) % MOD;
  return (value < 0n ? value + MOD : value).toString(16);
}

function addWork(work: WorkCounts, item: LatestItem, sign: 1 | -1): void {
  work.requested += sign;
  const key = ({ pending: 'queued', running: 'processing' } as const)[item.status as 'pending' | 'running'] ?? (item.status as keyof WorkCounts);
  work[key] += sign;
  if (item.status === 'succeeded' && item.warning) work.warnings += sign;
}

function addContribution(totals: Totals, c: Contribution, sign: 1 | -1): void {
  totals.persons += sign * c.persons;
  totals.analyzed += sign * c.analyzed;
  totals.answered_persons += sign * c.answered_persons;
  totals.usable_persons += sign * c.usable_persons;
  totals.activity_observed += sign * c.activity_observed;
  totals.fresh += sign * c.fresh;
  totals.company_observed += sign * c.company_observed;
  totals.restricted_persons = (totals.restricted_persons ?? 0) + sign * (c.restricted_persons ?? 0);
  totals.activity_gaps = activityGaps(totals);
  if (c.activity_gap) totals.activity_gaps[c.activity_gap] += sign;
  for (const [checkId, outcome] of Object.entries(c.checks)) {
    const t = (totals.checks[checkId] ??= { good: 0, optimize: 0, unknown: 0 });
    t[outcome] += sign;
  }
  for (const item of c.work) addWork(totals.work, item, sign);
  if (c.record) {
    totals.profiles.n += sign;
    totals.profiles.acc = accumulate(totals.profiles.acc, c.record[0], c.record[1], sign);
  }
  for (const [id, revision] of Object.entries(c.events)) {
    totals.activity.n += sign;
    totals.activity.acc = accumulate(totals.activity.acc, id, revision, sign);
  }
  if (c.progress) addPersonMoves((totals.progress ??= emptyProgressTotals()), c.progress, sign);
}

/** totals − before + after, as a new value. */
export function applyContribution(totals: Totals, before: Contribution | null, after: Contribution): Totals {
  const next: Totals = structuredClone(totals);
  if (before) addContribution(next, before, -1);
  addContribution(next, after, 1);
  return next;
}

/**
 * What replacing `before` by `after` adds to the totals, as Totals of its own
 * (counts may be negative; accumulators are differences modulo 2^128): a
 * roll-up delta that `addTotals` folds in later, in any order.
 */
export function contributionDelta(before: Contribution | null, after: Contribution): Totals {
  return applyContribution(emptyTotals(), before, after);
}

function addAcc(a: string, b: string): string {
  return ((BigInt(`0x${a}`) + BigInt(`0x${b}`)) % MOD).toString(16);
}

/** A collection's (count, accumulator) plus a delta's. */
export function addCollection(a: Totals['profiles'], b: Totals['profiles']): Totals['profiles'] {
  return { n: a.n + b.n, acc: addAcc(a.acc, b.acc) };
}

/** a + b: totals plus a delta (or two deltas), as a new value. Addition is associative and commutative. */
export function addTotals(a: Totals, b: Totals): Totals {
  const sum: Totals = structuredClone(a);
  for (const key of ['persons', 'analyzed', 'answered_persons', 'usable_persons', 'activity_observed', 'fresh', 'company_observed'] as const)
    sum[key] += b[key];
  sum.restricted_persons = (sum.restricted_persons ?? 0) + (b.restricted_persons ?? 0);
  const gaps = activityGaps(b);
  sum.activity_gaps = activityGaps(sum);
  for (const gap of ACTIVITY_GAPS) sum.activity_gaps[gap] += gaps[gap];
  for (const [checkId, counts] of Object.entries(b.checks)) {
    const t = (sum.checks[checkId] ??= { good: 0, optimize: 0, unknown: 0 });
    t.good += counts.good;
    t.optimize += counts.optimize;
    t.unknown += counts.unknown;
  }
  for (const key of Object.keys(b.work) as (keyof WorkCounts)[]) sum.work[key] += b.work[key];
  for (const key of ['profiles', 'activity'] as const) sum[key] = addCollection(sum[key], b[key]);
  if (b.progress) addProgressTotals((sum.progress ??= emptyProgressTotals()), b.progress);
  return sum;
}

/** Stored totals plus the deltas not folded yet (null totals: none stored yet). */
export function withPendingDeltas(totals: Totals | null, pending: readonly Totals[] | null): Totals | null {
  return totals && pending ? pending.reduce(addTotals, totals) : totals;
}

/** Totals of a whole set of contributions (the slow path, for checks and rebuilds). */
export function sumContributions(contributions: Iterable<Contribution>): Totals {
  // One value added to in place: the same arithmetic as applyContribution without a copy per person.
  const totals = emptyTotals();
  for (const c of contributions) addContribution(totals, c, 1);
  return totals;
}

/** The opaque revision of a collection from its accumulator. */
export function collectionRevision(collection: { n: number; acc: string }): string {
  return revisionOf({ n: collection.n, acc: collection.acc });
}
