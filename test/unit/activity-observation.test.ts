/**
 * Absence is never advice (domain/activity-observation.ts): a person's
 * activity counts as observed only when the collector returned a list with
 * no gap and read the activity section; every activity check is then
 * evaluated on it, and is `unknown` whenever the activity was not delivered,
 * could not be attributed or its collection failed. The summary says why in
 * a limitation of its own.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { activityObservation, withActivityObservation } from '../../src/domain/activity-observation.js';
import { applyContribution, emptyTotals, personContribution, type PersonFacts } from '../../src/domain/analysis-aggregate.js';
import { summarize, type SummaryInput } from '../../src/domain/analysis-summary.js';
import { CHECKS, evaluateChecks } from '../../src/domain/checks/catalog.js';
import type { ActivityGap, CollectResult } from '../../src/domain/collected.js';

type Collected = Extract<CollectResult, { outcome: 'ok' }>;

const NOW = new Date('2026-11-01T12:00:00Z');
const COMPANY = { name: 'Acme Inc.', domain: 'acme.com' };
const ACTIVITY_CHECKS = CHECKS.filter((c) => c.requires === 'activity');
const GAPS: ActivityGap[] = ['not_delivered', 'unattributable', 'failed'];

function collected(overrides: Partial<Collected> = {}): Collected {
  return {
    outcome: 'ok',
    profile: null,
    activity: [],
    company: null,
    screenshots: [],
    missing_sections: [],
    captured_at: NOW.toISOString(),
    ...overrides,
  };
}

/** Each activity check's outcome for what a person's activity item collected, as the finish evaluates it. */
function activityOutcomes(result: Collected): Record<string, string> {
  const seen = withActivityObservation(result, { kind: 'person', mode: 'activity' });
  const findings = evaluateChecks({ profile: null, activity: seen.activity, company: COMPANY, now: NOW });
  return Object.fromEntries(findings.filter((f) => f.category_key === 'activity').map((f) => [f.check_key, f.outcome]));
}

const ALL_UNKNOWN = Object.fromEntries(ACTIVITY_CHECKS.map((c) => [c.key, 'unknown']));

describe('absence is never advice: the activity checks', () => {
  test('the catalog has the five activity checks this rule covers', () => {
    assert.deepEqual(ACTIVITY_CHECKS.map((c) => c.key).sort(), [
      'activity.comments_on_others',
      'activity.posted_recently',
      'activity.posts_get_engagement',
      'activity.regular_posting',
      'activity.reposts_company',
    ]);
  });

  test('undelivered activity (null, no gap given) makes every activity check unknown', () => {
    assert.deepEqual(activityOutcomes(collected({ activity: null })), ALL_UNKNOWN);
  });

  test('undelivered activity (gap not_delivered) makes every activity check unknown', () => {
    assert.deepEqual(activityOutcomes(collected({ activity: null, activity_gap: 'not_delivered' })), ALL_UNKNOWN);
  });

  test('unattributable activity makes every activity check unknown', () => {
    assert.deepEqual(activityOutcomes(collected({ activity: null, activity_gap: 'unattributable' })), ALL_UNKNOWN);
  });

  test('failed activity collection makes every activity check unknown', () => {
    assert.deepEqual(activityOutcomes(collected({ activity: null, activity_gap: 'failed' })), ALL_UNKNOWN);
  });

  test('an empty list beside a gap is not an observation: every activity check is unknown', () => {
    for (const gap of GAPS) assert.deepEqual(activityOutcomes(collected({ activity: [], activity_gap: gap })), ALL_UNKNOWN, gap);
  });

  test('an empty list while the collector could not read the activity section is not an observation: every activity check is unknown', () => {
    assert.deepEqual(activityOutcomes(collected({ activity: [], missing_sections: ['activity'] })), ALL_UNKNOWN);
  });

  test('a positively empty list gives each activity check its verdict on "none"', () => {
    assert.deepEqual(activityOutcomes(collected({ activity: [] })), {
      'activity.posted_recently': 'optimize',
      'activity.regular_posting': 'optimize',
      // No post, so no post with known counts: the check's own rule says unknown.
      'activity.posts_get_engagement': 'unknown',
      'activity.comments_on_others': 'optimize',
      'activity.reposts_company': 'optimize',
    });
  });
});

describe('absence is never advice: the observation rule', () => {
  test('a list with no gap and the section read is observed, as it was', () => {
    const result = collected({ activity: [] });
    assert.deepEqual(activityObservation(result, { kind: 'person', mode: 'activity' }), { observed: true, events: [] });
    assert.equal(withActivityObservation(result, { kind: 'person', mode: 'activity' }), result);
  });

  test("a person's activity item that observed nothing is null, with its gap, and the activity section missing (a warning)", () => {
    for (const gap of GAPS) {
      const seen = withActivityObservation(collected({ activity: [], activity_gap: gap, missing_sections: ['about'] }), { kind: 'person', mode: 'activity' });
      assert.equal(seen.activity, null);
      assert.equal(seen.activity_gap, gap);
      assert.deepEqual(seen.missing_sections, ['about', 'activity']);
      assert.deepEqual(withActivityObservation(seen, { kind: 'person', mode: 'activity' }), seen, 'idempotent');
    }
    assert.equal(withActivityObservation(collected({ activity: null }), { kind: 'person', mode: 'activity' }).activity_gap, 'not_delivered');
  });

  test('activity not asked for (full_profile) is null with no gap', () => {
    const seen = withActivityObservation(collected({ activity: null }), { kind: 'person', mode: 'full_profile' });
    assert.equal(seen.activity, null);
    assert.equal(seen.activity_gap, undefined);
    assert.deepEqual(seen.missing_sections, []);
  });

  test("the company page's unobserved activity is null with no gap (it feeds no check)", () => {
    const seen = withActivityObservation(collected({ activity: null, activity_gap: 'failed' }), { kind: 'company_page', mode: 'activity' });
    assert.equal(seen.activity, null);
    assert.equal(seen.activity_gap, undefined);
  });
});

describe('absence is never advice: the summary says why', () => {
  const facts = (id: string, gap: ActivityGap | null, observed: boolean): PersonFacts => ({
    profileId: id,
    active: true,
    person: { pronet_url: `https://pronet.example/in/${id}`, name: null, title: null, headline: null },
    analysis: { revision: `r-${id}`, outcomes: { c1: 'good' } },
    full: { status: 'succeeded', warning: false },
    activity: { status: 'succeeded', warning: gap !== null },
    activityObserved: observed,
    activityGap: gap,
    events: {},
    latestScan: null,
  });
  function summaryOf(people: PersonFacts[]) {
    let totals = emptyTotals();
    for (const person of people) totals = applyContribution(totals, null, personContribution(person));
    const input: SummaryInput = {
      report: { id: 'r', name: 'n', archived: false, company: { name: 'Acme', domain: 'acme.com', pronet_url: 'https://pronet.example/company/acme' } },
      links: { workspace_url: 'https://x.example/', public_url: null },
      totals,
      observedContext: null,
      runs: [],
      captured: { oldest: null, newest: null },
      now: NOW,
    };
    const summary = summarize(input);
    return summary;
  }

  test('each gap has a limitation code and a plain message of its own, beside incomplete activity coverage', () => {
    const shown = summaryOf([
      facts('a', 'not_delivered', false),
      facts('b', 'unattributable', false),
      facts('c', 'failed', false),
      facts('d', null, true),
    ]).limitations;
    const codes = shown.map((l) => l.code);
    for (const code of ['incomplete_activity_coverage', 'activity_not_delivered', 'activity_unattributable', 'activity_collection_failed']) {
      assert.ok(codes.includes(code), code);
    }
    for (const l of shown) assert.ok(typeof l.message === 'string' && l.message.length > 20, l.code);
  });

  test('a latest activity attempt that observed nothing is not current, even beside an earlier observation', () => {
    const shown = summaryOf([facts('a', 'failed', true), facts('b', null, true)]);
    assert.equal(shown.freshness.state, 'stale');
    assert.deepEqual(shown.freshness.reasons, ['activity_collection_failed']);
    assert.deepEqual(summaryOf([facts('a', null, true), facts('b', null, true)]).freshness, { ...shown.freshness, state: 'current', reasons: [] });
  });

  test('no gap, no activity gap limitation', () => {
    const codes = summaryOf([facts('a', null, true), facts('b', null, true)]).limitations.map((l) => l.code);
    assert.deepEqual(
      codes.filter((c) => c.startsWith('activity_')),
      [],
    );
  });

  test('only the gaps that occur are said', () => {
    const codes = summaryOf([facts('a', 'unattributable', false), facts('b', null, true)]).limitations.map((l) => l.code);
    assert.deepEqual(
      codes.filter((c) => c.startsWith('activity_')),
      ['activity_unattributable'],
    );
  });
});
