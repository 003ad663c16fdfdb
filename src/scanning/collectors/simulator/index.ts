/**
 * The deterministic simulator collector (decisions.md, Scans: "Collectors").
 * Used for test-mode keys and demos: it never touches the network.
 *
 * Everything it returns is a pure function of (url, kind, mode, reference
 * time): the same request gives byte-identical results, screenshots and
 * `captured_at` included. Randomness comes from mulberry32 streams seeded with
 * SHA-256 of the URL and a purpose label (random.ts), so adding a new stream
 * never shifts the values of the others.
 *
 * Magic last path segments (case-insensitive prefixes):
 *   inaccessible-…  → { outcome: 'inaccessible' }
 *   failing-…       → throws a retryable CollectorError on every attempt
 *   quiet-…         → a normal profile, and verified empty activity ([])
 * Anything else gives a synthetic profile, activity (people.ts) and real
 * PNG/JPEG screenshots that show the section's text (screenshots.ts).
 *
 * Guarantees the rest of the system relies on: an ordinary person always has a
 * name, a 'top_card' screenshot in full_profile mode and, in activity mode, an
 * 'activity' screenshot and at least one event, the newest being a dated post
 * or comment from the last 30 days. About one item in ten reports a missing
 * section (a warning), whose data is then null and has no screenshot.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CollectorError, type CollectRequest, type CollectResult, type CollectedActivityEvent, type Collector, type Screenshot } from '../collector.js';
import { hostOf, lastPathSegment, type SimContext } from './context.js';
import { PROFILE_SECTIONS, buildCompany, buildPerson, buildPersonActivity } from './people.js';
import { Rng } from './random.js';
import { NO_SHARE, type ImageShare } from '../../media/image-work.js';
import { aboutSvg, activitySvg, companySvg, experienceSvg, renderScreenshot, skillsSvg, topCardSvg } from './screenshots.js';

/** Default observation reference: every `captured_at` lies up to 72 hours before it. */
export const SIMULATOR_REFERENCE_TIME = '2026-11-01T00:00:00.000Z';

export interface SimulatorOptions {
  /** Sleep per collect call (respects the abort signal); 0 = none. */
  delayMs: number;
  /** Instant the synthetic observations are anchored to. Fixed by default, so results never depend on the clock. */
  referenceTime?: string;
}

export class SimulatorCollector implements Collector {
  readonly name = 'simulator';
  private readonly delayMs: number;
  private readonly referenceMs: number;

  constructor(options: SimulatorOptions) {
    if (!Number.isFinite(options.delayMs) || options.delayMs < 0) throw new RangeError('delayMs must be >= 0');
    this.delayMs = options.delayMs;
    this.referenceMs = Date.parse(options.referenceTime ?? SIMULATOR_REFERENCE_TIME);
    if (!Number.isFinite(this.referenceMs)) throw new RangeError('referenceTime must be an RFC 3339 instant');
  }

  async collect(request: CollectRequest): Promise<CollectResult> {
    try {
      request.signal.throwIfAborted();
      if (this.delayMs > 0) await sleep(this.delayMs, undefined, { signal: request.signal });
    } catch (error) {
      throw new CollectorError('collection aborted', { retryable: true, cause: error });
    }
    return simulate(request.url, request.kind, request.mode, this.referenceMs, request.imageShare ?? NO_SHARE);
  }
}

async function simulate(
  url: string,
  kind: CollectRequest['kind'],
  mode: CollectRequest['mode'],
  referenceMs: number,
  imageShare: ImageShare,
): Promise<CollectResult> {
  const segment = lastPathSegment(url);
  const lower = segment.toLowerCase();
  if (lower.startsWith('inaccessible-')) {
    return { outcome: 'inaccessible', reason: 'simulated: the page is not visible to the collector' };
  }
  if (lower.startsWith('failing-')) {
    throw new CollectorError('simulated failure', { retryable: true });
  }
  const quiet = lower.startsWith('quiet-');
  const slug = quiet ? segment.slice('quiet-'.length) : segment;
  const capturedMs = referenceMs - new Rng(url, `captured|${kind}|${mode}`).int(0, 72 * 60) * 60_000;
  const context: SimContext = { url, slug, quiet, referenceMs, capturedMs, host: hostOf(url), imageShare };
  return kind === 'company_page' ? simulateCompany(context, mode) : simulatePerson(context, mode);
}

async function simulatePerson(ctx: SimContext, mode: CollectRequest['mode']): Promise<CollectResult> {
  const person = buildPerson(ctx);
  const { profile } = person;
  const look = { url: ctx.url };
  const shots: Array<Promise<Screenshot>> = [];
  let activity: CollectedActivityEvent[] | null = null;
  if (mode === 'full_profile') {
    shots.push(renderScreenshot('top_card', topCardSvg(profile, look), 'image/png', ctx.imageShare));
    const available = PROFILE_SECTIONS.filter((s) => s !== person.missing);
    const r = new Rng(ctx.url, 'screenshots');
    for (const section of r.sample(available, r.int(1, 3))) {
      if (section === 'about') shots.push(renderScreenshot('about', aboutSvg(profile, look), 'image/png', ctx.imageShare));
      if (section === 'experience') shots.push(renderScreenshot('experience', experienceSvg(profile, look), 'image/png', ctx.imageShare));
      if (section === 'skills') shots.push(renderScreenshot('skills', skillsSvg(profile, look), 'image/png', ctx.imageShare));
    }
  } else {
    activity = ctx.quiet ? [] : buildPersonActivity(ctx, person);
    shots.push(renderScreenshot('activity', activitySvg(profile.name, activity, look), 'image/jpeg', ctx.imageShare));
  }
  return {
    outcome: 'ok',
    profile,
    activity,
    company: null,
    screenshots: await Promise.all(shots),
    missing_sections: person.missing === null ? [] : [person.missing],
    captured_at: new Date(ctx.capturedMs).toISOString(),
  };
}

async function simulateCompany(ctx: SimContext, mode: CollectRequest['mode']): Promise<CollectResult> {
  const { company, activity, missing } = buildCompany(ctx, mode);
  return {
    outcome: 'ok',
    profile: null,
    activity,
    company,
    screenshots: [await renderScreenshot('company', companySvg(company, activity, { url: ctx.url }), 'image/png', ctx.imageShare)],
    missing_sections: missing ? ['company_about'] : [],
    captured_at: new Date(ctx.capturedMs).toISOString(),
  };
}
