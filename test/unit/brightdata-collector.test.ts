/**
 * The Bright Data collector against a local server that behaves as Bright
 * Data's Scraper API documentation says (test/support/fake-brightdata.ts),
 * over real HTTP: the mapping of documented fields, honest unknowns,
 * batching (synchronous, asynchronous, a synchronous call that turns into a
 * snapshot; a trickle of claims makes one call), per-record errors that never
 * fail batch-mates, what a failed call does to its items (retry, defer,
 * fail), and a snapshot lost after it was built (bought again, counted twice). No database: quotas hold in
 * the process and there is no daily budget here (test/scanning/brightdata-*.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseBrightDataSettings, type BrightDataSettings } from '../../src/config.js';
import type { CollectResult } from '../../src/domain/collected.js';
import { BATCH_HOLD_WINDOWS, BrightDataCollector, msUntilNextUtcDay, type BrightDataObserver } from '../../src/scanning/collectors/brightdata/index.js';
import { CollectorError, type CollectRequest } from '../../src/scanning/collectors/collector.js';
import { DATASETS, startFakeBrightData, type FakeBrightData } from '../support/fake-brightdata.js';

const KEY = 'bd-unit-key-0123';
const person = (slug: string, mode: CollectRequest['mode'] = 'full_profile', signal = AbortSignal.timeout(30_000)): CollectRequest => ({
  kind: 'person',
  mode,
  url: `https://linkedin.com/in/${slug}`,
  attempt: 1,
  signal,
});
const ok = (result: CollectResult) => {
  assert.equal(result.outcome, 'ok');
  return result;
};

describe('Bright Data collector (against a server that follows the documented API)', () => {
  let fake: FakeBrightData;
  let settings: BrightDataSettings;

  before(async () => {
    fake = await startFakeBrightData({ apiKey: KEY, imageBase: 'https://media.licdn.example' });
  });
  after(async () => fake.close());
  beforeEach(() => {
    fake.calls.length = 0;
    fake.slowSync = false;
    fake.failSnapshots = false;
    fake.loseReadySnapshots = 0;
    settings = parseBrightDataSettings({
      COLLECTOR: 'brightdata',
      BRIGHTDATA_API_KEY: KEY,
      BRIGHTDATA_BASE_URL: fake.url,
      BRIGHTDATA_BATCH_WINDOW_MS: '150',
      BRIGHTDATA_POLL_INTERVAL_MS: '20',
    })!;
  });
  const collector = (overrides: Partial<BrightDataSettings> = {}) => new BrightDataCollector({ settings: { ...settings, ...overrides } });
  const jobCalls = () => fake.calls.filter((c) => c.method === 'POST');

  test('documented profile fields map onto CollectedProfile; withheld members are null and listed as restricted', async () => {
    const result = ok(await collector().collect(person('ada-lovelace')));
    const p = result.profile!;
    assert.equal(p.name, 'Ada Lovelace');
    assert.equal(p.headline, null, 'position is withheld since the 2025 policy change');
    assert.equal(p.positions, null);
    assert.equal(p.education_count, null);
    assert.equal(p.skills, null);
    assert.deepEqual(new Set(p.restricted), new Set(['headline', 'positions', 'education_count', 'skills', 'featured_count']));
    assert.equal(p.has_photo, true);
    assert.equal(p.has_banner, true);
    assert.equal(p.custom_url, true);
    assert.equal(typeof p.followers, 'number');
    assert.equal(typeof p.connections, 'number');
    assert.deepEqual(
      result.linked_images?.map((i) => i.section),
      ['top_card', 'top_card'],
    );
    assert.equal(result.billed_records, 1);
    assert.deepEqual(result.missing_sections, []);
  });

  test('a cached profile (the ~2 % still served) maps position, experience and education', async () => {
    const p = ok(await collector().collect(person('cached-grace-hopper'))).profile!;
    assert.equal(p.headline, 'Head of Growth at ' + ['Acme', 'Globex', 'Initech'].find((c) => p.headline?.endsWith(c)));
    assert.deepEqual(p.positions?.[0], {
      title: 'Head of Growth',
      company: p.positions?.[0].company,
      start: '2021-03',
      end: null,
      description: 'Growth, analytics and partnerships.',
    });
    assert.deepEqual(p.positions?.[1].start, '2017-01');
    assert.deepEqual(p.positions?.[1].end, '2021-02');
    assert.equal(p.education_count, 1);
    assert.deepEqual(new Set(p.restricted), new Set(['skills', 'featured_count']));
  });

  test('a default avatar and a stock banner are observed absent (not captured); a warned record leaves its nulls unknown', async () => {
    const c = collector();
    const [plain, warned] = await Promise.all([c.collect(person('nophoto-alan-turing')), c.collect(person('warned-emmy-noether'))]);
    const p = ok(plain);
    assert.equal(p.profile!.has_photo, false);
    assert.equal(p.profile!.has_banner, false);
    assert.deepEqual(p.linked_images, []);
    const w = ok(warned);
    assert.equal(w.profile!.about, null, 'an absent about in an incomplete record is unknown, not empty');
    assert.deepEqual(w.missing_sections, ['provider_warning']);
  });

  test('batching: items in flight together go to the provider as one synchronous call of up to 20 URLs', async () => {
    const c = collector();
    const results = await Promise.all(Array.from({ length: 7 }, (_, i) => c.collect(person(`batch-${i}-member`))));
    assert.equal(results.filter((r) => r.outcome === 'ok').length, 7);
    assert.deepEqual(
      jobCalls().map((call) => [call.path, call.urls.length]),
      [['/datasets/v3/scrape', 7]],
    );
    assert.equal(jobCalls()[0].datasetId, DATASETS.profiles);
  });

  test('batching: more than 20 URLs go through trigger, progress (starting, running, ready) and the snapshot download', async () => {
    const c = collector({ batchMax: 30 });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => c.collect(person(`async-${i}-member`))));
    assert.ok(results.every((r) => r.outcome === 'ok'));
    assert.deepEqual(
      jobCalls().map((call) => [call.path, call.urls.length]),
      [['/datasets/v3/trigger', 30]],
    );
    const polls = fake.calls.filter((call) => call.path.startsWith('/datasets/v3/progress/'));
    assert.ok(polls.length >= 3, `polled until ready (${polls.length})`);
    assert.equal(fake.calls.filter((call) => call.path.startsWith('/datasets/v3/snapshot/')).length, 1);
  });

  test('batching: a trickle of claims, each within the window of the last, is one call, not one per window', async () => {
    const c = collector({ batchWindowMs: 200 });
    const pending: Array<Promise<CollectResult>> = [];
    // Ten claims a quarter of a window apart: over twice the window from the first to the last.
    for (let i = 0; i < 10; i++) {
      pending.push(c.collect(person(`trickle-${i}-member`)));
      await sleep(50);
    }
    const results = await Promise.all(pending);
    assert.ok(results.every((r) => r.outcome === 'ok'));
    assert.deepEqual(
      jobCalls().map((call) => [call.path, call.urls.length]),
      [['/datasets/v3/scrape', 10]],
    );
  });

  test('batching: a batch that keeps growing goes out BATCH_HOLD_WINDOWS windows after its first URL', async () => {
    const windowMs = 200;
    const c = collector({ batchWindowMs: windowMs, batchMax: 1000 });
    const pending: Array<Promise<CollectResult>> = [];
    const first = Date.now();
    const holdMs = BATCH_HOLD_WINDOWS * windowMs;
    for (let i = 0; Date.now() - first < holdMs + 3 * windowMs; i++) {
      pending.push(c.collect(person(`steady-${i}-member`)));
      await sleep(windowMs / 5);
    }
    const results = await Promise.all(pending);
    assert.ok(results.every((r) => r.outcome === 'ok'));
    const calls = jobCalls();
    assert.equal(calls.length, 2, 'the first batch at its hold limit, the rest once the trickle stops');
    assert.equal(calls[0].urls.length + calls[1].urls.length, pending.length);
    const sentAfter = calls[0].arrivedAt - first;
    assert.ok(sentAfter >= holdMs && sentAfter < holdMs + 2 * windowMs, `the first call went out ${sentAfter} ms after its first URL`);
  });

  test('a synchronous call that turns into a snapshot (202) is finished through progress and download', async () => {
    fake.slowSync = true;
    const result = ok(await collector().collect(person('slow-marie-curie')));
    assert.equal(result.profile!.name, 'Slow Marie Curie');
    assert.ok(fake.calls.some((call) => call.path.startsWith('/datasets/v3/snapshot/')));
  });

  test("one item's error row or missing record never fails its batch-mates", async () => {
    const c = collector();
    const settled = await Promise.allSettled([
      c.collect(person('private-hidden-one')),
      c.collect(person('crawlfail-broken-one')),
      c.collect(person('missing-gone-one')),
      c.collect(person('fine-one')),
      c.collect(person('fine-two')),
    ]);
    assert.equal(jobCalls().length, 1, 'one call for the five');
    const [priv, crawl, missing, fine1, fine2] = settled;
    assert.deepEqual(priv.status === 'fulfilled' && priv.value, { outcome: 'inaccessible', reason: 'provider: dead_page' });
    for (const failed of [crawl, missing]) {
      assert.equal(failed.status, 'rejected');
      const error = failed.reason as CollectorError;
      assert.ok(error instanceof CollectorError && error.retryable && error.deferMs === undefined, error.message);
    }
    assert.equal(fine1.status === 'fulfilled' && fine1.value.outcome, 'ok');
    assert.equal(fine2.status === 'fulfilled' && fine2.value.outcome, 'ok');
  });

  test('a throttled error row defers its item without spending an attempt', async () => {
    const error = await collector()
      .collect(person('throttled-busy-one'))
      .then(
        () => null,
        (e: unknown) => e as CollectorError,
      );
    assert.ok(error instanceof CollectorError && error.retryable && (error.deferMs ?? 0) >= 1000);
  });

  test('a 429 (rate or concurrency limit) defers every item of the batch by Retry-After, no attempt spent', async () => {
    fake.rateLimitNext(1, 7);
    const c = collector();
    const settled = await Promise.allSettled([c.collect(person('limited-a')), c.collect(person('limited-b'))]);
    for (const s of settled) {
      assert.equal(s.status, 'rejected');
      const error = s.reason as CollectorError;
      assert.ok(error.retryable && error.deferMs !== undefined && error.deferMs >= 7000 && error.deferMs < 8000, `deferMs ${error.deferMs}`);
    }
  });

  test('a refused key fails the items at once (no retry helps)', async () => {
    const error = await new BrightDataCollector({ settings: { ...settings, apiKey: 'wrong-key' } }).collect(person('anyone')).then(
      () => null,
      (e: unknown) => e as CollectorError,
    );
    assert.ok(error instanceof CollectorError && error.retryable === false);
    assert.equal(error.reason, 'provider rejected credentials');
    assert.ok(!error.message.includes('wrong-key'));
  });

  test('a failed snapshot is a provider failure the queue retries', async () => {
    fake.failSnapshots = true;
    const error = await collector({ batchMax: 30 })
      .collect({ ...person('failed-snap'), mode: 'activity' })
      .then(
        () => null,
        (e: unknown) => e as CollectorError,
      );
    assert.ok(error instanceof CollectorError && error.retryable && error.deferMs === undefined);
  });

  test('a snapshot the provider built (progress said ready) and then lost is bought again at once; each item counts both purchases', async () => {
    fake.loseReadySnapshots = 1;
    const billedBefore = fake.billed[DATASETS.profiles] ?? 0;
    const counted = { billed: 0, rebought: 0 };
    const observer: BrightDataObserver = {
      exchange: () => {},
      recordsBilled: (_dataset, records) => (counted.billed += records),
      recordsRebought: (_dataset, records) => (counted.rebought += records),
      recordsUnattributable: () => {},
      snapshotWait: () => {},
      breaker: () => {},
    };
    const c = new BrightDataCollector({ settings: { ...settings, batchMax: 25 }, observer });
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => c.collect(person(`lost-${i}-member`))));
    assert.ok(results.every((r) => r.outcome === 'ok'));
    assert.deepEqual(
      jobCalls().map((call) => [call.path, call.urls.length]),
      [
        ['/datasets/v3/trigger', 25],
        ['/datasets/v3/trigger', 25],
      ],
    );
    const providerBilled = fake.billed[DATASETS.profiles] - billedBefore;
    assert.equal(providerBilled, 50);
    assert.equal(
      results.reduce((sum, r) => sum + (r.billed_records ?? 0), 0),
      providerBilled,
    );
    assert.deepEqual(counted, { billed: 50, rebought: 25 });
  });

  test("activity: a person's posts are discovered by profile URL (asynchronous) and mapped to events; none is verified empty", async () => {
    const c = collector({ postsPerPerson: 5 });
    const [posts, quiet] = await Promise.all([c.collect(person('posting-person', 'activity')), c.collect(person('quiet-person', 'activity'))]);
    const trigger = jobCalls()[0];
    assert.equal(trigger.path, '/datasets/v3/trigger');
    assert.equal(trigger.datasetId, DATASETS.posts);
    assert.deepEqual([trigger.query.type, trigger.query.discover_by, trigger.query.limit_per_input], ['discover_new', 'profile_url', '5']);
    const events = ok(posts).activity!;
    assert.ok(events.length >= 1);
    for (const e of events) {
      assert.equal(e.actor.kind, 'person');
      assert.ok(e.occurred_at !== null && e.text?.startsWith('Thoughts on data teams'));
      assert.equal(typeof e.counts.reactions, 'number');
    }
    assert.equal(ok(posts).billed_records, events.length);
    assert.deepEqual(ok(quiet).activity, []);
    assert.equal(ok(quiet).billed_records, 0);
  });

  test('the company page maps name, slogan, industry, followers, website, its logo and (in activity mode) its updates', async () => {
    const result = ok(
      await collector().collect({
        kind: 'company_page',
        mode: 'activity',
        url: 'https://linkedin.com/company/acme-data',
        attempt: 1,
        signal: AbortSignal.timeout(30_000),
      }),
    );
    assert.deepEqual(result.company, {
      name: 'Acme Data',
      tagline: 'Data, made useful',
      industry: 'Software Development',
      follower_count: 12034,
      website: 'https://www.acme-data.example/',
    });
    assert.deepEqual(result.linked_images, [{ section: 'company', url: 'https://media.licdn.example/logo.webp' }]);
    assert.equal(result.activity?.[0].actor.kind, 'company_page');
    assert.equal(result.activity?.[0].counts.reactions, 14);
  });

  test('an item that aborts leaves its batch; the others are answered', async () => {
    const c = collector();
    const gone = new AbortController();
    const leaving = c.collect(person('leaving-early', 'full_profile', gone.signal));
    const staying = c.collect(person('staying-put'));
    gone.abort();
    await assert.rejects(leaving, (e: unknown) => e instanceof CollectorError && e.retryable);
    assert.equal((await staying).outcome, 'ok');
  });

  test('settings: COLLECTOR=brightdata needs BRIGHTDATA_API_KEY, and errors never echo values', () => {
    assert.throws(() => parseBrightDataSettings({ COLLECTOR: 'brightdata' }), /BRIGHTDATA_API_KEY must be set/);
    assert.throws(
      () => parseBrightDataSettings({ COLLECTOR: 'brightdata', BRIGHTDATA_API_KEY: 'k', BRIGHTDATA_BASE_URL: 'https://user:secret@x.example' }),
      (e: Error) => /credentials/.test(e.message) && !e.message.includes('secret'),
    );
    assert.throws(() => parseBrightDataSettings({ COLLECTOR: 'scraper' }), /COLLECTOR must be brightdata, http or simulator/);
    const defaults = parseBrightDataSettings({ COLLECTOR: 'brightdata', BRIGHTDATA_API_KEY: 'k' })!;
    assert.equal(defaults.baseUrl, 'https://api.brightdata.com');
    assert.deepEqual(defaults.datasets, DATASETS);
    assert.equal(parseBrightDataSettings({}), null);
  });

  test('the daily budget starts again at the next UTC midnight', () => {
    assert.equal(msUntilNextUtcDay(new Date('2026-11-24T23:59:00.000Z')), 60_000);
    assert.equal(msUntilNextUtcDay(new Date('2026-11-24T00:00:00.000Z')), 86_400_000);
  });
});
