import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { v5 as uuidv5, validate as uuidValidate, version as uuidVersion } from 'uuid';
import {
  CATALOG_NAMESPACE,
  CATALOG_VERSION,
  CATEGORIES,
  CHECKS,
  evaluateChecks,
  type CheckDefinition,
  type CheckInput,
} from '../../src/domain/checks/catalog.js';
import type { CollectedActivityEvent, CollectedProfile } from '../../src/domain/collected.js';

const NOW = new Date('2026-11-01T12:00:00Z');
const COMPANY: CheckInput['company'] = { name: 'Acme Inc.', domain: 'https://www.acme.com' };
const DAY = 86_400_000;

function check(key: string): CheckDefinition {
  const found = CHECKS.find((c) => c.key === key);
  assert.ok(found, `no check ${key}`);
  return found;
}

const GOOD_PROFILE: CollectedProfile = {
  name: 'Jane Doe',
  headline: 'Product Manager at ACME | developer tools for platform teams',
  about:
    'I lead product for the developer platform at Acme. ' +
    'For ten years I have helped engineering teams ship faster by turning what customers say into clear plans, short cycles and measurable results. ' +
    'Before Acme I worked in consulting and ran a small startup. Reach out if you want to compare notes on platform products.',
  location: 'Berlin, Germany',
  has_photo: true,
  has_banner: true,
  custom_url: true,
  connections: 812,
  followers: 2400,
  positions: [
    {
      title: 'Product Manager',
      company: 'Acme',
      start: '2022-03',
      end: null,
      description: 'Own the developer platform roadmap and its adoption.',
    },
    {
      title: 'Consultant',
      company: 'Globex',
      start: '2018-01',
      end: '2022-02',
      description: 'Advised retail clients on data platforms and pricing.',
    },
  ],
  skills: ['Product Strategy', 'SQL', 'User Research', 'Pricing', 'Go-to-Market'],
  featured_count: 2,
  education_count: 1,
  recommendations_received: 3,
  languages: ['English', 'German'],
  certifications_count: 1,
};

const POOR_PROFILE: CollectedProfile = {
  name: 'Jane',
  headline: '',
  about: '',
  location: '',
  has_photo: false,
  has_banner: false,
  custom_url: false,
  connections: 120,
  followers: 130,
  positions: [],
  skills: ['SQL'],
  featured_count: 0,
  education_count: 0,
  recommendations_received: 1,
  languages: [],
  certifications_count: 0,
};

const NULL_PROFILE: CollectedProfile = {
  name: null,
  headline: null,
  about: null,
  location: null,
  has_photo: null,
  has_banner: null,
  custom_url: null,
  connections: null,
  followers: null,
  positions: null,
  skills: null,
  featured_count: null,
  education_count: null,
  recommendations_received: null,
  languages: null,
  certifications_count: null,
};

let nextId = 0;
function event(type: CollectedActivityEvent['event_type'], daysAgo: number | null, extra: Partial<CollectedActivityEvent> = {}): CollectedActivityEvent {
  nextId++;
  return {
    external_id: `e${nextId}`,
    event_type: type,
    actor: { kind: 'person', url: 'https://pronet.example/in/jane-doe', name: 'Jane Doe' },
    source_url: `https://pronet.example/feed/update/e${nextId}`,
    text: type === 'reaction' ? null : 'Some thoughts on platform teams.',
    occurred_at: daysAgo === null ? null : new Date(NOW.getTime() - daysAgo * DAY).toISOString(),
    counts: { reactions: 10, comments: 2, reposts: 1 },
    ...extra,
  };
}

const GOOD_ACTIVITY: CollectedActivityEvent[] = [
  event('post', 3),
  event('post', 20),
  event('post', 45),
  event('post', 80),
  event('comment', 5),
  event('repost', 12, { text: 'Reposted from ACME: our platform launch' }),
  event('reaction', 2),
];

const POOR_ACTIVITY: CollectedActivityEvent[] = [
  event('post', 100, { counts: { reactions: 1, comments: 0, reposts: 0 } }),
  event('comment', 200),
  event('repost', 10, { text: 'Reposted from Globex: hiring!' }),
  event('reaction', 5),
];

function input(profile: CollectedProfile | null, activity: CollectedActivityEvent[] | null, company = COMPANY): CheckInput {
  return { profile, activity, company, now: NOW };
}

function outcomeOf(key: string, i: CheckInput) {
  return check(key).evaluate(i).outcome;
}

describe('check catalog: shape', () => {
  test('the catalog has at least 20 checks in at least 5 categories, and a version', () => {
    assert.ok(CHECKS.length >= 20, `${CHECKS.length} checks`);
    assert.ok(CATEGORIES.length >= 5, `${CATEGORIES.length} categories`);
    assert.match(CATALOG_VERSION, /^\d{4}-\d{2}-\d+$/);
  });

  test('keys and ids are unique across categories and checks', () => {
    const keys = [...CATEGORIES.map((c) => c.key), ...CHECKS.map((c) => c.key)];
    const ids = [...CATEGORIES.map((c) => c.id), ...CHECKS.map((c) => c.id)];
    assert.equal(new Set(keys).size, keys.length);
    assert.equal(new Set(ids).size, ids.length);
  });

  test('every id is the UUID v5 of its key under CATALOG_NAMESPACE', () => {
    assert.ok(uuidValidate(CATALOG_NAMESPACE));
    for (const item of [...CATEGORIES, ...CHECKS]) {
      assert.equal(item.id, uuidv5(item.key, CATALOG_NAMESPACE), item.key);
      assert.equal(uuidVersion(item.id), 5, item.key);
    }
  });

  test('the namespace and a known id never change (stored findings refer to them)', () => {
    assert.equal(CATALOG_NAMESPACE, '8ebc0af9-236f-46d3-956a-92066f9d11a4');
    assert.equal(check('identity.has_photo').id, '972e164a-7e71-550d-ac00-1261296ccec6');
  });

  test('every check belongs to a known category, checks are grouped in category order, and every category has a check', () => {
    const order = CATEGORIES.map((c) => c.key);
    let last = 0;
    for (const c of CHECKS) {
      const index = order.indexOf(c.category);
      assert.ok(index >= 0, `${c.key}: unknown category ${c.category}`);
      assert.ok(index >= last, `${c.key} is out of category order`);
      last = index;
      assert.ok(c.key.startsWith(`${c.category}.`), `${c.key} does not start with its category key`);
    }
    for (const key of order)
      assert.ok(
        CHECKS.some((c) => c.category === key),
        `category ${key} has no check`,
      );
  });

  test('every check has a title, a description, a non-empty recommendation, a valid evidence section and input', () => {
    const sections = new Set(['top_card', 'about', 'experience', 'skills', 'activity', null]);
    for (const c of CHECKS) {
      assert.ok(c.title.trim().length > 0, c.key);
      assert.ok(c.description.trim().length > 0, c.key);
      assert.ok(c.recommendation.trim().length > 0, c.key);
      assert.ok(sections.has(c.evidence_section), c.key);
      assert.ok(c.requires === 'profile' || c.requires === 'activity', c.key);
      assert.equal(c.requires === 'activity', c.category === 'activity', c.key);
    }
  });

  test('the catalog is immutable', () => {
    assert.ok(Object.isFrozen(CHECKS));
    assert.ok(Object.isFrozen(CATEGORIES));
    assert.ok(Object.isFrozen(CHECKS[0]));
  });
});

describe('check catalog: outcomes of every check', () => {
  const profileChecks = CHECKS.filter((c) => c.requires === 'profile');
  const activityChecks = CHECKS.filter((c) => c.requires === 'activity');

  test('a complete, strong profile and activity make every check good', () => {
    for (const c of CHECKS) {
      const result = c.evaluate(input(GOOD_PROFILE, GOOD_ACTIVITY));
      assert.equal(result.outcome, 'good', `${c.key} observed ${JSON.stringify(result.observed)}`);
      assert.notEqual(result.observed, null, c.key);
    }
  });

  test('an observed but weak profile and activity make every check optimize', () => {
    for (const c of CHECKS) {
      const result = c.evaluate(input(POOR_PROFILE, POOR_ACTIVITY));
      assert.equal(result.outcome, 'optimize', `${c.key} observed ${JSON.stringify(result.observed)}`);
    }
  });

  test('profile checks are unknown when the profile is null, activity checks when activity is null', () => {
    for (const c of profileChecks) assert.equal(c.evaluate(input(null, GOOD_ACTIVITY)).outcome, 'unknown', c.key);
    for (const c of activityChecks) assert.equal(c.evaluate(input(GOOD_PROFILE, null)).outcome, 'unknown', c.key);
    for (const c of CHECKS) assert.deepEqual(c.evaluate(input(null, null)), { outcome: 'unknown', observed: null }, c.key);
  });

  test('every profile check is unknown when each profile member is null (not observed)', () => {
    for (const c of profileChecks) assert.deepEqual(c.evaluate(input(NULL_PROFILE, [])), { outcome: 'unknown', observed: null }, c.key);
  });

  test('profile checks do not depend on activity, nor activity checks on the profile', () => {
    for (const c of profileChecks) {
      assert.deepEqual(c.evaluate(input(GOOD_PROFILE, null)), c.evaluate(input(GOOD_PROFILE, POOR_ACTIVITY)), c.key);
    }
    for (const c of activityChecks) {
      assert.deepEqual(c.evaluate(input(null, GOOD_ACTIVITY)), c.evaluate(input(POOR_PROFILE, GOOD_ACTIVITY)), c.key);
    }
  });
});

describe('check catalog: rules of individual checks', () => {
  test('company mentions are case-insensitive whole words, and ignore a legal-form suffix of the company name', () => {
    const headline = (text: string, name = 'Acme Inc.') =>
      outcomeOf('headline.mentions_company', input({ ...GOOD_PROFILE, headline: text }, null, { name, domain: null }));
    assert.equal(headline('Engineer at aCmE'), 'good');
    assert.equal(headline('Engineer at Acme Inc.'), 'good');
    assert.equal(headline('Engineer at Acmeville'), 'optimize');
    assert.equal(headline('Engineer at Globex'), 'optimize');
    assert.equal(headline('Data lead, Pied   Piper', 'pied piper'), 'good');
    assert.equal(headline('Ingénieure chez Société Générale', 'SOCIÉTÉ GÉNÉRALE'), 'good');
  });

  test('company-aware checks are unknown when the company name is blank', () => {
    const blank = { name: '  ', domain: null };
    for (const key of ['headline.mentions_company', 'about.mentions_company', 'experience.current_at_company', 'activity.reposts_company']) {
      assert.equal(outcomeOf(key, input(GOOD_PROFILE, GOOD_ACTIVITY, blank)), 'unknown', key);
    }
  });

  test('conflicting position dates make date-based experience checks unknown: start after end, end after now, start after now, malformed month', () => {
    const conflicts = [
      { title: 'PM', company: 'Acme', start: '2024-05', end: '2023-01', description: null },
      { title: 'PM', company: 'Acme', start: '2024-05', end: '2027-01', description: null },
      { title: 'PM', company: 'Acme', start: '2027-01', end: null, description: null },
      { title: 'PM', company: 'Acme', start: '2024-13', end: null, description: null },
    ];
    for (const position of conflicts) {
      const profile = { ...GOOD_PROFILE, positions: [position] };
      assert.equal(outcomeOf('experience.has_current_position', input(profile, null)), 'unknown', JSON.stringify(position));
      assert.equal(outcomeOf('experience.current_at_company', input(profile, null)), 'unknown', JSON.stringify(position));
    }
  });

  test('a current position at the company counts by employer or title; an unnamed current employer is undecidable', () => {
    const at = (positions: CollectedProfile['positions']) => outcomeOf('experience.current_at_company', input({ ...GOOD_PROFILE, positions }, null));
    assert.equal(at([{ title: 'Founder of ACME', company: null, start: null, end: null, description: null }]), 'good');
    assert.equal(at([{ title: 'Engineer', company: null, start: '2020-01', end: null, description: null }]), 'unknown');
    assert.equal(at([{ title: 'Engineer', company: 'Globex', start: '2020-01', end: null, description: null }]), 'optimize');
    assert.equal(at([{ title: 'Engineer', company: 'Acme', start: '2019-01', end: '2020-01', description: null }]), 'optimize');
    assert.equal(at([]), 'optimize');
  });

  test('negative or fractional counts are conflicting data: unknown', () => {
    assert.equal(outcomeOf('network.connections', input({ ...GOOD_PROFILE, connections: -5 }, null)), 'unknown');
    assert.equal(outcomeOf('about.featured_items', input({ ...GOOD_PROFILE, featured_count: 1.5 }, null)), 'unknown');
    const negative = [event('post', 1, { counts: { reactions: -1, comments: 3, reposts: 0 } })];
    assert.equal(outcomeOf('activity.posts_get_engagement', input(null, negative)), 'unknown');
  });

  test('headline length is good only between 40 and 220 characters', () => {
    const len = (n: number) => outcomeOf('headline.length', input({ ...GOOD_PROFILE, headline: 'x'.repeat(n) }, null));
    assert.deepEqual([39, 40, 220, 221].map(len), ['optimize', 'good', 'good', 'optimize']);
  });

  test('verified empty activity answers the counting checks (optimize) and leaves engagement unknown', () => {
    const findings = evaluateChecks(input(GOOD_PROFILE, []));
    const activity = Object.fromEntries(findings.filter((f) => f.category_key === 'activity').map((f) => [f.check_key, f.outcome]));
    assert.deepEqual(activity, {
      'activity.posted_recently': 'optimize',
      'activity.regular_posting': 'optimize',
      'activity.posts_get_engagement': 'unknown',
      'activity.comments_on_others': 'optimize',
      'activity.reposts_company': 'optimize',
    });
  });

  test('posted_recently: a post in the last 30 days is good, an older one optimize, an undated or unknown-type event unknown', () => {
    const recent = (events: CollectedActivityEvent[]) => outcomeOf('activity.posted_recently', input(null, events));
    assert.equal(recent([event('post', 29)]), 'good');
    assert.equal(recent([event('post', 31)]), 'optimize');
    assert.equal(recent([event('post', null)]), 'unknown');
    assert.equal(recent([event('post', 40), event('unknown', 3)]), 'unknown');
    assert.equal(recent([event('post', 40), event('unknown', 60)]), 'optimize');
    assert.equal(recent([event('post', 40, { occurred_at: 'yesterday' })]), 'unknown');
    assert.equal(recent([event('post', -30)]), 'unknown', 'a post dated a month in the future contradicts the observation time');
  });

  test("company-page actors never count as the person's activity (2.9 rule 2)", () => {
    const company = event('post', 1, { actor: { kind: 'company_page', url: 'https://pronet.example/company/acme', name: 'Acme' } });
    assert.equal(outcomeOf('activity.posted_recently', input(null, [company])), 'optimize');
    assert.equal(outcomeOf('activity.posts_get_engagement', input(null, [company])), 'unknown');
  });

  test('regular_posting needs four posts in 90 days and is unknown only when uncertain events could reach four', () => {
    const regular = (events: CollectedActivityEvent[]) => outcomeOf('activity.regular_posting', input(null, events));
    assert.equal(regular([event('post', 1), event('post', 30), event('post', 60), event('post', 89)]), 'good');
    assert.equal(regular([event('post', 1), event('post', 30), event('post', 60), event('post', 95)]), 'optimize');
    assert.equal(regular([event('post', 1), event('post', 30), event('post', 60), event('post', null)]), 'unknown');
  });

  test('engagement averages reactions plus comments over posts with known counts; null counts are unknown, not zero', () => {
    const engagement = (events: CollectedActivityEvent[]) => check('activity.posts_get_engagement').evaluate(input(null, events));
    assert.deepEqual(
      engagement([
        event('post', 1, { counts: { reactions: 4, comments: 2, reposts: null } }),
        event('post', 2, { counts: { reactions: 3, comments: 0, reposts: 0 } }),
      ]),
      { outcome: 'optimize', observed: 4.5 },
    );
    assert.deepEqual(
      engagement([
        event('post', 1, { counts: { reactions: 9, comments: 1, reposts: 0 } }),
        event('post', 2, { counts: { reactions: null, comments: 0, reposts: 0 } }),
      ]),
      {
        outcome: 'good',
        observed: 10,
      },
    );
    assert.deepEqual(engagement([event('post', 1, { counts: { reactions: null, comments: null, reposts: null } })]), {
      outcome: 'unknown',
      observed: null,
    });
  });

  test('reposts_company: text naming the company or a source link on its domain is good; a repost without text or link is unknown', () => {
    const shares = (events: CollectedActivityEvent[]) => outcomeOf('activity.reposts_company', input(null, events));
    assert.equal(shares([event('repost', 5, { text: 'Proud of the acme team' })]), 'good');
    assert.equal(shares([event('repost', 5, { text: 'Look at this', source_url: 'https://blog.acme.com/launch' })]), 'good');
    assert.equal(shares([event('repost', 5, { text: 'Look at this' })]), 'optimize');
    assert.equal(shares([event('repost', 5, { text: null, source_url: null })]), 'unknown');
    assert.equal(shares([event('repost', 120, { text: 'Proud of the acme team' })]), 'optimize');
  });

  test('comments_on_others counts comments of the last 90 days', () => {
    const comments = (events: CollectedActivityEvent[]) => outcomeOf('activity.comments_on_others', input(null, events));
    assert.equal(comments([event('comment', 89)]), 'good');
    assert.equal(comments([event('comment', 91), event('post', 1)]), 'optimize');
  });
});

describe('check catalog: evaluateChecks', () => {
  test('returns one finding per check in catalog order with the stored recommendation and evidence section', () => {
    const findings = evaluateChecks(input(GOOD_PROFILE, GOOD_ACTIVITY));
    assert.deepEqual(
      findings.map((f) => f.check_key),
      CHECKS.map((c) => c.key),
    );
    findings.forEach((f, i) => {
      const c = CHECKS[i];
      assert.equal(f.check_id, c.id);
      assert.equal(f.category_key, c.category);
      assert.equal(f.recommendation, c.recommendation);
      assert.equal(f.source_section, c.evidence_section);
      assert.deepEqual({ outcome: f.outcome, observed: f.observed }, c.evaluate(input(GOOD_PROFILE, GOOD_ACTIVITY)));
    });
  });

  test('recommendations are present even for good outcomes, and some carry a company placeholder', () => {
    const findings = evaluateChecks(input(GOOD_PROFILE, GOOD_ACTIVITY));
    assert.ok(findings.every((f) => f.outcome === 'good' && f.recommendation.length > 0));
    assert.ok(findings.some((f) => f.recommendation.includes('[company name]')));
    assert.ok(findings.some((f) => f.recommendation.includes('{company}')));
  });

  const month = fc.tuple(fc.integer({ min: 1990, max: 2030 }), fc.integer({ min: 1, max: 12 })).map(([y, m]) => `${y}-${String(m).padStart(2, '0')}`);
  const count = fc.option(fc.oneof(fc.integer({ min: -5, max: 100_000 }), fc.double({ noNaN: false })), { nil: null });
  const text = fc.option(fc.oneof(fc.string(), fc.constantFrom('Acme', 'ACME Inc', 'acmeville', '')), { nil: null });
  const profileArb: fc.Arbitrary<CollectedProfile> = fc.record({
    name: text,
    headline: text,
    about: text,
    location: text,
    has_photo: fc.option(fc.boolean(), { nil: null }),
    has_banner: fc.option(fc.boolean(), { nil: null }),
    custom_url: fc.option(fc.boolean(), { nil: null }),
    connections: count,
    followers: count,
    positions: fc.option(
      fc.array(
        fc.record({
          title: fc.string(),
          company: text,
          start: fc.option(fc.oneof(month, fc.string()), { nil: null }),
          end: fc.option(fc.oneof(month, fc.string()), { nil: null }),
          description: text,
        }),
        { maxLength: 6 },
      ),
      { nil: null },
    ),
    skills: fc.option(fc.array(fc.string(), { maxLength: 10 }), { nil: null }),
    featured_count: count,
    education_count: count,
    recommendations_received: count,
    languages: fc.option(fc.array(fc.string(), { maxLength: 4 }), { nil: null }),
    certifications_count: count,
  });
  const eventArb: fc.Arbitrary<CollectedActivityEvent> = fc.record({
    external_id: fc.string(),
    event_type: fc.constantFrom('post', 'repost', 'comment', 'reaction', 'unknown'),
    actor: fc.record({ kind: fc.constantFrom('person', 'company_page'), url: fc.webUrl(), name: text }),
    source_url: fc.option(fc.oneof(fc.webUrl(), fc.string()), { nil: null }),
    text,
    occurred_at: fc.option(
      fc.oneof(
        fc.date({ min: new Date('2025-01-01'), max: new Date('2027-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
        fc.string(),
      ),
      { nil: null },
    ),
    counts: fc.record({ reactions: count, comments: count, reposts: count }),
  });

  test('property: any collected data evaluates without throwing, deterministically, and unknown always has a null observation', () => {
    fc.assert(
      fc.property(
        fc.option(profileArb, { nil: null }),
        fc.option(fc.array(eventArb, { maxLength: 8 }), { nil: null }),
        fc.string(),
        fc.option(fc.oneof(fc.domain(), fc.string()), { nil: null }),
        (profile, activity, name, domain) => {
          const i = { profile, activity, company: { name, domain }, now: NOW };
          const findings = evaluateChecks(i);
          assert.equal(findings.length, CHECKS.length);
          assert.deepEqual(evaluateChecks(i), findings);
          for (const f of findings) {
            assert.ok(['good', 'optimize', 'unknown'].includes(f.outcome));
            if (f.outcome === 'unknown') assert.equal(f.observed, null);
            assert.ok(f.observed === null || ['string', 'number', 'boolean'].includes(typeof f.observed));
          }
        },
      ),
      { numRuns: 300, seed: 20261101 },
    );
  });
});
