/**
 * The deterministic simulator collector (decisions.md, Scans: "Collectors").
 * Used for test-mode keys and demos: it never touches the network.
 *
 * Everything it returns is a pure function of (url, kind, mode, reference
 * time): the same request gives byte-identical results, screenshots and
 * `captured_at` included. Randomness comes from mulberry32 streams seeded with
 * SHA-256 of the URL and a purpose label, so adding a new stream never shifts
 * the values of the others.
 *
 * Magic last path segments (case-insensitive prefixes):
 *   inaccessible-…  → { outcome: 'inaccessible' }
 *   failing-…       → throws a retryable CollectorError on every attempt
 *   quiet-…         → a normal profile, and verified empty activity ([])
 * Anything else gives a synthetic profile, activity and real PNG/JPEG screenshots.
 *
 * Guarantees the rest of the system relies on: an ordinary person always has a
 * name, a 'top_card' screenshot in full_profile mode and, in activity mode, an
 * 'activity' screenshot and at least one event, the newest being a dated post
 * or comment from the last 30 days. About one item in ten reports a missing
 * section (a warning), whose data is then null and has no screenshot.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import jpeg from 'jpeg-js';
import pngjs from 'pngjs';
import {
  CollectorError,
  type ActivityEventType,
  type CollectRequest,
  type CollectResult,
  type CollectedActivityEvent,
  type CollectedCompany,
  type CollectedPosition,
  type CollectedProfile,
  type Collector,
  type Screenshot,
} from './collector.js';

const { PNG } = pngjs;

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
    return simulate(request.url, request.kind, request.mode, this.referenceMs);
  }
}

// ---------------------------------------------------------------- entry

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

function simulate(url: string, kind: CollectRequest['kind'], mode: CollectRequest['mode'], referenceMs: number): CollectResult {
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
  const context: SimContext = { url, slug, quiet, referenceMs, capturedMs, host: hostOf(url) };
  return kind === 'company_page' ? simulateCompany(context, mode) : simulatePerson(context, mode);
}

interface SimContext {
  url: string;
  /** Last path segment without a magic prefix. */
  slug: string;
  quiet: boolean;
  referenceMs: number;
  capturedMs: number;
  host: string;
}

function lastPathSegment(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url.replace(/[?#][\s\S]*$/u, '');
  }
  const segments = path.split('/').filter((s) => s !== '');
  const last = segments[segments.length - 1] ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

function hostOf(url: string): string {
  try {
    const host = new URL(url).host;
    return host === '' ? 'pronet.example' : host;
  } catch {
    return 'pronet.example';
  }
}

// ---------------------------------------------------------------- randomness

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded stream: one per (url, purpose). */
class Rng {
  private readonly next: () => number;
  constructor(url: string, purpose: string) {
    const digest = createHash('sha256').update(url).update('\u0000').update(purpose).digest();
    this.next = mulberry32(digest.readUInt32BE(0));
  }
  float(): number {
    return this.next();
  }
  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  /** `count` distinct items, in their original order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const indexes = items.map((_, i) => i);
    for (let i = indexes.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [indexes[i], indexes[j]] = [indexes[j] as number, indexes[i] as number];
    }
    return indexes
      .slice(0, Math.min(count, items.length))
      .sort((a, b) => a - b)
      .map((i) => items[i] as T);
  }
  /** Skewed towards small values: most people have few of something, some have many. */
  skewed(max: number): number {
    return Math.floor(Math.pow(this.next(), 2.2) * (max + 1));
  }
}

// ---------------------------------------------------------------- vocabulary

const FIRST_NAMES = ['Ada', 'Noah', 'Mia', 'Liam', 'Sofia', 'Omar', 'Yuki', 'Elena', 'Kwame', 'Priya', 'Lucas', 'Ines', 'Mateo', 'Hana', 'Jonas', 'Amara'];
const LAST_NAMES = ['Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Haddad', 'Novak', 'Silva', 'Kowalski', 'Brennan', 'Achebe', 'Rossi', 'Nguyen', 'Fischer', 'Costa', 'Mensah', 'Park'];
const COMPANIES = ['Acme', 'Globex', 'Initech', 'Umbrella Labs', 'Hooli', 'Pied Piper', 'Vandelay Industries', 'Soylent', 'Cyberdyne Systems', 'Wonka Industries', 'Aperture Science', 'Massive Dynamic', 'Oscorp', 'Stark Industries', 'Tyrell Corporation', 'Wayne Enterprises'];
const ROLES = ['Account Executive', 'Product Manager', 'Software Engineer', 'Data Scientist', 'Customer Success Manager', 'Marketing Lead', 'Sales Development Representative', 'Head of Partnerships', 'UX Designer', 'Solutions Architect', 'Recruiter', 'Engineering Manager', 'Founder', 'Operations Analyst'];
const FOCUS = ['B2B SaaS', 'developer tools', 'fintech', 'climate tech', 'healthcare data', 'enterprise security', 'e-commerce growth', 'AI products', 'logistics', 'cloud infrastructure'];
const AUDIENCES = ['revenue teams', 'product teams', 'hospitals', 'retailers', 'developers', 'small businesses', 'CFOs', 'recruiters'];
const OUTCOMES = ['ship faster', 'grow pipeline', 'cut cloud costs', 'hire better', 'understand their data', 'close the books sooner'];
const CITIES = ['Berlin, Germany', 'Austin, Texas, United States', 'Lagos, Nigeria', 'Toronto, Ontario, Canada', 'Bengaluru, India', 'Lisbon, Portugal', 'Sydney, Australia', 'Greater London, England', 'São Paulo, Brazil', 'Stockholm, Sweden'];
const SKILLS = ['Negotiation', 'SQL', 'TypeScript', 'Product Strategy', 'Salesforce', 'Public Speaking', 'Data Analysis', 'Go-to-Market', 'Figma', 'Python', 'Stakeholder Management', 'Kubernetes', 'Content Marketing', 'Forecasting', 'User Research', 'Leadership', 'Cold Calling', 'Machine Learning', 'Pricing', 'Onboarding'];
const LANGUAGES = ['English', 'Spanish', 'German', 'French', 'Portuguese', 'Hindi', 'Japanese', 'Yoruba', 'Swedish', 'Arabic'];
const INDUSTRIES = ['Software Development', 'Financial Services', 'Hospital and Health Care', 'Retail', 'Logistics', 'Renewable Energy'];
const SENTENCES = [
  'I build things that make complicated work feel simple.',
  'Over the last years I have worked with teams on three continents.',
  'Most of my time goes into talking with customers and turning what they say into plans.',
  'Before that I spent a few years in consulting, which taught me to ask better questions.',
  'I care about clear writing, fast feedback and teams that trust each other.',
  'Outside work you will find me running, cooking or reading about urban design.',
  'My focus is on measurable results: shorter cycles, happier customers, fewer surprises.',
  'I mentor early-career people and speak at local meetups a few times a year.',
];
const CALLS_TO_ACTION = ['Reach out if you want to compare notes.', 'Message me about partnerships.', 'Let’s talk: hello@example.com', 'More at https://example.com/work'];
const POST_TEXTS = [
  'Three things we learned shipping our new onboarding flow.',
  'Hiring! We are looking for curious people who like hard problems.',
  'Great panel today on pricing. My notes below.',
  'A small thread on why we stopped doing quarterly planning.',
  'Proud of the team for this launch. Link in the comments.',
  'What is the most useful metric you track every week?',
];
const COMMENT_TEXTS = ['Great point, we saw the same thing.', 'Congratulations to the whole team!', 'Thanks for sharing, very useful.', 'Curious how you measured this?', 'Agree with all of it except the last part.'];

// ---------------------------------------------------------------- person

function titleCase(word: string): string {
  const chars = Array.from(word.toLowerCase());
  return chars.length === 0 ? '' : (chars[0] as string).toUpperCase() + chars.slice(1).join('');
}

/** "jane-doe" → "Jane Doe"; null when the slug does not look like a name. */
function nameFromSlug(slug: string): string | null {
  const parts = slug.split(/[-_.]+/u).filter((p) => /^\p{L}{2,}$/u.test(p));
  if (parts.length < 2) return null;
  return parts.slice(0, 3).map(titleCase).join(' ');
}

function monthText(month: number): string {
  const year = Math.floor(month / 12);
  return `${String(year).padStart(4, '0')}-${String((month % 12) + 1).padStart(2, '0')}`;
}

type ProfileSection = 'about' | 'experience' | 'skills';
const PROFILE_SECTIONS: readonly ProfileSection[] = ['about', 'experience', 'skills'];

interface PersonData {
  profile: CollectedProfile;
  employer: string;
  missing: ProfileSection | null;
}

function buildPerson(ctx: SimContext): PersonData {
  const r = new Rng(ctx.url, 'profile');
  const fromSlug = nameFromSlug(ctx.slug);
  const name = fromSlug ?? `${r.pick(FIRST_NAMES)} ${r.pick(LAST_NAMES)}`;
  const employer = r.pick(COMPANIES);
  const role = r.pick(ROLES);
  // Positions are anchored a week before the reference so none lies after any captured_at.
  const nowMonth = (() => {
    const d = new Date(ctx.referenceMs - 7 * DAY_MS);
    return d.getUTCFullYear() * 12 + d.getUTCMonth();
  })();

  const headlineStyle = r.int(0, 99);
  const headline =
    headlineStyle < 3
      ? null
      : headlineStyle < 7
        ? ''
        : headlineStyle < 40
          ? `${role} at ${employer}`
          : headlineStyle < 65
            ? `${role} | ${r.pick(FOCUS)} | ${employer}`
            : headlineStyle < 85
              ? role
              : `Helping ${r.pick(AUDIENCES)} ${r.pick(OUTCOMES)}`;

  const aboutStyle = r.int(0, 99);
  let about: string | null;
  if (aboutStyle < 4) about = null;
  else if (aboutStyle < 14) about = '';
  else {
    const sentences = r.sample(SENTENCES, r.int(1, SENTENCES.length));
    if (r.chance(0.5)) sentences.splice(1, 0, `At ${employer} I work as ${role.toLowerCase()} on ${r.pick(FOCUS)}.`);
    if (r.chance(0.4)) sentences.push(r.pick(CALLS_TO_ACTION));
    about = sentences.join(' ');
  }

  const positionCount = r.chance(0.05) ? 0 : r.int(1, 6);
  const positions: CollectedPosition[] = [];
  let cursor = nowMonth - r.int(0, 3);
  const hasCurrent = r.chance(0.85);
  for (let i = 0; i < positionCount; i++) {
    const current = i === 0 && hasCurrent;
    const end = current ? null : cursor;
    const start = (end ?? cursor) - r.int(4, 48);
    positions.push({
      title: i === 0 ? role : r.pick(ROLES),
      company: r.chance(0.08) ? null : i === 0 ? employer : r.pick(COMPANIES),
      start: r.chance(0.05) ? null : monthText(start),
      end: end === null ? null : monthText(end),
      description: r.chance(0.55) ? r.sample(SENTENCES, r.int(1, 2)).join(' ') : null,
    });
    cursor = start - r.int(0, 6);
  }
  // Rarely, contradictory dates (start after end): experience checks become unknown.
  const conflicting = positions.length >= 2 && r.chance(0.03);
  if (conflicting) {
    const p = positions[1] as CollectedPosition;
    if (p.start !== null && p.end !== null) [p.start, p.end] = [p.end, p.start];
  }

  const connections = r.chance(0.05) ? null : Math.round(Math.exp(Math.log(30) + r.float() * Math.log(5000 / 30)));
  const profile: CollectedProfile = {
    name,
    headline,
    about,
    location: r.chance(0.03) ? null : r.chance(0.08) ? '' : r.pick(CITIES),
    has_photo: r.chance(0.03) ? null : r.chance(0.86),
    has_banner: r.chance(0.05) ? null : r.chance(0.55),
    custom_url: r.chance(0.05) ? null : fromSlug !== null && !/\d/u.test(ctx.slug),
    connections,
    followers: r.chance(0.08) ? null : (connections ?? 200) + r.skewed(6000),
    positions,
    skills: r.chance(0.04) ? null : r.sample(SKILLS, r.skewed(SKILLS.length)),
    featured_count: r.chance(0.05) ? null : r.skewed(4),
    education_count: r.chance(0.04) ? null : r.int(0, 3),
    recommendations_received: r.chance(0.06) ? null : r.skewed(8),
    languages: r.chance(0.06) ? null : r.sample(LANGUAGES, r.int(0, 3)),
    certifications_count: r.chance(0.06) ? null : r.skewed(5),
  };

  // About one person in ten: one section could not be read (a warning).
  const missingRng = new Rng(ctx.url, 'missing');
  const missing = missingRng.chance(0.1) ? missingRng.pick(PROFILE_SECTIONS) : null;
  if (missing === 'about') profile.about = null;
  if (missing === 'experience') profile.positions = null;
  if (missing === 'skills') profile.skills = null;
  return { profile, employer, missing };
}

function simulatePerson(ctx: SimContext, mode: CollectRequest['mode']): CollectResult {
  const person = buildPerson(ctx);
  const screenshots: Screenshot[] = [];
  let activity: CollectedActivityEvent[] | null = null;
  if (mode === 'full_profile') {
    screenshots.push(png('top_card', renderTopCard(person.profile, ctx)));
    const available = PROFILE_SECTIONS.filter((s) => s !== person.missing);
    const r = new Rng(ctx.url, 'screenshots');
    for (const section of r.sample(available, r.int(1, 3))) {
      if (section === 'about') screenshots.push(png('about', renderAbout(person.profile, ctx)));
      if (section === 'experience') screenshots.push(png('experience', renderExperience(person.profile, ctx)));
      if (section === 'skills') screenshots.push(png('skills', renderSkills(person.profile, ctx)));
    }
  } else {
    activity = ctx.quiet ? [] : buildPersonActivity(ctx, person);
    screenshots.push(jpg('activity', renderActivity(activity, ctx)));
  }
  return {
    outcome: 'ok',
    profile: person.profile,
    activity,
    company: null,
    screenshots,
    missing_sections: person.missing === null ? [] : [person.missing],
    captured_at: new Date(ctx.capturedMs).toISOString(),
  };
}

const EVENT_TYPES: readonly ActivityEventType[] = ['post', 'repost', 'comment', 'reaction', 'unknown'];
const EVENT_WEIGHTS = [35, 20, 25, 15, 5];

function pickEventType(r: Rng): ActivityEventType {
  let roll = r.int(0, 99);
  for (let i = 0; i < EVENT_TYPES.length; i++) {
    roll -= EVENT_WEIGHTS[i] as number;
    if (roll < 0) return EVENT_TYPES[i] as ActivityEventType;
  }
  return 'post';
}

function maybeCount(r: Rng, max: number, nullChance = 0.08): number | null {
  return r.chance(nullChance) ? null : r.skewed(max);
}

function eventId(ctx: SimContext, index: number): string {
  return `sim-${createHash('sha256').update(ctx.url).digest('hex').slice(0, 16)}-${index}`;
}

function buildPersonActivity(ctx: SimContext, person: PersonData): CollectedActivityEvent[] {
  const r = new Rng(ctx.url, 'activity');
  const count = r.int(1, 12);
  const offsets: number[] = [];
  for (let i = 0; i < count; i++) {
    // The newest event is within 30 days; the rest spread over ~4 months.
    offsets.push(i === 0 ? r.int(1, 29 * 24) * HOUR_MS : r.int(1, 120 * 24) * HOUR_MS);
  }
  offsets.sort((a, b) => a - b);
  const actor = { kind: 'person' as const, url: ctx.url, name: person.profile.name };
  return offsets.map((offset, index) => {
    const type: ActivityEventType = index === 0 ? (r.chance(0.6) ? 'post' : 'comment') : pickEventType(r);
    let text: string | null;
    switch (type) {
      case 'post':
        text = r.pick(POST_TEXTS);
        break;
      case 'repost':
        text = `Reposted from ${r.chance(0.6) ? person.employer : r.pick(COMPANIES)}: ${r.pick(POST_TEXTS)}`;
        break;
      case 'comment':
        text = r.pick(COMMENT_TEXTS);
        break;
      case 'reaction':
        text = null;
        break;
      default:
        text = r.chance(0.5) ? null : r.pick(POST_TEXTS);
    }
    const id = eventId(ctx, index);
    const undated = index > 0 && r.chance(0.05);
    return {
      external_id: id,
      event_type: type,
      actor,
      source_url: r.chance(0.1) ? null : `https://${ctx.host}/feed/update/${id}`,
      text,
      occurred_at: undated ? null : new Date(ctx.capturedMs - offset).toISOString(),
      counts: {
        reactions: maybeCount(r, type === 'comment' ? 12 : 180),
        comments: type === 'comment' ? maybeCount(r, 4, 0.3) : maybeCount(r, 40),
        reposts: type === 'post' || type === 'repost' ? maybeCount(r, 15) : null,
      },
    };
  });
}

// ---------------------------------------------------------------- company page

function simulateCompany(ctx: SimContext, mode: CollectRequest['mode']): CollectResult {
  const r = new Rng(ctx.url, 'company');
  const words = ctx.slug.split(/[-_.]+/u).filter((p) => /^[\p{L}\p{N}]+$/u.test(p));
  const name = words.length > 0 ? words.slice(0, 4).map(titleCase).join(' ') : r.pick(COMPANIES);
  const missing = new Rng(ctx.url, 'missing').chance(0.1);
  const company: CollectedCompany = {
    name,
    tagline: missing || r.chance(0.1) ? null : `${r.pick(OUTCOMES).replace(/^./u, (c) => c.toUpperCase())} with ${name}`,
    industry: missing || r.chance(0.05) ? null : r.pick(INDUSTRIES),
    follower_count: r.chance(0.05) ? null : r.skewed(250_000),
    website: r.chance(0.1) ? null : `https://www.${words.join('').toLowerCase().replace(/[^a-z0-9]/gu, '') || 'company'}.example`,
  };
  let activity: CollectedActivityEvent[] | null = null;
  if (mode === 'activity') {
    if (ctx.quiet) activity = [];
    else {
      const a = new Rng(ctx.url, 'company-activity');
      const offsets = Array.from({ length: a.int(1, 8) }, () => a.int(1, 90 * 24) * HOUR_MS).sort((x, y) => x - y);
      activity = offsets.map((offset, index) => {
        const id = eventId(ctx, index);
        return {
          external_id: id,
          event_type: a.chance(0.8) ? 'post' : 'repost',
          actor: { kind: 'company_page', url: ctx.url, name },
          source_url: `https://${ctx.host}/feed/update/${id}`,
          text: a.pick(POST_TEXTS),
          occurred_at: a.chance(0.05) ? null : new Date(ctx.capturedMs - offset).toISOString(),
          counts: { reactions: maybeCount(a, 900), comments: maybeCount(a, 120), reposts: maybeCount(a, 60) },
        } satisfies CollectedActivityEvent;
      });
    }
  }
  return {
    outcome: 'ok',
    profile: null,
    activity,
    company,
    screenshots: [png('company', renderCompany(company, activity, ctx))],
    missing_sections: missing ? ['company_about'] : [],
    captured_at: new Date(ctx.capturedMs).toISOString(),
  };
}

// ---------------------------------------------------------------- screenshots

type Rgb = readonly [number, number, number];

const PAGE_BG: Rgb = [243, 242, 239];
const CARD_BG: Rgb = [255, 255, 255];
const INK: Rgb = [60, 60, 60];
const GREY: Rgb = [170, 170, 170];
const LIGHT: Rgb = [215, 215, 215];
const DEFAULT_BANNER: Rgb = [160, 180, 200];
const ACCENTS: readonly Rgb[] = [
  [10, 102, 194],
  [0, 128, 96],
  [196, 80, 40],
  [120, 70, 170],
  [200, 150, 20],
  [40, 40, 90],
];
const WIDTH = 800;
const HEIGHT = 450;

/** An RGB raster just capable enough to draw a page mock-up. */
class Canvas {
  readonly data: Buffer;
  constructor(
    readonly width: number,
    readonly height: number,
    background: Rgb,
  ) {
    this.data = Buffer.alloc(width * height * 3);
    this.rect(0, 0, width, height, background);
  }
  rect(x: number, y: number, w: number, h: number, color: Rgb): void {
    const x0 = Math.max(0, Math.floor(x));
    const y0 = Math.max(0, Math.floor(y));
    const x1 = Math.min(this.width, Math.floor(x + w));
    const y1 = Math.min(this.height, Math.floor(y + h));
    if (x1 <= x0 || y1 <= y0) return;
    // Paint one pixel, double it along the first row, then copy that row down.
    const first = (y0 * this.width + x0) * 3;
    const rowBytes = (x1 - x0) * 3;
    this.data[first] = color[0];
    this.data[first + 1] = color[1];
    this.data[first + 2] = color[2];
    for (let filled = 3; filled < rowBytes; filled *= 2) {
      this.data.copyWithin(first + filled, first, first + Math.min(filled, rowBytes - filled));
    }
    for (let yy = y0 + 1; yy < y1; yy++) {
      this.data.copyWithin((yy * this.width + x0) * 3, first, first + rowBytes);
    }
  }
  circle(cx: number, cy: number, radius: number, color: Rgb): void {
    for (let dy = -radius; dy <= radius; dy++) {
      const half = Math.floor(Math.sqrt(radius * radius - dy * dy));
      this.rect(cx - half, cy + dy, 2 * half + 1, 1, color);
    }
  }
  /** A grey "line of text" whose length stands for `chars` characters. */
  textBar(x: number, y: number, chars: number, color: Rgb = GREY, height = 10, charWidth = 7): number {
    const length = Math.max(12, Math.min(this.width - x - 60, chars * charWidth));
    this.rect(x, y, length, height, color);
    return length;
  }
  /** Wrapped text of `chars` characters as several bars; returns the y below the last line. */
  paragraph(x: number, y: number, chars: number, maxLines: number, lineChars = 95): number {
    let left = chars;
    let line = 0;
    while (left > 0 && line < maxLines) {
      this.textBar(x, y, Math.min(left, lineChars));
      left -= lineChars;
      y += 18;
      line++;
    }
    return y;
  }
  toPng(): Buffer {
    const options = { colorType: 2, inputColorType: 2, inputHasAlpha: false, filterType: 1, deflateLevel: 9 } as const;
    const image = new PNG({ width: this.width, height: this.height, ...options });
    image.data = this.data;
    return PNG.sync.write(image, { ...options });
  }
  toJpeg(quality: number): Buffer {
    const rgba = Buffer.alloc(this.width * this.height * 4);
    for (let i = 0, j = 0; i < this.data.length; i += 3, j += 4) {
      rgba[j] = this.data[i] as number;
      rgba[j + 1] = this.data[i + 1] as number;
      rgba[j + 2] = this.data[i + 2] as number;
      rgba[j + 3] = 255;
    }
    return jpeg.encode({ width: this.width, height: this.height, data: rgba }, quality).data;
  }
}

function png(section: string, canvas: Canvas): Screenshot {
  return { section, media_type: 'image/png', bytes: canvas.toPng() };
}

function jpg(section: string, canvas: Canvas): Screenshot {
  return { section, media_type: 'image/jpeg', bytes: canvas.toJpeg(80) };
}

function mix(a: Rgb, b: Rgb): Rgb {
  return [(a[0] + b[0]) >> 1, (a[1] + b[1]) >> 1, (a[2] + b[2]) >> 1];
}

function accentOf(text: string): Rgb {
  const digest = createHash('sha256').update(text).digest();
  return ACCENTS[(digest[0] as number) % ACCENTS.length] as Rgb;
}

/** White card on the page background with a title bar; returns the canvas. */
function sectionCard(ctx: SimContext, titleChars: number): Canvas {
  const canvas = new Canvas(WIDTH, HEIGHT, PAGE_BG);
  canvas.rect(40, 20, WIDTH - 80, HEIGHT - 40, CARD_BG);
  canvas.rect(40, 20, WIDTH - 80, 6, accentOf(ctx.url));
  canvas.textBar(70, 50, titleChars, INK, 16, 11);
  return canvas;
}

function renderTopCard(profile: CollectedProfile, ctx: SimContext): Canvas {
  const canvas = new Canvas(WIDTH, HEIGHT, PAGE_BG);
  canvas.rect(40, 20, WIDTH - 80, HEIGHT - 40, CARD_BG);
  const bannerColor = profile.has_banner ? accentOf(ctx.url) : DEFAULT_BANNER;
  canvas.rect(40, 20, WIDTH - 80, 140, bannerColor);
  if (profile.has_banner) {
    const stripe = mix(CARD_BG, bannerColor);
    for (let x = 60; x < WIDTH - 60; x += 48) canvas.rect(x, 40, 20, 100, stripe);
  }
  if (profile.has_photo) {
    canvas.circle(140, 160, 64, CARD_BG);
    canvas.circle(140, 160, 58, accentOf(`${ctx.url}|photo`));
    canvas.circle(140, 140, 22, [240, 220, 200]);
  }
  canvas.textBar(70, 240, (profile.name ?? '').length, INK, 22, 14);
  canvas.paragraph(70, 280, (profile.headline ?? '').length, 2, 60);
  canvas.textBar(70, 330, (profile.location ?? '').length, LIGHT);
  if (profile.connections !== null) canvas.textBar(70, 360, Math.ceil(Math.log10(profile.connections + 1) * 6), [10, 102, 194]);
  if (profile.followers !== null) canvas.textBar(70, 384, Math.ceil(Math.log10(profile.followers + 1) * 5), LIGHT);
  return canvas;
}

function renderAbout(profile: CollectedProfile, ctx: SimContext): Canvas {
  const canvas = sectionCard(ctx, 5);
  canvas.paragraph(70, 90, (profile.about ?? '').length, 14);
  return canvas;
}

function renderExperience(profile: CollectedProfile, ctx: SimContext): Canvas {
  const canvas = sectionCard(ctx, 10);
  let y = 90;
  for (const position of (profile.positions ?? []).slice(0, 4)) {
    canvas.rect(70, y, 48, 48, accentOf(position.company ?? 'none'));
    canvas.textBar(135, y, position.title.length, INK, 12);
    canvas.textBar(135, y + 20, (position.company ?? '').length, GREY);
    canvas.textBar(135, y + 38, position.end === null ? 10 : 16, LIGHT, 8);
    y += 80;
  }
  return canvas;
}

function renderSkills(profile: CollectedProfile, ctx: SimContext): Canvas {
  const canvas = sectionCard(ctx, 6);
  let x = 70;
  let y = 95;
  for (const skill of (profile.skills ?? []).slice(0, 24)) {
    const width = skill.length * 9 + 24;
    if (x + width > WIDTH - 70) {
      x = 70;
      y += 40;
    }
    if (y > HEIGHT - 70) break;
    canvas.rect(x, y, width, 28, LIGHT);
    canvas.rect(x + 12, y + 10, width - 24, 8, INK);
    x += width + 12;
  }
  return canvas;
}

function renderActivity(events: readonly CollectedActivityEvent[], ctx: SimContext): Canvas {
  const canvas = sectionCard(ctx, 8);
  let y = 90;
  if (events.length === 0) canvas.textBar(70, y, 30, LIGHT);
  for (const event of events.slice(0, 4)) {
    canvas.rect(60, y - 6, WIDTH - 120, 76, PAGE_BG);
    canvas.circle(90, y + 16, 14, accentOf(event.event_type));
    canvas.textBar(120, y, (event.text ?? '').length || 6, INK);
    canvas.textBar(120, y + 22, 20, GREY, 8);
    const reactions = event.counts.reactions;
    if (reactions !== null) canvas.textBar(120, y + 44, 2 + Math.ceil(Math.log2(reactions + 1)), [10, 102, 194], 8);
    y += 86;
  }
  return canvas;
}

function renderCompany(company: CollectedCompany, activity: readonly CollectedActivityEvent[] | null, ctx: SimContext): Canvas {
  const canvas = new Canvas(WIDTH, HEIGHT, PAGE_BG);
  canvas.rect(40, 20, WIDTH - 80, HEIGHT - 40, CARD_BG);
  canvas.rect(40, 20, WIDTH - 80, 120, accentOf(ctx.url));
  canvas.rect(70, 100, 90, 90, CARD_BG);
  canvas.rect(76, 106, 78, 78, accentOf(`${ctx.url}|logo`));
  canvas.textBar(70, 215, (company.name ?? '').length, INK, 22, 14);
  canvas.textBar(70, 252, (company.tagline ?? '').length, GREY);
  canvas.textBar(70, 276, (company.industry ?? '').length, LIGHT);
  if (company.follower_count !== null) canvas.textBar(70, 300, Math.ceil(Math.log10(company.follower_count + 1) * 5), [10, 102, 194]);
  const postCards = Math.min(4, activity?.length ?? 0);
  for (let i = 0; i < postCards; i++) canvas.rect(70 + i * 165, 340, 150, 70, PAGE_BG);
  return canvas;
}
