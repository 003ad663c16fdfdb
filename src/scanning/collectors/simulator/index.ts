/**
 * The deterministic simulator collector (decisions.md, Scans: "Collectors").
 * Used for test-mode keys and demos: it never touches the network.
 *
 * Everything it returns is a pure function of (url, kind, mode, reference
 * time): the same request gives identical results, `captured_at` included. Randomness comes from mulberry32 streams seeded with
 * SHA-256 of the URL and a purpose label (random.ts), so adding a new stream
 * never shifts the values of the others.
 *
 * Magic last path segments (case-insensitive prefixes):
 *   inaccessible-…  → { outcome: 'inaccessible' }
 *   failing-…       → throws a retryable CollectorError on every attempt
 *   quiet-…         → a normal profile, and verified empty activity ([])
 *   undelivered-…   → a normal profile; in activity mode no activity delivered (null, gap 'not_delivered')
 *   unattributable-… → the same, gap 'unattributable' (posts came back that match no one)
 *   activityfail-…  → the same, gap 'failed' (the activity call failed)
 * Anything else gives a synthetic profile and activity (people.ts).
 * SIMULATOR_EDITS (edits.ts) changes how a person's profile reads from then
 * on: polished, edited field by field, or private.
 *
 * It returns data only, like a data provider: no screenshots and no linked
 * images. The scanning layer renders the evidence cards of every collector's
 * results (src/scanning/evidence-cards/), so the simulator's items get cards
 * drawn from its data, as real items do; it links no images because there is
 * nothing on the network to download them from (it never touches it), and
 * the captured path is exercised against a local CDN in the tests instead.
 *
 * Guarantees the rest of the system relies on: an ordinary person always has a
 * name (so a top card) in full_profile mode and, in activity mode, at least
 * one event, the newest being a dated post or comment from the last 30 days.
 * About one item in ten reports a missing section (a warning), whose data is
 * then null (so it gets no card).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CollectorError, type CollectRequest, type CollectResult, type Collector } from '../collector.js';
import { hostOf, lastPathSegment, type SimContext } from './context.js';
import { buildCompany, buildPerson, buildPersonActivity } from './people.js';
import { Rng } from './random.js';
import { editedProfile, type ProfileEdit } from './edits.js';
import type { ActivityGap } from '../../../domain/collected.js';

/** Magic prefixes of a person whose activity the simulated source does not deliver, and why (domain/activity-observation.ts). */
const ACTIVITY_GAP_PREFIXES: ReadonlyArray<[string, ActivityGap]> = [
  ['undelivered-', 'not_delivered'],
  ['unattributable-', 'unattributable'],
  ['activityfail-', 'failed'],
];

/** Default observation reference: every `captured_at` lies up to 72 hours before it. */
export const SIMULATOR_REFERENCE_TIME = '2026-11-01T00:00:00.000Z';

export interface SimulatorOptions {
  /** Sleep per collect call (respects the abort signal); 0 = none. */
  delayMs: number;
  /** Instant the synthetic observations are anchored to. Fixed by default, so results never depend on the clock. */
  referenceTime?: string;
  /** A person's edit (edits.ts: SIMULATOR_EDITS), by profile URL; absent: none. */
  edits?: (url: string) => ProfileEdit | undefined;
}

export class SimulatorCollector implements Collector {
  readonly name = 'simulator';
  private readonly delayMs: number;
  private readonly referenceMs: number;
  private readonly edits: (url: string) => ProfileEdit | undefined;

  constructor(options: SimulatorOptions) {
    if (!Number.isFinite(options.delayMs) || options.delayMs < 0) throw new RangeError('delayMs must be >= 0');
    this.delayMs = options.delayMs;
    this.referenceMs = Date.parse(options.referenceTime ?? SIMULATOR_REFERENCE_TIME);
    if (!Number.isFinite(this.referenceMs)) throw new RangeError('referenceTime must be an RFC 3339 instant');
    this.edits = options.edits ?? (() => undefined);
  }

  async collect(request: CollectRequest): Promise<CollectResult> {
    try {
      request.signal.throwIfAborted();
      if (this.delayMs > 0) await sleep(this.delayMs, undefined, { signal: request.signal });
    } catch (error) {
      throw new CollectorError('collection aborted', { retryable: true, cause: error });
    }
    const edit = request.kind === 'person' ? this.edits(request.url) : undefined;
    if (edit?.inaccessible) return { outcome: 'inaccessible', reason: 'simulated: the profile was made private (SIMULATOR_EDITS)' };
    return simulate(request.url, request.kind, request.mode, this.referenceMs, edit);
  }
}

function simulate(url: string, kind: CollectRequest['kind'], mode: CollectRequest['mode'], referenceMs: number, edit?: ProfileEdit): CollectResult {
  const segment = lastPathSegment(url);
  const lower = segment.toLowerCase();
  if (lower.startsWith('inaccessible-')) {
    return { outcome: 'inaccessible', reason: 'simulated: the page is not visible to the collector' };
  }
  if (lower.startsWith('failing-')) {
    throw new CollectorError('simulated failure', { retryable: true });
  }
  const quiet = lower.startsWith('quiet-');
  const gapPrefix = kind === 'person' ? ACTIVITY_GAP_PREFIXES.find(([prefix]) => lower.startsWith(prefix)) : undefined;
  const prefix = quiet ? 'quiet-' : (gapPrefix?.[0] ?? '');
  const slug = segment.slice(prefix.length);
  // An edited profile is observed after every unedited one (edits.ts).
  const capturedMs = edit ? referenceMs + 60_000 : referenceMs - new Rng(url, `captured|${kind}|${mode}`).int(0, 72 * 60) * 60_000;
  const context: SimContext = { url, slug, quiet, referenceMs, capturedMs, host: hostOf(url) };
  return kind === 'company_page' ? simulateCompany(context, mode) : simulatePerson(context, mode, gapPrefix?.[1], edit);
}

function simulatePerson(ctx: SimContext, mode: CollectRequest['mode'], gap: ActivityGap | undefined, edit: ProfileEdit | undefined): CollectResult {
  const built = buildPerson(ctx);
  const person = edit ? { ...built, profile: editedProfile(built.profile, edit, built.employer), missing: null } : built;
  const missing = person.missing === null ? [] : [person.missing];
  if (mode === 'activity' && gap !== undefined) {
    return {
      outcome: 'ok',
      profile: person.profile,
      activity: null,
      activity_gap: gap,
      company: null,
      screenshots: [],
      missing_sections: [...missing, 'activity'],
      captured_at: new Date(ctx.capturedMs).toISOString(),
    };
  }
  return {
    outcome: 'ok',
    profile: person.profile,
    activity: mode === 'full_profile' ? null : ctx.quiet ? [] : buildPersonActivity(ctx, person),
    company: null,
    screenshots: [],
    missing_sections: missing,
    captured_at: new Date(ctx.capturedMs).toISOString(),
  };
}

function simulateCompany(ctx: SimContext, mode: CollectRequest['mode']): CollectResult {
  const { company, activity, missing } = buildCompany(ctx, mode);
  return {
    outcome: 'ok',
    profile: null,
    activity,
    company,
    screenshots: [],
    missing_sections: missing ? ['company_about'] : [],
    captured_at: new Date(ctx.capturedMs).toISOString(),
  };
}
