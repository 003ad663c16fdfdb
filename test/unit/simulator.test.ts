/**
 * The simulator (decisions "Collectors"): deterministic data, magic URLs, and
 * the evidence cards the scanning layer renders from its data (the simulator
 * renders nothing itself; evidence-cards.test.ts tests the cards as such).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { CHECKS, evaluateChecks } from '../../src/domain/checks/catalog.js';
import { CollectorError, type CollectRequest } from '../../src/scanning/collectors/collector.js';
import type { CollectResult } from '../../src/domain/collected.js';
import { SIMULATOR_REFERENCE_TIME, SimulatorCollector } from '../../src/scanning/collectors/simulator/index.js';
import { cardSvgs, renderEvidenceCards } from '../../src/scanning/evidence-cards/render-cards.js';

const sim = new SimulatorCollector({ delayMs: 0 });
const COMPANY = { name: 'Acme', domain: 'acme.example' };

function request(url: string, mode: CollectRequest['mode'] = 'full_profile', kind: CollectRequest['kind'] = 'person', attempt = 1): CollectRequest {
  return { kind, mode, url, attempt, signal: new AbortController().signal };
}

function ok(result: CollectResult): Extract<CollectResult, { outcome: 'ok' }> {
  assert.equal(result.outcome, 'ok');
  return result;
}

/** 200 ordinary profile URLs of the shapes people paste: name slugs, slugs with ids, opaque ids. */
const FIRST = ['ada', 'noah', 'mia', 'liam', 'sofia', 'omar', 'yuki', 'elena', 'kwame', 'priya'];
const LAST = ['okafor', 'lindqvist', 'moreau', 'tanaka', 'haddad', 'novak', 'silva', 'rossi', 'nguyen', 'park'];
const ORDINARY_URLS = Array.from({ length: 200 }, (_, i) => {
  const name = `${FIRST[i % 10]}-${LAST[Math.floor(i / 10) % 10]}`;
  if (i % 4 === 1) return `https://pronet.example/in/${name}-${(i * 7919).toString(16)}`;
  if (i % 4 === 3) return `https://pronet.example/in/ACwAA${(i * 104729).toString(36)}/`;
  return `https://pronet.example/in/${name}${i >= 100 ? `-${i}` : ''}`;
});

type Ok = Extract<CollectResult, { outcome: 'ok' }>;
let collected: Promise<Array<{ url: string; full: Ok; activity: Ok }>> | undefined;
/** Both modes for every ordinary URL, collected once and shared by the tests that only read them. */
function collectOrdinary() {
  collected ??= (async () => {
    const rows = [];
    for (const url of ORDINARY_URLS) {
      rows.push({
        url,
        full: ok(await sim.collect(request(url, 'full_profile'))),
        activity: ok(await sim.collect(request(url, 'activity'))),
      });
    }
    return rows;
  })();
  return collected;
}

describe('simulator: determinism', () => {
  test('the same request gives an identical result, captured_at included, across instances; data only, no screenshots or linked images', async () => {
    for (const mode of ['full_profile', 'activity'] as const) {
      const a = ok(await sim.collect(request('https://pronet.example/in/jane-doe', mode)));
      const b = ok(await new SimulatorCollector({ delayMs: 0 }).collect(request('https://pronet.example/in/jane-doe', mode, 'person', 3)));
      assert.deepEqual(a, b);
      assert.deepEqual(a.screenshots, []);
      assert.equal(a.linked_images, undefined);
    }
  });

  test('captured_at is derived from the URL, not the clock: within 72 hours before the reference time', async () => {
    const reference = Date.parse(SIMULATOR_REFERENCE_TIME);
    for (const { url, full, activity } of await collectOrdinary()) {
      for (const captured of [Date.parse(full.captured_at), Date.parse(activity.captured_at)]) {
        assert.ok(captured <= reference && captured >= reference - 72 * 3_600_000, url);
      }
    }
    const shifted = new SimulatorCollector({ delayMs: 0, referenceTime: '2030-01-01T00:00:00Z' });
    const a = ok(await sim.collect(request(ORDINARY_URLS[0])));
    const b = ok(await shifted.collect(request(ORDINARY_URLS[0])));
    assert.equal(Date.parse(SIMULATOR_REFERENCE_TIME) - Date.parse(a.captured_at), Date.parse('2030-01-01T00:00:00Z') - Date.parse(b.captured_at));
  });

  test('the profile is the same in both modes, and different URLs give different people', async () => {
    const full = ok(await sim.collect(request('https://pronet.example/in/jane-doe', 'full_profile')));
    const activity = ok(await sim.collect(request('https://pronet.example/in/jane-doe', 'activity')));
    assert.deepEqual(full.profile, activity.profile);
    const other = ok(await sim.collect(request('https://pronet.example/in/john-roe', 'full_profile')));
    assert.notDeepEqual(full.profile, other.profile);
  });

  test('property: arbitrary profile URLs never throw (except failing-…) and stay deterministic', async () => {
    const urls = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.string(),
      fc.webPath().map((p) => `https://pronet.example/in${p}`),
    );
    await fc.assert(
      fc.asyncProperty(urls, fc.constantFrom('full_profile', 'activity'), fc.constantFrom('person', 'company_page'), async (url, mode, kind) => {
        const run = () =>
          sim.collect(request(url, mode, kind)).then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          );
        const first = await run();
        const second = await run();
        if ('error' in first) {
          assert.ok(first.error instanceof CollectorError, String(first.error));
          assert.equal(first.error.reason, 'simulated failure');
          assert.ok(url.toLowerCase().includes('failing-'), url);
          assert.ok('error' in second && second.error instanceof CollectorError);
        } else {
          assert.ok('value' in second);
          assert.deepEqual(first.value, second.value);
        }
      }),
      { numRuns: 25, seed: 7 },
    );
  });
});

describe('simulator: magic URLs (last non-empty path segment, case-insensitive)', () => {
  test('inaccessible-… is inaccessible in both modes and kinds', async () => {
    for (const url of [
      'https://pronet.example/in/inaccessible-jane',
      'https://pronet.example/in/INACCESSIBLE-Jane/',
      'https://pronet.example/company/Inaccessible-corp?x=1',
    ]) {
      for (const mode of ['full_profile', 'activity'] as const) {
        const result = await sim.collect(request(url, mode, url.includes('/company/') ? 'company_page' : 'person'));
        assert.equal(result.outcome, 'inaccessible', url);
        assert.ok(result.outcome === 'inaccessible' && result.reason.length > 0);
      }
    }
  });

  test('failing-… throws a retryable CollectorError on every attempt', async () => {
    for (const attempt of [1, 2, 3, 10]) {
      await assert.rejects(sim.collect(request('https://pronet.example/in/Failing-bob', 'activity', 'person', attempt)), (error: unknown) => {
        assert.ok(error instanceof CollectorError);
        assert.equal(error.reason, 'simulated failure');
        assert.equal(error.retryable, true);
        return true;
      });
    }
    await assert.rejects(sim.collect(request('https://pronet.example/company/failing-corp', 'activity', 'company_page')), CollectorError);
  });

  test('quiet-… gives a normal profile and verified empty activity in activity mode', async () => {
    const activity = ok(await sim.collect(request('https://pronet.example/in/quiet-bob-smith', 'activity')));
    assert.deepEqual(activity.activity, []);
    assert.equal(activity.profile?.name, 'Bob Smith');
    // Verified empty activity still gets its card ("No recent activity.").
    assert.deepEqual(
      cardSvgs({ kind: 'person', mode: 'activity' }, activity).map((c) => c.section),
      ['activity'],
    );
    const full = ok(await sim.collect(request('https://pronet.example/in/QUIET-bob-smith', 'full_profile')));
    assert.equal(full.activity, null);
    assert.ok(full.profile !== null);
  });

  test('undelivered-…, unattributable-…, activityfail-… give a normal profile and, in activity mode, no activity with its gap', async () => {
    const cases = [
      ['undelivered-bob-smith', 'not_delivered'],
      ['Unattributable-bob-smith', 'unattributable'],
      ['activityfail-bob-smith', 'failed'],
    ] as const;
    for (const [slug, gap] of cases) {
      const activity = ok(await sim.collect(request(`https://pronet.example/in/${slug}`, 'activity')));
      assert.equal(activity.activity, null, slug);
      assert.equal(activity.activity_gap, gap, slug);
      assert.ok(activity.missing_sections.includes('activity'), slug);
      assert.equal(activity.profile?.name, 'Bob Smith', slug);
      // Not observed: no activity card (a card would say "No recent activity.").
      assert.deepEqual(
        cardSvgs({ kind: 'person', mode: 'activity' }, activity).map((c) => c.section),
        [],
      );
      const full = ok(await sim.collect(request(`https://pronet.example/in/${slug}`, 'full_profile')));
      assert.equal(full.activity, null, slug);
      assert.equal(full.activity_gap, undefined, 'full_profile mode does not ask for activity');
      assert.equal(full.profile?.name, 'Bob Smith', slug);
    }
    // The prefixes name a person's activity: a company page with such a name is ordinary.
    const company = ok(await sim.collect(request('https://pronet.example/company/undelivered-corp', 'activity', 'company_page')));
    assert.ok(company.activity !== null && company.activity_gap === undefined);
  });

  test('a magic word in an earlier segment, or not as a prefix, is ordinary', async () => {
    for (const url of ['https://pronet.example/inaccessible-x/jane-doe', 'https://pronet.example/in/jane-failing-doe', 'https://pronet.example/in/quiet']) {
      const result = ok(await sim.collect(request(url, 'activity')));
      assert.ok((result.activity?.length ?? 0) >= 1, url);
    }
  });
});

describe('simulator: ordinary people', () => {
  test('the name comes from a first-last slug', async () => {
    assert.equal(ok(await sim.collect(request('https://pronet.example/in/jane-doe'))).profile?.name, 'Jane Doe');
    assert.equal(ok(await sim.collect(request('https://pronet.example/in/mary-ann-smith-42a1b'))).profile?.name, 'Mary Ann Smith');
  });

  test('each of 200 people: full_profile has a name and cards for the top card and every section observed and not missing; activity mode has ≥1 event and its card', async () => {
    for (const { url, full, activity } of await collectOrdinary()) {
      const sections = cardSvgs({ kind: 'person', mode: 'full_profile' }, full).map((c) => c.section);
      const p = full.profile!;
      const observed = { top_card: true, about: p.about !== null || p.featured_count !== null, experience: p.positions !== null, skills: p.skills !== null };
      const expected = Object.keys(observed).filter((s) => observed[s as keyof typeof observed] && !full.missing_sections.includes(s));
      assert.deepEqual(sections, expected, url);
      assert.equal(full.activity, null);
      assert.ok(full.profile !== null && full.profile.name !== null, url);
      const positions = full.profile.positions;
      assert.ok(positions === null || positions.length <= 6, url);

      assert.ok(activity.activity !== null && activity.activity.length >= 1 && activity.activity.length <= 12, url);
      assert.ok(activity.activity.every((e) => e.actor.kind === 'person' && e.actor.url === url));
      assert.equal(new Set(activity.activity.map((e) => e.external_id)).size, activity.activity.length);
      assert.deepEqual(
        cardSvgs({ kind: 'person', mode: 'activity' }, activity).map((c) => c.section),
        ['activity'],
      );
    }
  });

  test('each of 200 people, in each mode, has a card that is evidence for a check answered good or optimize', async () => {
    for (const row of await collectOrdinary()) {
      for (const mode of ['full', 'activity'] as const) {
        const { url } = row;
        const result = row[mode];
        const cards = cardSvgs({ kind: 'person', mode: mode === 'full' ? 'full_profile' : 'activity' }, result);
        const findings = evaluateChecks({
          profile: result.profile,
          activity: result.activity,
          company: COMPANY,
          now: new Date(result.captured_at),
        });
        const answeredSections = new Set(findings.filter((f) => f.outcome !== 'unknown').map((f) => f.source_section));
        assert.ok(
          cards.some((c) => answeredSections.has(c.section as never)),
          `${url} ${mode}: ${cards.map((c) => c.section)}`,
        );
      }
    }
  });

  test('across 200 people every check is answered for someone, and good, optimize and unknown all occur', async () => {
    const seen = new Map<string, Set<string>>(CHECKS.map((c) => [c.key, new Set()]));
    for (const { full, activity } of await collectOrdinary()) {
      const now = new Date(activity.captured_at);
      for (const f of evaluateChecks({ profile: full.profile, activity: activity.activity, company: COMPANY, now })) seen.get(f.check_key)!.add(f.outcome);
    }
    for (const [key, outcomes] of seen) {
      assert.ok(outcomes.has('optimize') || outcomes.has('good'), `${key} is never answered`);
    }
    const all = new Set([...seen.values()].flatMap((s) => [...s]));
    assert.deepEqual([...all].sort(), ['good', 'optimize', 'unknown']);
  });

  test('about one in ten people reports a missing section, whose data is null and has no card', async () => {
    let warnings = 0;
    for (const { url, full, activity } of await collectOrdinary()) {
      assert.deepEqual(activity.missing_sections, full.missing_sections, url);
      assert.ok(full.missing_sections.length <= 1);
      const missing = full.missing_sections[0];
      if (missing === undefined) continue;
      warnings++;
      assert.ok(!cardSvgs({ kind: 'person', mode: 'full_profile' }, full).some((c) => c.section === missing), url);
      const field = { about: full.profile?.about, experience: full.profile?.positions, skills: full.profile?.skills }[missing as 'about'];
      assert.equal(field, null, `${url}: ${missing}`);
    }
    assert.ok(warnings >= 5 && warnings <= 50, `${warnings} of 200`);
  });
});

describe('simulator: its cards (rendered by the scanning layer from its data)', () => {
  test('every card is byte-identical when rendered again, and different people or sections give different cards', async () => {
    const urls = [...ORDINARY_URLS.slice(0, 6), 'https://pronet.example/in/quiet-bob-smith'];
    const seen = new Set<string>();
    let total = 0;
    for (const url of urls) {
      for (const mode of ['full_profile', 'activity'] as const) {
        const first = await renderEvidenceCards({ kind: 'person', mode }, ok(await sim.collect(request(url, mode))));
        const again = await renderEvidenceCards({ kind: 'person', mode }, ok(await new SimulatorCollector({ delayMs: 0 }).collect(request(url, mode))));
        assert.deepEqual(
          again.map((c) => [c.section, c.media_type]),
          first.map((c) => [c.section, c.media_type]),
        );
        first.forEach((card, i) => {
          assert.ok(card.bytes.equals(again[i].bytes), `${url} ${mode} ${card.section}`);
          seen.add(createHash('sha256').update(card.bytes).digest('hex'));
        });
        total += first.length;
      }
    }
    const company = 'https://pronet.example/company/acme-corp';
    const [a] = await renderEvidenceCards({ kind: 'company_page', mode: 'activity' }, ok(await sim.collect(request(company, 'activity', 'company_page'))));
    const [b] = await renderEvidenceCards({ kind: 'company_page', mode: 'activity' }, ok(await sim.collect(request(company, 'activity', 'company_page'))));
    assert.ok(a.bytes.equals(b.bytes));
    assert.equal(seen.size, total, 'no two cards of different people or sections are the same image');
  });
});

describe('simulator: company pages', () => {
  test('a company page gives company identity, company-page-actor posts in activity mode and a company card', async () => {
    const url = 'https://pronet.example/company/acme-corp';
    const result = ok(await sim.collect(request(url, 'activity', 'company_page')));
    assert.equal(result.profile, null);
    assert.equal(result.company?.name, 'Acme Corp');
    assert.ok(result.activity !== null && result.activity.length >= 1);
    assert.ok(result.activity.every((e) => e.actor.kind === 'company_page' && e.actor.url === url));
    assert.deepEqual(
      cardSvgs({ kind: 'company_page', mode: 'activity' }, result).map((c) => c.section),
      ['company'],
    );
    const quiet = ok(await sim.collect(request('https://pronet.example/company/quiet-corp', 'activity', 'company_page')));
    assert.deepEqual(quiet.activity, []);
    assert.equal(quiet.company?.name, 'Corp');
  });
});

describe('simulator: delay and abort', () => {
  test('delayMs sleeps per call', async () => {
    const slow = new SimulatorCollector({ delayMs: 60 });
    const started = performance.now();
    ok(await slow.collect(request('https://pronet.example/in/jane-doe')));
    assert.ok(performance.now() - started >= 55);
  });

  test('an abort during the delay rejects at once with a retryable CollectorError; an aborted signal rejects before work', async () => {
    const slow = new SimulatorCollector({ delayMs: 60_000 });
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(slow.collect({ ...request('https://pronet.example/in/jane-doe'), signal: controller.signal }), (error: unknown) => {
      assert.ok(error instanceof CollectorError && error.retryable);
      return true;
    });
    assert.ok(performance.now() - started < 5_000);
    await assert.rejects(sim.collect({ ...request('https://pronet.example/in/jane-doe'), signal: AbortSignal.abort() }), CollectorError);
  });

  test('a negative delay is refused', () => {
    assert.throws(() => new SimulatorCollector({ delayMs: -1 }), RangeError);
  });
});
