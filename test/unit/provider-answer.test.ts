/**
 * The provider's answer schema (provider-answer.ts) without HTTP: the rules
 * of docs/collectors.md "Response", at their edges. The HTTP side of the same
 * rules (content type, UTF-8, size caps, one malformed case per rule):
 * test/unit/http-provider.test.ts.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CollectorError, type ItemKind } from '../../src/scanning/collectors/collector.js';
import { isRfc3339 } from '../../src/domain/rfc3339.js';
import { parseProviderAnswer } from '../../src/scanning/collectors/provider-answer.js';
import { PNG_1X1_BASE64, okAnswer } from '../support/fake-provider.js';

const PERSON_URL = 'https://pronet.example/in/ada-lovelace-42';

/** The fake provider's 'ok' answer for a person in activity mode, altered by `mutate`. */
function answer(mutate: (a: any) => void = () => {}, kind: ItemKind = 'person'): any {
  const a: any = okAnswer({ kind, mode: 'activity', url: kind === 'person' ? PERSON_URL : 'https://pronet.example/company/x' });
  mutate(a);
  return a;
}

function rejected(json: unknown, kind: ItemKind = 'person'): CollectorError {
  try {
    parseProviderAnswer(json, kind, 'activity');
  } catch (err) {
    assert.ok(err instanceof CollectorError, String(err));
    assert.equal(err.reason, 'provider returned a malformed answer');
    assert.equal(err.retryable, true);
    return err;
  }
  assert.fail('expected the answer to be rejected');
}

function accepted(json: unknown, kind: ItemKind = 'person') {
  const result = parseProviderAnswer(json, kind, 'activity');
  assert.equal(result.outcome, 'ok');
  return result;
}

test('the cause names the path of the first violation, never its value', () => {
  const cases: Array<[(a: any) => void, string]> = [
    [(a) => (a.status = 'done'), 'invalid status'],
    [(a) => (a.profile.connections = -1), 'invalid profile.connections'],
    [(a) => delete a.profile.headline, 'invalid profile.headline'],
    [(a) => (a.profile.positions[0].start = '2021-13'), 'invalid profile.positions[0].start'],
    [(a) => (a.profile.positions[1].end = '2018-01'), 'invalid profile.positions[1].end'],
    [(a) => (a.activity[0].occurred_at = 'secret 2024'), 'invalid activity[0].occurred_at'],
    [(a) => a.activity.push({ ...a.activity[0] }), 'invalid activity.external_id'],
    [(a) => (a.screenshots[0].media_type = 'image/jpeg'), 'invalid screenshots[0].media_type does not match the bytes'],
  ];
  for (const [mutate, detail] of cases) {
    const err = rejected(answer(mutate));
    assert.ok(err.cause instanceof Error);
    assert.equal(err.cause.message, detail);
  }
});

test('every member of an ok answer must be present (null is "not observed", absent is malformed)', () => {
  const members: Array<(a: any) => void> = [
    (a) => delete a.captured_at,
    (a) => delete a.profile,
    (a) => delete a.activity,
    (a) => delete a.company,
    (a) => delete a.missing_sections,
    (a) => delete a.screenshots,
    (a) => delete a.profile.certifications_count,
    (a) => delete a.profile.positions[0].description,
    (a) => delete a.activity[0].counts.reposts,
    (a) => delete a.activity[0].actor.name,
    (a) => delete a.activity[0].source_url,
  ];
  for (const mutate of members) rejected(answer(mutate));
  const nulls = accepted(
    answer((a) => {
      a.activity = null;
      for (const key of Object.keys(a.profile)) a.profile[key] = null;
    }),
  );
  assert.equal(nulls.activity, null);
  assert.equal(nulls.profile?.positions, null);
});

test('unknown members are dropped at every level, never copied', () => {
  const result = accepted(
    answer((a) => {
      a.extra = 'x';
      a.profile.internal_note = 'secret';
      a.profile.positions[0].salary = 1;
      a.activity[0].actor.email = 'ada@example.com';
      a.activity[0].counts.views = 9;
      a.screenshots[0].debug = true;
    }),
  );
  const text = JSON.stringify(result);
  for (const member of ['extra', 'internal_note', 'salary', 'email', 'views', 'debug']) assert.equal(text.includes(member), false, member);
  assert.deepEqual(Object.keys(result.screenshots[0]), ['section', 'media_type', 'bytes']);
});

test('inaccessible: a code-like reason is kept, other text is not; a blank or overlong reason is malformed', () => {
  assert.deepEqual(parseProviderAnswer({ status: 'inaccessible', reason: 'private_profile', note: 'x' }, 'person', 'activity'), {
    outcome: 'inaccessible',
    reason: 'provider: private_profile',
  });
  assert.deepEqual(parseProviderAnswer({ status: 'inaccessible', reason: 'Private profile' }, 'person', 'activity'), {
    outcome: 'inaccessible',
    reason: 'provider: inaccessible',
  });
  assert.deepEqual(parseProviderAnswer({ status: 'inaccessible', reason: `a${'b'.repeat(64)}` }, 'person', 'activity'), {
    outcome: 'inaccessible',
    reason: 'provider: inaccessible',
  });
  for (const reason of ['', ' \t\n\u00a0', 'x'.repeat(501), 7, null, undefined]) rejected({ status: 'inaccessible', reason });
  assert.equal(parseProviderAnswer({ status: 'inaccessible', reason: 'x'.repeat(500) }, 'person', 'activity').outcome, 'inaccessible');
});

test('profile belongs to person items, company to company pages', () => {
  rejected(
    answer((a) => (a.profile = answer().profile), 'company_page'),
    'company_page',
  );
  rejected(answer((a) => (a.company = { name: null, tagline: null, industry: null, follower_count: null, website: null })));
  assert.equal(
    accepted(
      answer(() => {}, 'company_page'),
      'company_page',
    ).company?.name,
    'Example Corp',
  );
});

test('lengths count UTF-16 code units: 100,000 for text, 512 for external_id, 2048 for URLs, 64 for sections', () => {
  accepted(answer((a) => (a.profile.about = 'x'.repeat(100_000))));
  rejected(answer((a) => (a.profile.about = 'x'.repeat(100_001))));
  // 50,001 astral characters are 100,002 code units.
  rejected(answer((a) => (a.activity[0].text = '\u{1F600}'.repeat(50_001))));
  accepted(answer((a) => (a.activity[0].external_id = 'e'.repeat(512))));
  rejected(answer((a) => (a.activity[0].external_id = 'e'.repeat(513))));
  rejected(answer((a) => (a.activity[0].external_id = '\u{1F600}'.repeat(257))));
  rejected(answer((a) => (a.activity[0].external_id = '  \n ')));
  const url = (length: number) => `https://pronet.example/${'p'.repeat(length - 'https://pronet.example/'.length)}`;
  accepted(answer((a) => (a.activity[0].source_url = url(2048))));
  rejected(answer((a) => (a.activity[0].source_url = url(2049))));
  accepted(answer((a) => (a.missing_sections = ['a'.repeat(64)])));
  rejected(answer((a) => (a.missing_sections = ['a'.repeat(65)])));
});

test('missing_sections: distinct snake_case codes', () => {
  for (const sections of [['about', 'about'], ['About'], ['1about'], ['top-card'], [''], [3]]) {
    rejected(answer((a) => (a.missing_sections = sections)));
  }
  assert.deepEqual(accepted(answer((a) => (a.missing_sections = ['top_card', 'evidence_2']))).missing_sections, ['top_card', 'evidence_2']);
});

test('counts are non-negative safe integers or null', () => {
  for (const value of [-1, 1.5, '3', true, 2 ** 53, 1e300]) rejected(answer((a) => (a.profile.followers = value)));
  assert.equal(accepted(answer((a) => (a.profile.followers = Number.MAX_SAFE_INTEGER))).profile?.followers, Number.MAX_SAFE_INTEGER);
  assert.equal(accepted(answer((a) => (a.activity[0].counts.comments = 0))).activity?.[0].counts.comments, 0);
});

test('positions: months are YYYY-MM; an end equal to the start is allowed, an earlier one is not', () => {
  for (const month of ['2021-00', '2021-1', '21-01', '2021-01-01', '']) rejected(answer((a) => (a.profile.positions[0].start = month)));
  accepted(answer((a) => (a.profile.positions[1].end = '2019-06')));
  rejected(answer((a) => (a.profile.positions[1].end = '2019-05')));
  rejected(answer((a) => (a.profile.positions[0].title = null)));
});

test('URLs are http(s); other schemes and non-URLs are malformed', () => {
  for (const value of ['javascript:alert(1)', 'ftp://pronet.example/x', 'pronet.example/in/x', '']) {
    rejected(answer((a) => (a.activity[0].actor.url = value)));
    rejected(answer((a) => (a.activity[0].source_url = value)));
  }
  accepted(answer((a) => (a.activity[0].actor.url = 'http://pronet.example/in/x')));
});

test('RFC 3339 instants: a real calendar date and an explicit offset', () => {
  for (const value of [
    '2024-05-01T12:00:00Z',
    '2024-05-01t12:00:00z',
    '2024-02-29T00:00:00+05:30',
    '2024-05-01T23:59:60.123-08:00',
    '2024-05-01T12:00:00.5Z',
  ]) {
    assert.equal(isRfc3339(value), true, value);
    accepted(answer((a) => (a.captured_at = value)));
  }
  for (const value of [
    '2023-02-29T12:00:00Z',
    '2024-04-31T12:00:00Z',
    '2024-05-01 12:00:00Z',
    '2024-05-01T12:00:00',
    '2024-05-01T24:00:00Z',
    '2024-05-01T12:00:00+24:00',
    '2024-05-01T12:00:00+05:60',
    '2024-13-01T12:00:00Z',
  ]) {
    assert.equal(isRfc3339(value), false, value);
    rejected(answer((a) => (a.activity[0].occurred_at = value)));
  }
});

test('screenshots: canonical padded base64 whose bytes carry the signature of their media type', () => {
  const png = Buffer.from(PNG_1X1_BASE64, 'base64');
  // The same bytes, but the last character's unused bits set: Node decodes it, it is not canonical.
  const last = PNG_1X1_BASE64.at(-3)!;
  const sloppy = `${PNG_1X1_BASE64.slice(0, -3)}${String.fromCharCode(last.charCodeAt(0) + 1)}==`;
  assert.deepEqual(Buffer.from(sloppy, 'base64'), png);
  rejected(answer((a) => (a.screenshots[0].data_base64 = sloppy)));
  rejected(answer((a) => (a.screenshots[0].data_base64 = PNG_1X1_BASE64.replace(/=+$/, ''))));
  rejected(answer((a) => (a.screenshots[0].media_type = 'image/gif')));
  rejected(answer((a) => (a.screenshots[0].section = 'footer')));
  assert.deepEqual(accepted(answer()).screenshots[0].bytes, png);
});

test('activity: null in activity mode is not observed (gap not_delivered), never an empty list', () => {
  const result = accepted(answer((a) => (a.activity = null)));
  assert.ok(result.outcome === 'ok');
  assert.equal(result.activity, null);
  assert.equal(result.activity_gap, 'not_delivered');
  assert.ok(result.missing_sections.includes('activity'), 'the activity section is missing: the item is a warning');
});

test("activity_gap says why the activity is null, and is kept as the provider's reason", () => {
  for (const gap of ['not_delivered', 'unattributable', 'failed']) {
    const result = accepted(
      answer((a) => {
        a.activity = null;
        a.activity_gap = gap;
      }),
    );
    assert.ok(result.outcome === 'ok');
    assert.equal(result.activity, null);
    assert.equal(result.activity_gap, gap);
  }
});

test('activity_gap beside a list, or of an unknown value, is malformed', () => {
  assert.equal((rejected(answer((a) => (a.activity_gap = 'failed'))).cause as Error).message, 'invalid activity_gap');
  assert.equal(
    (
      rejected(
        answer((a) => {
          a.activity = [];
          a.activity_gap = 'not_delivered';
        }),
      ).cause as Error
    ).message,
    'invalid activity_gap',
  );
  rejected(
    answer((a) => {
      a.activity = null;
      a.activity_gap = 'lost';
    }),
  );
});

test('activity: [] is a positively observed absence, kept as it is', () => {
  const result = accepted(answer((a) => (a.activity = [])));
  assert.ok(result.outcome === 'ok');
  assert.deepEqual(result.activity, []);
  assert.equal(result.activity_gap, undefined);
});

test('activity: null in full_profile mode was not asked for: no gap', () => {
  const json = okAnswer({ kind: 'person', mode: 'full_profile', url: PERSON_URL });
  const result = parseProviderAnswer(json, 'person', 'full_profile');
  assert.ok(result.outcome === 'ok');
  assert.equal(result.activity, null);
  assert.equal(result.activity_gap, undefined);
});
