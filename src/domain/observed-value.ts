/**
 * A check's observed value in words, with its unit or its meaning: "20
 * characters", "no photo", "3 posts in 90 days". One function for the web
 * page, the CSV, the .xlsx and the printout, so the same value never reads
 * two ways. The raw value stays what the catalog stores (check-helpers.ts
 * `Observed`); this is only how it is said.
 */
import type { Observed } from './checks/check-helpers.js';

const counted = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
const yesNo = (yes: string, no: string) => (v: Observed) => (v === true ? yes : v === false ? no : null);
const count = (one: string, many?: string) => (v: Observed) => (typeof v === 'number' ? counted(v, one, many) : null);
const text = (prefix: string) => (v: Observed) => (typeof v === 'string' ? (v.trim() === '' ? `no ${prefix}` : `“${v}”`) : null);

/** Per check key: the observed value in words, or null when the value has an unexpected type (then shown as is). */
const FORMATS: Record<string, (value: Observed) => string | null> = {
  'identity.has_photo': yesNo('a profile photo', 'no photo'),
  'identity.has_banner': yesNo('a custom banner', 'the default banner'),
  'identity.full_name': text('name'),
  'identity.location': text('location'),
  'identity.custom_url': yesNo('a custom URL', 'a generated URL'),
  'headline.present': text('headline'),
  'headline.length': count('character'),
  'headline.mentions_company': yesNo('names the company', 'does not name the company'),
  'about.present': yesNo('has an About text', 'no About text'),
  'about.length': count('character'),
  'about.mentions_company': yesNo('names the company', 'does not name the company'),
  'about.call_to_action': yesNo('has a way to get in touch', 'no way to get in touch'),
  'about.featured_items': count('featured item'),
  'experience.has_current_position': count('current position'),
  'experience.current_at_company': (v) => (typeof v === 'string' ? `current position: “${v}”` : null),
  'experience.history_depth': count('position'),
  'experience.descriptions': (v) => (typeof v === 'number' ? `${v} % of positions described` : null),
  'credentials.skills_listed': count('skill'),
  'credentials.education_listed': count('education entry', 'education entries'),
  'credentials.certifications': count('certification'),
  'credentials.languages': count('language'),
  'credentials.recommendations_received': count('recommendation'),
  'network.connections': count('connection'),
  'network.followers': count('follower'),
  'activity.posted_recently': (v) => (typeof v === 'number' ? `${counted(v, 'post')} in 30 days` : null),
  'activity.regular_posting': (v) => (typeof v === 'number' ? `${counted(v, 'post')} in 90 days` : null),
  'activity.posts_get_engagement': (v) => (typeof v === 'number' ? `${v.toLocaleString('en')} reactions and comments per post on average` : null),
  'activity.comments_on_others': (v) => (typeof v === 'number' ? `${counted(v, 'comment')} in 90 days` : null),
  'activity.reposts_company': (v) => (typeof v === 'number' ? `${counted(v, 'repost')} of company content in 90 days` : null),
};

/** The observed value of check `key` in words; "not observed" when nothing was observed. */
export function observedValueText(key: string, value: Observed | undefined): string {
  if (value === null || value === undefined) return 'not observed';
  const formatted = FORMATS[key]?.(value);
  if (formatted) return formatted;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/** The check keys with a format of their own (a test proves every catalog check has one). */
export const FORMATTED_CHECKS: readonly string[] = Object.keys(FORMATS);
