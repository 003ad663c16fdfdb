/**
 * The check catalog: a fixed, versioned list of profile checks grouped in
 * categories, and `evaluateChecks`, which turns one person's collected data
 * into findings (decisions.md, Analysis: "Check catalog").
 *
 * Pure: no I/O, no clock (the caller passes `now`, normally the observation's
 * `captured_at`). Ids are UUID v5 of the keys under CATALOG_NAMESPACE, so they
 * never change while a key exists. Changing what a check means needs a new key;
 * changing thresholds or wording bumps CATALOG_VERSION.
 *
 * Outcomes: `good`, `optimize`, or `unknown` when the data the check needs was
 * not observed (null) or contradicts itself (impossible counts or dates).
 * Recommendations are generic stored guidance, present for every check whatever
 * the outcome (2.9); they may contain `[company name]` or `{company}`.
 */
import { v5 as uuidv5 } from 'uuid';
import type { CollectedActivityEvent, CollectedProfile } from '../collected.js';
import { sectionOf, type EvidenceArea, type EvidenceSection } from '../evidence-areas.js';
import {
  UNKNOWN,
  countAtLeast,
  countRecentEvents,
  hostOf,
  isBlank,
  mentionsCompany,
  readCount,
  readPositions,
  verdict,
  visibleLength,
  type CheckResult,
  type Match,
  type Observed,
  type Outcome,
} from './check-helpers.js';

export type { CheckResult, Observed, Outcome } from './check-helpers.js';

/** Namespace of the UUID v5 ids of categories and checks. Never change it. */
export const CATALOG_NAMESPACE = '8ebc0af9-236f-46d3-956a-92066f9d11a4';
/** Version of the catalog's rules and wording: bump it when any of them changes. */
export const CATALOG_VERSION = '2026-11-1';

export type { EvidenceArea, EvidenceSection };

export interface CheckInput {
  profile: CollectedProfile | null;
  /** null = activity not collected; [] = verified empty. */
  activity: CollectedActivityEvent[] | null;
  company: { name: string; domain: string | null };
  now: Date;
}

export interface CheckCategory {
  readonly key: string;
  readonly id: string;
  readonly title: string;
  readonly description: string;
}

export interface CheckDefinition {
  readonly key: string;
  readonly id: string;
  /** Key of the category. */
  readonly category: string;
  readonly title: string;
  /** What `good` means, in one or two sentences. */
  readonly description: string;
  readonly recommendation: string;
  /** Where on its evidence the check's subject is (domain/evidence-areas.ts); null: the check has no evidence image. */
  readonly evidence_area: EvidenceArea | null;
  /** The page section of its evidence images: the area's section. */
  readonly evidence_section: EvidenceSection | null;
  /** The input the check reads: it is `unknown` while that input is null. */
  readonly requires: 'profile' | 'activity';
  /** How much fixing this check's gap changes how the profile is seen (IMPACT_LEVELS); ranks a person's "fix first". */
  readonly impact: Impact;
  evaluate(input: CheckInput): CheckResult;
}

export type Impact = 1 | 2 | 3;

/** What each impact weight means (docs/checks.md shows it with every check). */
export const IMPACT_LEVELS: Record<Impact, string> = {
  3: 'high: seen first by everyone who meets the profile, in search results, comments and invitations (photo, name, headline, current position, about)',
  2: 'medium: shapes a profile visit (banner, location, lengths, descriptions, skills, reach, recent activity)',
  1: 'low: polish that rewards a closer look (custom URL, featured items, credentials, engagement habits)',
};

export interface Finding {
  check_id: string;
  check_key: string;
  category_key: string;
  outcome: Outcome;
  observed: Observed;
  recommendation: string;
  source_section: EvidenceSection | null;
}

export function catalogId(key: string): string {
  return uuidv5(key, CATALOG_NAMESPACE);
}

// ---------------------------------------------------------------- categories

const categoryDefs: Array<Omit<CheckCategory, 'id'>> = [
  { key: 'identity', title: 'Identity', description: 'Who the person is at a glance: photo, banner, name, location, profile URL.' },
  { key: 'headline', title: 'Headline', description: 'The line under the name that follows the person everywhere.' },
  { key: 'about', title: 'About and featured', description: 'The summary section and the items pinned to the profile.' },
  { key: 'experience', title: 'Experience', description: 'Current and past positions.' },
  { key: 'credentials', title: 'Skills and credentials', description: 'Skills, education, certifications, languages and recommendations.' },
  { key: 'network', title: 'Network', description: 'Reach: connections and followers.' },
  { key: 'activity', title: 'Activity', description: 'What the person recently posted, shared and commented.' },
];

export const CATEGORIES: readonly CheckCategory[] = Object.freeze(categoryDefs.map((c) => Object.freeze({ ...c, id: catalogId(c.key) })));

// ---------------------------------------------------------------- checks

type Def = Omit<CheckDefinition, 'id' | 'evaluate' | 'requires' | 'evidence_section'> &
  (
    | { requires: 'profile'; evaluate(profile: CollectedProfile, input: CheckInput): CheckResult }
    | { requires: 'activity'; evaluate(activity: CollectedActivityEvent[], input: CheckInput): CheckResult }
  );

function flag(value: boolean | null): CheckResult {
  return value === null ? UNKNOWN : verdict(value, value);
}

/** Company-aware text check: unknown when the text was not observed or the company has no name. */
function textMentionsCompany(text: string | null, input: CheckInput): CheckResult {
  if (text === null || isBlank(input.company.name)) return UNKNOWN;
  const found = mentionsCompany(text, input.company.name);
  return verdict(found, found);
}

function minLength(text: string | null, minimum: number, maximum = Infinity): CheckResult {
  if (text === null) return UNKNOWN;
  const length = visibleLength(text);
  return verdict(length >= minimum && length <= maximum, length);
}

function listAtLeast(list: string[] | null, minimum: number): CheckResult {
  if (list === null) return UNKNOWN;
  const count = list.filter((item) => typeof item === 'string' && !isBlank(item)).length;
  return verdict(count >= minimum, count);
}

const CALL_TO_ACTION = new RegExp(
  String.raw`\b(contact|reach out|get in touch|message me|dm me|e-?mail|let'?s (talk|connect|chat)|connect with me|book a|schedule a|say hello|drop me)\b` +
    String.raw`|https?:\/\/|www\.|[^\s@]+@[^\s@]+\.[a-z]{2,}`,
  'iu',
);

function eventMentionsCompany(event: CollectedActivityEvent, input: CheckInput): Match {
  if (event.text !== null && mentionsCompany(event.text, input.company.name)) return 'yes';
  const companyHost = input.company.domain === null ? null : hostOf(input.company.domain);
  if (companyHost !== null && event.source_url !== null) {
    const sourceHost = hostOf(event.source_url);
    if (sourceHost !== null && (sourceHost === companyHost || sourceHost.endsWith(`.${companyHost}`))) return 'yes';
  }
  return event.text === null && event.source_url === null ? 'maybe' : 'no';
}

const checkDefs: Def[] = [
  // identity
  {
    key: 'identity.has_photo',
    category: 'identity',
    title: 'Profile photo',
    description: 'Good when the profile shows a profile photo.',
    recommendation: 'Add a recent, well-lit headshot where your face fills most of the frame.',
    evidence_area: 'photo',
    requires: 'profile',
    impact: 3,
    evaluate: (p) => flag(p.has_photo),
  },
  {
    key: 'identity.has_banner',
    category: 'identity',
    title: 'Background banner',
    description: 'Good when the profile has a custom background banner instead of the default one.',
    recommendation: 'Use a banner that shows your work or [company name] branding (1584 x 396 px).',
    evidence_area: 'banner',
    requires: 'profile',
    impact: 2,
    evaluate: (p) => flag(p.has_banner),
  },
  {
    key: 'identity.full_name',
    category: 'identity',
    title: 'Full name',
    description: 'Good when the displayed name has at least two words (first and last name).',
    recommendation: 'Show your first and last name as colleagues and customers know you, without titles or emojis.',
    evidence_area: 'name',
    requires: 'profile',
    impact: 3,
    evaluate: (p) => {
      if (p.name === null) return UNKNOWN;
      const words = p.name
        .trim()
        .split(/\s+/u)
        .filter((w) => /\p{L}/u.test(w));
      return verdict(words.length >= 2, p.name);
    },
  },
  {
    key: 'identity.location',
    category: 'identity',
    title: 'Location',
    description: 'Good when the profile shows a location.',
    recommendation: 'Set your location (city or metro area) so people nearby can find you.',
    evidence_area: 'location',
    requires: 'profile',
    impact: 2,
    evaluate: (p) => (p.location === null ? UNKNOWN : verdict(!isBlank(p.location), p.location)),
  },
  {
    key: 'identity.custom_url',
    category: 'identity',
    title: 'Custom profile URL',
    description: 'Good when the profile uses a personal (vanity) URL instead of a generated one.',
    recommendation: 'Claim a custom profile URL based on your name, and use it in your email signature.',
    evidence_area: null,
    requires: 'profile',
    impact: 1,
    evaluate: (p) => flag(p.custom_url),
  },

  // headline
  {
    key: 'headline.present',
    category: 'headline',
    title: 'Headline is filled in',
    description: 'Good when the profile has a non-empty headline.',
    recommendation: 'Write a headline that says what you do and for whom, e.g. "Role at [company name] | what you help with".',
    evidence_area: 'headline',
    requires: 'profile',
    impact: 3,
    evaluate: (p) => (p.headline === null ? UNKNOWN : verdict(!isBlank(p.headline), p.headline)),
  },
  {
    key: 'headline.length',
    category: 'headline',
    title: 'Headline length',
    description: 'Good when the headline has 40 to 220 characters: enough to say more than a job title, short enough to show in full.',
    recommendation: 'Go beyond the job title: add your focus area or the value you bring, within 220 characters.',
    evidence_area: 'headline',
    requires: 'profile',
    impact: 2,
    evaluate: (p) => minLength(p.headline, 40, 220),
  },
  {
    key: 'headline.mentions_company',
    category: 'headline',
    title: 'Headline names the company',
    description: 'Good when the headline mentions the company by name (case-insensitive).',
    recommendation: 'Name {company} in your headline so every comment and post you make carries the brand.',
    evidence_area: 'headline',
    requires: 'profile',
    impact: 3,
    evaluate: (p, input) => textMentionsCompany(p.headline, input),
  },

  // about
  {
    key: 'about.present',
    category: 'about',
    title: 'About section is filled in',
    description: 'Good when the About section has text.',
    recommendation: 'Write an About section: who you are, what you work on at [company name], and how to reach you.',
    evidence_area: 'about_text',
    requires: 'profile',
    impact: 3,
    evaluate: (p) => (p.about === null ? UNKNOWN : verdict(!isBlank(p.about), !isBlank(p.about))),
  },
  {
    key: 'about.length',
    category: 'about',
    title: 'About section length',
    description: 'Good when the About section has at least 300 characters.',
    recommendation: 'Expand your About section to a few short paragraphs (300+ characters) with concrete examples of your work.',
    evidence_area: 'about_text',
    requires: 'profile',
    impact: 2,
    evaluate: (p) => minLength(p.about, 300),
  },
  {
    key: 'about.mentions_company',
    category: 'about',
    title: 'About names the company',
    description: 'Good when the About section mentions the company by name (case-insensitive).',
    recommendation: 'Say in your About section what you do at {company} and why it matters to customers.',
    evidence_area: 'about_text',
    requires: 'profile',
    impact: 2,
    evaluate: (p, input) => textMentionsCompany(p.about, input),
  },
  {
    key: 'about.call_to_action',
    category: 'about',
    title: 'About invites contact',
    description: 'Good when the About section ends with a way to get in touch: a link, an email address or an explicit invitation.',
    recommendation: 'Close your About section with a call to action, e.g. a link to [company name] or "message me about …".',
    evidence_area: 'about_text',
    requires: 'profile',
    impact: 1,
    evaluate: (p) => {
      if (p.about === null) return UNKNOWN;
      const found = CALL_TO_ACTION.test(p.about);
      return verdict(found, found);
    },
  },
  {
    key: 'about.featured_items',
    category: 'about',
    title: 'Featured items',
    description: 'Good when at least one item (post, article, link) is featured on the profile.',
    recommendation: 'Feature one to three items: a strong post, a talk, or a page of [company name] you want people to see.',
    evidence_area: 'featured',
    requires: 'profile',
    impact: 1,
    evaluate: (p) => countAtLeast(p.featured_count, 1),
  },

  // experience
  {
    key: 'experience.has_current_position',
    category: 'experience',
    title: 'Current position listed',
    description: 'Good when at least one position is current (no end date). Unknown when position dates contradict each other or lie in the future.',
    recommendation: 'Keep your current role listed with its start date and no end date.',
    evidence_area: 'positions',
    requires: 'profile',
    impact: 3,
    evaluate: (p, input) => {
      const positions = readPositions(p.positions, input.now);
      if (positions.kind !== 'value') return UNKNOWN;
      return verdict(positions.current.length >= 1, positions.current.length);
    },
  },
  {
    key: 'experience.current_at_company',
    category: 'experience',
    title: 'Current position at the company',
    description: 'Good when a current position names the company (case-insensitive) as employer or in its title.',
    recommendation: 'List your current role at [company name] and link it to the company page so your profile shows its logo.',
    evidence_area: 'positions',
    requires: 'profile',
    impact: 3,
    evaluate: (p, input) => {
      const positions = readPositions(p.positions, input.now);
      if (positions.kind !== 'value' || isBlank(input.company.name)) return UNKNOWN;
      const name = input.company.name;
      const match = positions.current.find((pos) => (pos.company !== null && mentionsCompany(pos.company, name)) || mentionsCompany(pos.title, name));
      if (match) return verdict(true, match.company ?? match.title);
      // A current role with no employer shown might be at the company: undecidable.
      if (positions.current.some((pos) => pos.company === null)) return UNKNOWN;
      return verdict(false, positions.current[0]?.company ?? null);
    },
  },
  {
    key: 'experience.history_depth',
    category: 'experience',
    title: 'Career history',
    description: 'Good when at least two positions are listed.',
    recommendation: 'Add your previous roles so visitors see the path that led you to [company name].',
    evidence_area: 'positions',
    requires: 'profile',
    impact: 1,
    evaluate: (p) => (p.positions === null ? UNKNOWN : verdict(p.positions.length >= 2, p.positions.length)),
  },
  {
    key: 'experience.descriptions',
    category: 'experience',
    title: 'Positions are described',
    description: 'Good when at least half of the listed positions have a description of 40+ characters. Observed: that share in percent.',
    recommendation: 'Describe each role in two or three lines: scope, results, and the tools or customers involved.',
    evidence_area: 'positions',
    requires: 'profile',
    impact: 2,
    evaluate: (p) => {
      if (p.positions === null) return UNKNOWN;
      if (p.positions.length === 0) return verdict(false, 0);
      const described = p.positions.filter((pos) => pos.description !== null && visibleLength(pos.description) >= 40).length;
      return verdict(described * 2 >= p.positions.length, Math.round((described * 100) / p.positions.length));
    },
  },

  // credentials
  {
    key: 'credentials.skills_listed',
    category: 'credentials',
    title: 'Skills listed',
    description: 'Good when at least five skills are listed.',
    recommendation: 'List at least five skills that match your role, with the most relevant ones first.',
    evidence_area: 'skills',
    requires: 'profile',
    impact: 2,
    evaluate: (p) => listAtLeast(p.skills, 5),
  },
  {
    key: 'credentials.education_listed',
    category: 'credentials',
    title: 'Education listed',
    description: 'Good when at least one education entry is listed.',
    recommendation: 'Add your education or relevant training, including bootcamps and professional programs.',
    evidence_area: null,
    requires: 'profile',
    impact: 1,
    evaluate: (p) => countAtLeast(p.education_count, 1),
  },
  {
    key: 'credentials.certifications',
    category: 'credentials',
    title: 'Licenses and certifications',
    description: 'Good when at least one license or certification is listed.',
    recommendation: 'Add certifications relevant to your work at [company name], with issuer and date.',
    evidence_area: null,
    requires: 'profile',
    impact: 1,
    evaluate: (p) => countAtLeast(p.certifications_count, 1),
  },
  {
    key: 'credentials.languages',
    category: 'credentials',
    title: 'Languages',
    description: 'Good when at least one language is listed.',
    recommendation: 'List the languages you work in, with your proficiency.',
    evidence_area: null,
    requires: 'profile',
    impact: 1,
    evaluate: (p) => listAtLeast(p.languages, 1),
  },
  {
    key: 'credentials.recommendations_received',
    category: 'credentials',
    title: 'Recommendations received',
    description: 'Good when the profile shows at least two recommendations from others.',
    recommendation: 'Ask two or three colleagues or clients for a short, specific recommendation.',
    evidence_area: null,
    requires: 'profile',
    impact: 1,
    evaluate: (p) => countAtLeast(p.recommendations_received, 2),
  },

  // network
  {
    key: 'network.connections',
    category: 'network',
    title: 'Connections',
    description: 'Good when the profile has at least 500 connections.',
    recommendation: 'Grow your network: connect with colleagues, customers and people you meet at events.',
    evidence_area: 'connections',
    requires: 'profile',
    impact: 2,
    evaluate: (p) => countAtLeast(p.connections, 500),
  },
  {
    key: 'network.followers',
    category: 'network',
    title: 'Followers',
    description: 'Good when the profile has at least 1,000 followers.',
    recommendation: 'Turn on follow as the primary action and post regularly so people outside your network follow you.',
    evidence_area: 'followers',
    requires: 'profile',
    impact: 1,
    evaluate: (p) => countAtLeast(p.followers, 1000),
  },

  // activity
  {
    key: 'activity.posted_recently',
    category: 'activity',
    title: 'Posted in the last 30 days',
    description: 'Good when the person published at least one post in the 30 days before the observation.',
    recommendation: 'Post at least once a month about your work or about [company name] news.',
    evidence_area: 'events',
    requires: 'activity',
    impact: 2,
    evaluate: (events, input) => countRecentEvents(events, input.now, 30, 1, { types: ['post'] }),
  },
  {
    key: 'activity.regular_posting',
    category: 'activity',
    title: 'Posts regularly',
    description: 'Good when the person published at least four posts in the last 90 days.',
    recommendation: 'Keep a steady rhythm: about one post every two to three weeks.',
    evidence_area: 'events',
    requires: 'activity',
    impact: 1,
    evaluate: (events, input) => countRecentEvents(events, input.now, 90, 4, { types: ['post'] }),
  },
  {
    key: 'activity.posts_get_engagement',
    category: 'activity',
    title: 'Posts get engagement',
    description: "Good when the person's posts average at least 5 reactions plus comments. Unknown when no post has known counts. Observed: the average.",
    recommendation: 'End posts with a question, tag the people involved and reply to comments in the first hours.',
    evidence_area: 'events',
    requires: 'activity',
    impact: 1,
    evaluate: (events) => {
      const posts = events.filter((e) => e.actor.kind === 'person' && e.event_type === 'post');
      let measured = 0;
      let total = 0;
      for (const post of posts) {
        const reactions = readCount(post.counts.reactions);
        const comments = readCount(post.counts.comments);
        if (reactions.kind === 'conflicting' || comments.kind === 'conflicting') return UNKNOWN;
        if (reactions.kind !== 'value' || comments.kind !== 'value') continue;
        measured++;
        total += reactions.value + comments.value;
      }
      if (measured === 0) return UNKNOWN;
      const average = Math.round((total * 10) / measured) / 10;
      return verdict(average >= 5, average);
    },
  },
  {
    key: 'activity.comments_on_others',
    category: 'activity',
    title: "Comments on others' posts",
    description: 'Good when the person commented at least once in the last 90 days.',
    recommendation: 'Leave thoughtful comments on posts from customers and peers; it builds visibility faster than posting alone.',
    evidence_area: 'events',
    requires: 'activity',
    impact: 1,
    evaluate: (events, input) => countRecentEvents(events, input.now, 90, 1, { types: ['comment'] }),
  },
  {
    key: 'activity.reposts_company',
    category: 'activity',
    title: 'Shares company content',
    description: 'Good when the person reposted content naming the company (case-insensitive) or linking to its domain in the last 90 days.',
    recommendation: 'Reshare {company} posts with a line of your own on why they matter.',
    evidence_area: 'events',
    requires: 'activity',
    impact: 1,
    evaluate: (events, input) => {
      if (isBlank(input.company.name)) return UNKNOWN;
      return countRecentEvents(events, input.now, 90, 1, {
        types: ['repost'],
        content: (event) => eventMentionsCompany(event, input),
      });
    },
  },
];

function buildCheck(def: Def): CheckDefinition {
  const evaluate =
    def.requires === 'profile'
      ? (input: CheckInput): CheckResult => (input.profile === null ? UNKNOWN : def.evaluate(input.profile, input))
      : (input: CheckInput): CheckResult => (input.activity === null ? UNKNOWN : def.evaluate(input.activity, input));
  return Object.freeze({ ...def, id: catalogId(def.key), evidence_section: sectionOf(def.evidence_area), evaluate });
}

/** All checks, grouped by category in CATEGORIES order. */
export const CHECKS: readonly CheckDefinition[] = Object.freeze(
  CATEGORIES.flatMap((category) => checkDefs.filter((d) => d.category === category.key).map(buildCheck)),
);

if (CHECKS.length !== checkDefs.length) {
  throw new Error('check catalog: a check names a category that does not exist');
}

/** Evaluates every check in catalog order. Deterministic: same input, same findings. */
export function evaluateChecks(input: CheckInput): Finding[] {
  return CHECKS.map((check) => {
    const result = check.evaluate(input);
    return {
      check_id: check.id,
      check_key: check.key,
      category_key: check.category,
      outcome: result.outcome,
      observed: result.observed,
      recommendation: check.recommendation,
      source_section: check.evidence_section,
    };
  });
}
