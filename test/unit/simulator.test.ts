import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import { CHECKS, evaluateChecks } from '../../src/domain/checks/catalog.js';
import { CollectorError, type CollectRequest } from '../../src/scanning/collectors/collector.js';
import type { CollectResult } from '../../src/domain/collected.js';
import { SIMULATOR_REFERENCE_TIME, SimulatorCollector } from '../../src/scanning/collectors/simulator/index.js';
import {
  aboutSvg,
  activitySvg,
  companySvg,
  escapeXml,
  experienceSvg,
  SCREENSHOT_PIXELS,
  skillsSvg,
  topCardSvg,
  wrap,
} from '../../src/scanning/collectors/simulator/screenshots.js';

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
  test('the same request gives a byte-identical result, screenshots and captured_at included, across instances', async () => {
    for (const mode of ['full_profile', 'activity'] as const) {
      const a = ok(await sim.collect(request('https://pronet.example/in/jane-doe', mode)));
      const b = ok(await new SimulatorCollector({ delayMs: 0 }).collect(request('https://pronet.example/in/jane-doe', mode, 'person', 3)));
      assert.deepEqual(a, b);
      assert.equal(a.screenshots.length, b.screenshots.length);
      a.screenshots.forEach((s, i) => assert.ok(s.bytes.equals(b.screenshots[i].bytes), `${mode} ${s.section}`));
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
    assert.deepEqual(
      activity.screenshots.map((s) => s.section),
      ['activity'],
    );
    const full = ok(await sim.collect(request('https://pronet.example/in/QUIET-bob-smith', 'full_profile')));
    assert.equal(full.activity, null);
    assert.ok(full.profile !== null);
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

  test('each of 200 people: full_profile has a top_card screenshot plus 1-3 others; activity mode has ≥1 event and an activity screenshot', async () => {
    for (const { url, full, activity } of await collectOrdinary()) {
      const sections = full.screenshots.map((s) => s.section);
      assert.equal(sections[0], 'top_card', url);
      assert.ok(sections.length >= 2 && sections.length <= 4, `${url}: ${sections}`);
      assert.equal(new Set(sections).size, sections.length);
      assert.ok(
        sections.slice(1).every((s) => ['about', 'experience', 'skills'].includes(s)),
        url,
      );
      assert.equal(full.activity, null);
      assert.ok(full.profile !== null && full.profile.name !== null, url);
      const positions = full.profile.positions;
      assert.ok(positions === null || positions.length <= 6, url);

      assert.ok(activity.activity !== null && activity.activity.length >= 1 && activity.activity.length <= 12, url);
      assert.ok(activity.activity.every((e) => e.actor.kind === 'person' && e.actor.url === url));
      assert.equal(new Set(activity.activity.map((e) => e.external_id)).size, activity.activity.length);
      assert.deepEqual(
        activity.screenshots.map((s) => s.section),
        ['activity'],
      );
      for (const s of [...full.screenshots, ...activity.screenshots]) assert.ok(s.bytes.length < 200 * 1024, `${url} ${s.section}`);
    }
  });

  test('each of 200 people, in each mode, has a screenshot that is evidence for a check answered good or optimize', async () => {
    for (const row of await collectOrdinary()) {
      for (const mode of ['full', 'activity'] as const) {
        const { url } = row;
        const result = row[mode];
        const findings = evaluateChecks({
          profile: result.profile,
          activity: result.activity,
          company: COMPANY,
          now: new Date(result.captured_at),
        });
        const answeredSections = new Set(findings.filter((f) => f.outcome !== 'unknown').map((f) => f.source_section));
        assert.ok(
          result.screenshots.some((s) => answeredSections.has(s.section as never)),
          `${url} ${mode}: ${result.screenshots.map((s) => s.section)}`,
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

  test('about one in ten people reports a missing section, whose data is null and has no screenshot', async () => {
    let warnings = 0;
    for (const { url, full, activity } of await collectOrdinary()) {
      assert.deepEqual(activity.missing_sections, full.missing_sections, url);
      assert.ok(full.missing_sections.length <= 1);
      const missing = full.missing_sections[0];
      if (missing === undefined) continue;
      warnings++;
      assert.ok(!full.screenshots.some((s) => s.section === missing), url);
      const field = { about: full.profile?.about, experience: full.profile?.positions, skills: full.profile?.skills }[missing as 'about'];
      assert.equal(field, null, `${url}: ${missing}`);
    }
    assert.ok(warnings >= 5 && warnings <= 50, `${warnings} of 200`);
  });

  test('screenshots are real images: they decode as the declared type (PNG, or JPEG for activity) at their raster size (640x360)', async () => {
    const types = new Set<string>();
    const company = 'https://pronet.example/company/acme-corp';
    const results = [
      ...(await collectOrdinary()).slice(0, 15).flatMap((row) => [row.full, row.activity]),
      ok(await sim.collect(request(company, 'full_profile', 'company_page'))),
      ok(await sim.collect(request(company, 'activity', 'company_page'))),
    ];
    {
      for (const result of results) {
        const url = result.profile?.name ?? result.company?.name;
        for (const s of result.screenshots) {
          assert.equal((await fileTypeFromBuffer(s.bytes))?.mime, s.media_type, `${url} ${s.section}`);
          types.add(s.media_type);
          const { info } = await sharp(s.bytes).raw().toBuffer({ resolveWithObject: true });
          assert.equal((await sharp(s.bytes).metadata()).format, s.media_type === 'image/png' ? 'png' : 'jpeg');
          assert.deepEqual([info.width, info.height], [SCREENSHOT_PIXELS.width, SCREENSHOT_PIXELS.height]);
          if (s.section === 'activity') assert.equal(s.media_type, 'image/jpeg');
        }
      }
    }
    assert.deepEqual([...types].sort(), ['image/jpeg', 'image/png']);
  });
});

describe('simulator: screenshots show the section as text (SVG through sharp)', () => {
  const look = { url: 'https://pronet.example/in/jane-doe' };
  async function janeDoe() {
    const full = ok(await sim.collect(request(look.url, 'full_profile')));
    const activity = ok(await sim.collect(request(look.url, 'activity')));
    return { profile: full.profile!, events: activity.activity! };
  }

  test('every screenshot is byte-identical when collected again, and different people give different screenshots', async () => {
    const urls = [...ORDINARY_URLS.slice(0, 6), 'https://pronet.example/in/quiet-bob-smith'];
    const seen = new Set<string>();
    for (const url of urls) {
      for (const mode of ['full_profile', 'activity'] as const) {
        const first = ok(await sim.collect(request(url, mode)));
        const again = ok(await new SimulatorCollector({ delayMs: 0 }).collect(request(url, mode)));
        assert.deepEqual(
          again.screenshots.map((s) => [s.section, s.media_type]),
          first.screenshots.map((s) => [s.section, s.media_type]),
        );
        first.screenshots.forEach((s, i) => {
          assert.ok(s.bytes.equals(again.screenshots[i].bytes), `${url} ${mode} ${s.section}`);
          seen.add(createHash('sha256').update(s.bytes).digest('hex'));
        });
      }
    }
    const company = 'https://pronet.example/company/acme-corp';
    const a = ok(await sim.collect(request(company, 'activity', 'company_page')));
    const b = ok(await new SimulatorCollector({ delayMs: 0 }).collect(request(company, 'activity', 'company_page')));
    assert.ok(a.screenshots[0].bytes.equals(b.screenshots[0].bytes));
    const total = (await Promise.all(urls.map(async (url) => ok(await sim.collect(request(url, 'full_profile'))).screenshots.length + 1))).reduce(
      (x, y) => x + y,
    );
    assert.equal(seen.size, total, 'no two screenshots of different people or sections are the same image');
  });

  test("the top card's SVG holds the person's name, headline and location", async () => {
    const { profile } = await janeDoe();
    const svg = topCardSvg(profile, look);
    assert.ok(svg.includes('>Jane Doe</text>'), svg);
    if (profile.headline) assert.ok(svg.includes(escapeXml(profile.headline.split(' ')[0])));
    if (profile.location) assert.ok(svg.includes(escapeXml(profile.location)));
    if (profile.connections !== null) assert.match(svg, /[\d,]+ connections?</);
  });

  test('the other sections hold their own text: about, positions, skills, activity, company', async () => {
    const { profile, events } = await janeDoe();
    const about = aboutSvg({ ...profile, about: 'Helping revenue teams grow pipeline. Reach out if you want to compare notes.' }, look);
    for (const word of ['Helping', 'revenue', 'pipeline.', 'compare', 'notes.']) assert.ok(about.includes(word), word);
    const positions = [
      { title: 'Head of Partnerships', company: 'Globex', start: '2021-03', end: null, description: null },
      { title: 'Recruiter', company: null, start: null, end: '2021-02', description: 'Hired the first ten engineers.' },
    ];
    const experience = experienceSvg({ ...profile, positions }, look);
    for (const text of ['Head of Partnerships', 'Globex', '2021-03 – present', 'Recruiter', 'Hired the first ten engineers.'])
      assert.ok(experience.includes(text), text);
    const skills = skillsSvg({ ...profile, skills: ['SQL', 'Public Speaking', 'Go-to-Market'] }, look);
    for (const skill of ['>SQL<', '>Public Speaking<', '>Go-to-Market<', '3 skills listed']) assert.ok(skills.includes(skill), skill);
    const activity = activitySvg(profile.name, events, look);
    assert.ok(activity.includes('Jane Doe'));
    for (const event of events.slice(0, 3)) if (event.text !== null) assert.ok(activity.includes(escapeXml(event.text).slice(0, 20)), event.text);
    assert.ok(activitySvg('Jane Doe', [], look).includes('No recent activity.'));
    const company = companySvg(
      { name: 'Acme Corp', tagline: 'Ship faster with Acme Corp', industry: 'Retail', follower_count: 12345, website: null },
      null,
      look,
    );
    for (const text of ['>Acme Corp<', 'Ship faster with Acme Corp', 'Retail · 12,345 followers', '>AC<']) assert.ok(company.includes(text), text);
  });

  test('markup and characters XML cannot carry are escaped in every section, and the SVG still renders', async () => {
    const { profile, events } = await janeDoe();
    const hostile = '<script>alert("x")</script> & <b>Bob</b> O\'Brien \u0000\u0007\ud800';
    const svgs = [
      topCardSvg({ ...profile, name: hostile, headline: hostile, location: hostile }, look),
      aboutSvg({ ...profile, name: hostile, about: hostile }, look),
      experienceSvg({ ...profile, name: hostile, positions: [{ title: hostile, company: hostile, start: null, end: null, description: hostile }] }, look),
      skillsSvg({ ...profile, name: hostile, skills: [hostile] }, look),
      activitySvg(
        hostile,
        events.map((e) => ({ ...e, text: hostile, actor: { ...e.actor, name: hostile } })),
        look,
      ),
      companySvg({ name: hostile, tagline: hostile, industry: hostile, follower_count: 1, website: hostile }, [{ ...events[0], text: hostile }], look),
    ];
    for (const svg of svgs) {
      assert.ok(!svg.includes('<script') && !svg.includes('<b>') && !svg.includes('\u0000') && !svg.includes('\u0007'));
      assert.ok(svg.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp;') || svg.includes('&lt;script&gt;'), svg);
      assert.doesNotMatch(svg, /[\ud800-\udfff]/u);
      // librsvg refuses malformed XML: rendering proves the document is well-formed.
      const { info } = await sharp(Buffer.from(svg)).raw().toBuffer({ resolveWithObject: true });
      assert.deepEqual([info.width, info.height], [SCREENSHOT_PIXELS.width, SCREENSHOT_PIXELS.height]);
    }
    assert.equal(escapeXml(`a<b>&"'`), 'a&lt;b&gt;&amp;&quot;&apos;');
    assert.equal(escapeXml('x\u0000y\ud800z\uffff😀'), 'x\ufffdy\ufffdz\ufffd😀');
  });

  test('text is wrapped to the width and cut with an ellipsis when it does not fit', () => {
    const lines = wrap('one two three four five six seven eight nine ten', 10, 3);
    assert.deepEqual(lines, ['one two', 'three four', 'five six…']);
    assert.ok(lines.every((l) => Array.from(l).length <= 10));
    assert.deepEqual(wrap('short', 10, 3), ['short']);
    assert.deepEqual(wrap('', 10, 3), []);
    assert.deepEqual(wrap('abcdefghijklmnop', 10, 2), ['abcdefghi…']);
  });
});

describe('simulator: company pages', () => {
  test('a company page gives company identity, company-page-actor posts in activity mode and a company screenshot', async () => {
    const url = 'https://pronet.example/company/acme-corp';
    const result = ok(await sim.collect(request(url, 'activity', 'company_page')));
    assert.equal(result.profile, null);
    assert.equal(result.company?.name, 'Acme Corp');
    assert.ok(result.activity !== null && result.activity.length >= 1);
    assert.ok(result.activity.every((e) => e.actor.kind === 'company_page' && e.actor.url === url));
    assert.deepEqual(
      result.screenshots.map((s) => s.section),
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
