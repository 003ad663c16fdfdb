/**
 * The synthetic data of the simulator: a person's profile and activity, a
 * company page and its posts. Pure functions of the URL (through seeded
 * streams, random.ts) and the reference time; no screenshots here.
 */
import { createHash } from 'node:crypto';
import type { ActivityEventType, CollectRequest, CollectedActivityEvent, CollectedCompany, CollectedPosition, CollectedProfile } from '../collector.js';
import { DAY_MS, HOUR_MS, type SimContext } from './context.js';
import { Rng } from './random.js';
import {
  AUDIENCES,
  CALLS_TO_ACTION,
  CITIES,
  COMMENT_TEXTS,
  COMPANIES,
  FIRST_NAMES,
  FOCUS,
  INDUSTRIES,
  LANGUAGES,
  LAST_NAMES,
  OUTCOMES,
  POST_TEXTS,
  ROLES,
  SENTENCES,
  SKILLS,
} from './vocabulary.js';

export function titleCase(word: string): string {
  const chars = Array.from(word.toLowerCase());
  return chars.length === 0 ? '' : chars[0].toUpperCase() + chars.slice(1).join('');
}

/** "jane-doe" → "Jane Doe"; null when the slug does not look like a name. */
export function nameFromSlug(slug: string): string | null {
  const parts = slug.split(/[-_.]+/u).filter((p) => /^\p{L}{2,}$/u.test(p));
  if (parts.length < 2) return null;
  return parts.slice(0, 3).map(titleCase).join(' ');
}

function monthText(month: number): string {
  const year = Math.floor(month / 12);
  return `${String(year).padStart(4, '0')}-${String((month % 12) + 1).padStart(2, '0')}`;
}

export type ProfileSection = 'about' | 'experience' | 'skills';
export const PROFILE_SECTIONS: readonly ProfileSection[] = ['about', 'experience', 'skills'];

export interface PersonData {
  profile: CollectedProfile;
  employer: string;
  missing: ProfileSection | null;
}

export function buildPerson(ctx: SimContext): PersonData {
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
    const p = positions[1];
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

const EVENT_TYPES: readonly ActivityEventType[] = ['post', 'repost', 'comment', 'reaction', 'unknown'];
const EVENT_WEIGHTS = [35, 20, 25, 15, 5];

function pickEventType(r: Rng): ActivityEventType {
  let roll = r.int(0, 99);
  for (let i = 0; i < EVENT_TYPES.length; i++) {
    roll -= EVENT_WEIGHTS[i];
    if (roll < 0) return EVENT_TYPES[i];
  }
  return 'post';
}

function maybeCount(r: Rng, max: number, nullChance = 0.08): number | null {
  return r.chance(nullChance) ? null : r.skewed(max);
}

function eventId(ctx: SimContext, index: number): string {
  return `sim-${createHash('sha256').update(ctx.url).digest('hex').slice(0, 16)}-${index}`;
}

export function buildPersonActivity(ctx: SimContext, person: PersonData): CollectedActivityEvent[] {
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

export interface CompanyData {
  company: CollectedCompany;
  /** null in full_profile mode. */
  activity: CollectedActivityEvent[] | null;
  /** The about part of the page could not be read (a warning). */
  missing: boolean;
}

export function buildCompany(ctx: SimContext, mode: CollectRequest['mode']): CompanyData {
  const r = new Rng(ctx.url, 'company');
  const words = ctx.slug.split(/[-_.]+/u).filter((p) => /^[\p{L}\p{N}]+$/u.test(p));
  const name = words.length > 0 ? words.slice(0, 4).map(titleCase).join(' ') : r.pick(COMPANIES);
  const missing = new Rng(ctx.url, 'missing').chance(0.1);
  const company: CollectedCompany = {
    name,
    tagline: missing || r.chance(0.1) ? null : `${r.pick(OUTCOMES).replace(/^./u, (c) => c.toUpperCase())} with ${name}`,
    industry: missing || r.chance(0.05) ? null : r.pick(INDUSTRIES),
    follower_count: r.chance(0.05) ? null : r.skewed(250_000),
    website: r.chance(0.1)
      ? null
      : `https://www.${
          words
            .join('')
            .toLowerCase()
            .replace(/[^a-z0-9]/gu, '') || 'company'
        }.example`,
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
  return { company, activity, missing };
}
