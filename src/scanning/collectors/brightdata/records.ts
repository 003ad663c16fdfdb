/**
 * Bright Data's LinkedIn records, as its Scraper API documents them
 * (profiles `gd_l1viktl72bvl7bjuj0`, posts `gd_lyy3tktm25m4avu764`,
 * companies `gd_l1vikfnt1wgvvqz95w`), mapped onto the collected-data types
 * (src/domain/collected.ts). docs/collectors.md, "Bright Data: the mapping",
 * has the same mapping as a table.
 *
 * Honest unknowns. A member the provider did not or could not observe maps
 * to null, so the check that reads it is `unknown`, never `optimize`:
 * - Since LinkedIn's data policy change of 2025-11-13, `position` (the
 *   headline), `experience` and `education` are withheld from public view
 *   (about 2 % filled, served from cache). Null or empty, they map to null
 *   and are listed in the profile's `restricted`. The profiles dataset has no
 *   skills and no featured section at all: always null, listed too.
 * - A record with a `warning` is incomplete: its other null sections are
 *   unknown as well, and the item reports the `provider_warning` section.
 * - In a record without a warning, a null public section (about,
 *   certifications, languages, recommendations) was observed absent: it maps
 *   to the empty value.
 *
 * Pure functions, no I/O. Records are untrusted JSON: every member is type
 * checked, and a record whose shape is wrong maps what it can (an unusable
 * member is null).
 */
import type { CollectedActivityEvent, CollectedCompany, CollectedPosition, CollectedProfile, LinkedImage } from '../../../domain/collected.js';
import { isRfc3339 } from '../../../domain/rfc3339.js';

/** One record of a dataset's answer (an error row has `error` and `input` only). */
export type BrightDataRecord = Record<string, unknown>;

/** Text members are capped as the provider answer's are (docs/collectors.md). */
const MAX_TEXT = 100_000;

const str = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.slice(0, MAX_TEXT) : null);
const count = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null);
const list = (value: unknown): unknown[] | null => (Array.isArray(value) ? value : null);
const obj = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

function httpsUrl(value: unknown): string | null {
  const text = str(value);
  if (text === null || text.length > 2048) return null;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/**
 * Who a record may belong to, strongest first, as the provider's shapes
 * carry it: `discovery_input` (the input of a discovery: for a discovered
 * post, the profile URL that was sent), then the input echo (`input.url`,
 * `input_url`: for a discovered post this is the post's own URL and matches
 * no person), then the author or subject (`use_url`, `user_url`,
 * `author_profile_url`, `url`; ids such as `user_id`, `linkedin_id`, `id`).
 * URLs are compared by profile identity, ids by a profile URL's last segment.
 */
export function recordClaims(record: BrightDataRecord): { urls: string[]; ids: string[] } {
  const urls = [
    str(obj(record.discovery_input)?.url),
    str(obj(record.input)?.url),
    str(record.input_url),
    str(record.use_url),
    str(record.user_url),
    str(record.author_profile_url),
    str(record.profile_url),
    str(record.url),
  ].filter((u): u is string => u !== null);
  const ids = [str(record.user_id), str(record.linkedin_id), str(record.id)].filter((i): i is string => i !== null);
  return { urls, ids };
}

/** What an error row says about its input. `no_posts` is the documented positive absence of posts. */
export type RecordError = { kind: 'inaccessible'; reason: string } | { kind: 'deferred' } | { kind: 'no_posts' } | { kind: 'failed'; reason: string };

/**
 * A record's `error` / `error_code`, or null when it is a data record.
 * "No public posts were found" (which the posts dataset sends with
 * error_code `dead_page`) is the observed absence of posts, not a dead page;
 * `dead_page` and "hidden or private" profiles are inaccessible; a throttled
 * account ("sending too many … requests") is deferred; anything else is a
 * failure. Reasons are fixed texts plus the provider's code when it is
 * code-like: never the message, which may quote the URL.
 */
export function recordError(record: BrightDataRecord): RecordError | null {
  const message = str(record.error);
  const code = str(record.error_code);
  if (message === null && code === null) return null;
  const safeCode = code !== null && /^[a-z][a-z0-9_]{0,63}$/.test(code) ? code : null;
  const text = `${message ?? ''} ${code ?? ''}`.toLowerCase();
  if (/no public posts|no posts (were )?found/.test(text)) return { kind: 'no_posts' };
  if (safeCode === 'dead_page' || /hidden or private|not found|does ?n[o']t exist|private profile|unavailable profile|dead page/.test(text)) {
    return { kind: 'inaccessible', reason: `provider: ${safeCode ?? 'not_found'}` };
  }
  if (/too many|rate limit|sending too many|limit of/.test(text)) return { kind: 'deferred' };
  return { kind: 'failed', reason: safeCode ? `provider record error: ${safeCode}` : 'provider record error' };
}

/** The record's warning, as a missing-section code, or null. */
export function recordWarning(record: BrightDataRecord): string | null {
  return str(record.warning) !== null || str(record.warning_code) !== null ? 'provider_warning' : null;
}

const MONTHS: Record<string, string> = {
  jan: '01',
  feb: '02',
  mar: '03',
  apr: '04',
  may: '05',
  jun: '06',
  jul: '07',
  aug: '08',
  sep: '09',
  oct: '10',
  nov: '11',
  dec: '12',
};

/** "Jan 2020" (LinkedIn's display form) → "2020-01"; a year alone or anything else → null (the month is unknown). */
export function yearMonth(value: unknown): string | null {
  const text = str(value);
  if (text === null) return null;
  const m = /^([A-Za-z]{3})[a-z]*\.? ([0-9]{4})$/.exec(text.trim());
  if (m && MONTHS[m[1].toLowerCase()]) return `${m[2]}-${MONTHS[m[1].toLowerCase()]}`;
  const iso = /^([0-9]{4})-(0[1-9]|1[0-2])/.exec(text.trim());
  return iso ? `${iso[1]}-${iso[2]}` : null;
}

function position(entry: Record<string, unknown>, company: string | null): CollectedPosition | null {
  const title = str(entry.title) ?? str(entry.subtitle);
  if (title === null) return null;
  const end = str(entry.end_date);
  const start = yearMonth(entry.start_date);
  let finish = end === null || /^present$/i.test(end.trim()) ? null : yearMonth(end);
  // An end before the start contradicts itself: keep the start only.
  if (start !== null && finish !== null && finish < start) finish = null;
  return { title, company: str(entry.company) ?? company, start, end: finish, description: str(entry.description) ?? null };
}

/** `experience` flattened: a company entry with `positions` gives one position each. */
function positions(value: unknown): CollectedPosition[] | null {
  const entries = list(value);
  if (entries === null || entries.length === 0) return null;
  const out: CollectedPosition[] = [];
  for (const raw of entries) {
    const entry = obj(raw);
    if (!entry) continue;
    const inner = list(entry.positions);
    if (inner && inner.length > 0) {
      for (const p of inner) {
        const mapped = obj(p) && position(obj(p)!, str(entry.company) ?? str(entry.title));
        if (mapped) out.push(mapped);
      }
    } else {
      const mapped = position(entry, null);
      if (mapped) out.push(mapped);
    }
  }
  return out.length > 0 ? out : null;
}

/** LinkedIn's stock images (default avatar and banner) live under static.licdn.com/aero-v1/sc/h/. */
function isStockImage(url: string): boolean {
  try {
    const u = new URL(url);
    return u.hostname === 'static.licdn.com' && u.pathname.startsWith('/aero-v1/sc/h/');
  } catch {
    return false;
  }
}

/** A generated profile id ends in a hexadecimal suffix (jane-doe-1a2b3c4d) or is a member URN id (ACoAA…). */
function isGeneratedId(id: string): boolean {
  return /-[0-9a-f]{6,}$/i.test(id) || /^ACo[A-Za-z0-9_-]+$/.test(id);
}

export interface MappedProfile {
  profile: CollectedProfile;
  images: LinkedImage[];
  missing: string[];
}

/** A profiles-dataset record → CollectedProfile, its photo and banner, and the sections it lacks. */
export function mapProfile(record: BrightDataRecord): MappedProfile {
  const warned = recordWarning(record) !== null;
  /** An absent public section: observed empty in a complete record, unknown in a warned one. */
  const section = <T>(value: T | null, empty: T): T | null => (value !== null ? value : warned ? null : empty);
  const restricted: string[] = ['skills', 'featured_count'];

  const headline = str(record.position);
  if (headline === null) restricted.push('headline');
  const experience = positions(record.experience);
  if (experience === null) restricted.push('positions');
  const education = list(record.education);
  const educationCount = education && education.length > 0 ? education.length : null;
  if (educationCount === null) restricted.push('education_count');

  const avatar = httpsUrl(record.avatar);
  const defaultAvatar = typeof record.default_avatar === 'boolean' ? record.default_avatar : null;
  const hasPhoto = defaultAvatar === true ? false : avatar !== null ? !isStockImage(avatar) : defaultAvatar === false ? null : warned ? null : false;
  const banner = httpsUrl(record.banner_image);
  const hasBanner = banner !== null ? !isStockImage(banner) : warned ? null : false;

  const id = str(record.linkedin_id) ?? str(record.id);
  const name = str(record.name) ?? ([str(record.first_name), str(record.last_name)].filter((p) => p !== null).join(' ') || null);
  const languages =
    list(record.languages)
      ?.map((l) => str(obj(l)?.title) ?? str(l))
      .filter((l): l is string => l !== null) ?? null;
  const recommendations = count(record.recommendations_count) ?? list(record.recommendations)?.length ?? null;

  const profile: CollectedProfile = {
    name,
    headline,
    about: section(str(record.about), ''),
    location: str(record.city) ?? str(record.location),
    has_photo: hasPhoto,
    has_banner: hasBanner,
    custom_url: id === null ? null : !isGeneratedId(id),
    connections: count(record.connections),
    followers: count(record.followers),
    positions: experience,
    skills: null,
    featured_count: null,
    education_count: educationCount,
    recommendations_received: section(recommendations, 0),
    languages: section(languages, []),
    certifications_count: section(list(record.certifications)?.length ?? null, 0),
    restricted,
  };
  const images: LinkedImage[] = [];
  if (hasPhoto === true && avatar) images.push({ section: 'top_card', url: avatar });
  if (hasBanner === true && banner) images.push({ section: 'top_card', url: banner });
  const missing = warned ? ['provider_warning'] : [];
  return { profile, images, missing };
}

/** A posts-dataset record of a person's discovered posts → an activity event (null when it has no id). */
export function mapPost(record: BrightDataRecord, personUrl: string): CollectedActivityEvent | null {
  const id = str(record.id) ?? httpsUrl(record.url);
  if (id === null) return null;
  const type = str(record.post_type)?.toLowerCase() ?? null;
  const repost = obj(record.repost) !== null || type === 'repost';
  const date = str(record.date_posted);
  return {
    external_id: id.slice(0, 512),
    event_type: repost ? 'repost' : type === null || ['post', 'article', 'document', 'video', 'poll', 'image'].includes(type) ? 'post' : 'unknown',
    actor: { kind: 'person', url: personUrl, name: null },
    source_url: httpsUrl(record.url),
    text: str(record.post_text) ?? str(record.title),
    occurred_at: date !== null && isRfc3339(date) ? date : null,
    counts: { reactions: count(record.num_likes), comments: count(record.num_comments), reposts: null },
  };
}

export interface MappedCompany {
  company: CollectedCompany;
  images: LinkedImage[];
  /** The company page's own posts (`updates`), or null when the record has none listed. */
  activity: CollectedActivityEvent[] | null;
  missing: string[];
}

/** A companies-dataset record → CollectedCompany, its logo and its posts. */
export function mapCompany(record: BrightDataRecord, pageUrl: string): MappedCompany {
  const industries = record.industries;
  const industry =
    str(industries) ??
    list(industries)
      ?.map(str)
      .find((i) => i !== null) ??
    null;
  const company: CollectedCompany = {
    name: str(record.name),
    tagline: str(record.slogan),
    industry,
    follower_count: count(record.followers),
    website: httpsUrl(record.website),
  };
  const logo = httpsUrl(record.logo);
  const updates = list(record.updates);
  const activity =
    updates === null
      ? null
      : updates.flatMap((raw): CollectedActivityEvent[] => {
          const u = obj(raw);
          const id = u && (str(u.post_id) ?? httpsUrl(u.post_url));
          if (!u || !id) return [];
          const date = str(u.date) ?? str(u.time);
          return [
            {
              external_id: id.slice(0, 512),
              event_type: 'post',
              actor: { kind: 'company_page', url: pageUrl, name: company.name },
              source_url: httpsUrl(u.post_url),
              text: str(u.text) ?? str(u.title),
              occurred_at: date !== null && isRfc3339(date) ? date : null,
              counts: { reactions: count(u.likes_count), comments: count(u.comments_count), reposts: null },
            },
          ];
        });
  // Unique external ids: the provider may list a post twice.
  const seen = new Set<string>();
  const unique = activity?.filter((e) => (seen.has(e.external_id) ? false : (seen.add(e.external_id), true))) ?? null;
  return { company, images: logo ? [{ section: 'company', url: logo }] : [], activity: unique, missing: recordWarning(record) ? ['provider_warning'] : [] };
}
