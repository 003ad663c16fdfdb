/**
 * The daily record budget is used to the last record, and each record is
 * bought once: the Bright Data collector with a real PostgreSQL (the budget,
 * stored snapshots and company pages) against the local Bright Data server.
 * A batch is split so that what fits runs now and only the rest waits; no
 * call is larger than the budget; a posts discovery never asks for more
 * posts per person than fit; what was reserved and not billed comes back, so
 * waiting items try again soon instead of the next day while it may; a
 * company page bought recently for the workspace is reused.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import { parseBrightDataSettings, type BrightDataSettings } from '../../src/config.js';
import type { CollectResult } from '../../src/domain/collected.js';
import { BrightDataCollector } from '../../src/scanning/collectors/brightdata/index.js';
import { CollectorError, type CollectRequest } from '../../src/scanning/collectors/collector.js';
// The records reserved today: what the budget spent, which no request reports.
import { reservedToday } from '../../src/store/provider-usage-repository.js';
import { startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { DATASETS, startFakeBrightData, type FakeBrightData } from '../support/fake-brightdata.js';

const KEY = 'bd-split-key';
const HOUR_MS = 3_600_000;

describe('Bright Data budget: split batches, every record bought once', () => {
  let fake: FakeBrightData;
  let t: TestApp;
  let owner: Tenant;
  let settings: BrightDataSettings;

  before(async () => {
    fake = await startFakeBrightData({ apiKey: KEY });
    t = await startTestApp({});
    owner = await t.tenant({ mode: 'live' });
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });
  beforeEach(async () => {
    fake.calls.length = 0;
    for (const k of Object.keys(fake.billed)) delete fake.billed[k];
    await sql`delete from provider_record_budget`.execute(t.runtime.db);
    await sql`delete from brightdata_snapshots`.execute(t.runtime.db);
    await sql`delete from brightdata_company_pages`.execute(t.runtime.db);
    settings = parseBrightDataSettings({
      COLLECTOR: 'brightdata',
      BRIGHTDATA_API_KEY: KEY,
      BRIGHTDATA_BASE_URL: fake.url,
      BRIGHTDATA_BATCH_WINDOW_MS: '200',
      BRIGHTDATA_BATCH_MAX: '40',
      BRIGHTDATA_POLL_INTERVAL_MS: '20',
    })!;
  });

  const request = (slug: string, mode: CollectRequest['mode'] = 'full_profile', kind: CollectRequest['kind'] = 'person'): CollectRequest => ({
    kind,
    mode,
    url: kind === 'person' ? `https://www.linkedin.com/in/${slug}` : `https://www.linkedin.com/company/${slug}`,
    attempt: 1,
    signal: AbortSignal.timeout(30_000),
    imageShare: { workspaceId: owner.workspaceId, reportId: '00000000-0000-4000-8000-000000000000' },
  });
  const settle = (collector: BrightDataCollector, requests: CollectRequest[]) =>
    Promise.all(
      requests.map((r) =>
        collector.collect(r).then(
          (result): { result: CollectResult } => ({ result }),
          (error: unknown) => {
            assert.ok(error instanceof CollectorError, String(error));
            return { error };
          },
        ),
      ),
    );
  const jobs = () => fake.calls.filter((c) => c.method === 'POST');
  const billed = () => Object.values(fake.billed).reduce((a, b) => a + b, 0);

  for (const [label, budget, people] of [
    ['a budget smaller than one batch: what fits runs now, only the rest waits', 6, 8],
    ['a budget equal to the batch: all of it runs in one call', 8, 8],
    ["a budget larger than a day's work: all of it runs in one call", 1000, 8],
  ] as const) {
    test(label, async () => {
      const collector = new BrightDataCollector({ settings: { ...settings, dailyRecordBudget: budget }, db: t.runtime.db });
      const answers = await settle(
        collector,
        Array.from({ length: people }, (_, i) => request(`split-${budget}-${i}`)),
      );
      const done = answers.filter((a) => 'result' in a);
      const waiting = answers.filter((a) => 'error' in a).map((a) => a.error);
      assert.equal(done.length, Math.min(budget, people));
      assert.equal(waiting.length, Math.max(0, people - budget));
      for (const error of waiting) {
        assert.ok(error.deferMs !== undefined, 'waits without spending an attempt');
        assert.equal(error.reason, 'provider daily record budget spent');
      }
      assert.equal(jobs().length, 1);
      assert.ok(jobs()[0].urls.length <= budget, 'no call larger than the budget');
      assert.equal(billed(), Math.min(budget, people));
      assert.equal(await reservedToday(t.runtime.db, 'brightdata'), Math.min(budget, people));
    });
  }

  test('once the budget is spent and nothing is in flight, what waits waits for the next UTC day', async () => {
    const collector = new BrightDataCollector({ settings: { ...settings, dailyRecordBudget: 2 }, db: t.runtime.db });
    await settle(collector, [request('day-a'), request('day-b')]);
    const [later] = await settle(collector, [request('day-c')]);
    assert.ok('error' in later);
    assert.ok(later.error.deferMs! > 60_000 || new Date().getUTCHours() === 23);
    assert.equal(billed(), 2);
  });

  test('a posts discovery never asks for more posts per person than the budget allows, and is split by people', async () => {
    const collector = new BrightDataCollector({ settings: { ...settings, dailyRecordBudget: 25, postsPerPerson: 10 }, db: t.runtime.db });
    const answers = await settle(
      collector,
      Array.from({ length: 4 }, (_, i) => request(`posts-${i}`, 'activity')),
    );
    const discovery = jobs().filter((c) => c.datasetId === DATASETS.posts);
    assert.equal(discovery.length, 1);
    assert.equal(discovery[0].urls.length, 2, '2 people × 10 posts fit 25 records');
    assert.equal(discovery[0].query.limit_per_input, '10');
    assert.equal(answers.filter((a) => 'result' in a).length, 2);
    // The people have 1–3 posts each: what was reserved and not billed came back, so the rest tries again soon.
    for (const a of answers.filter((x) => 'error' in x)) assert.ok(a.error.deferMs! < 60_000);
    assert.equal(await reservedToday(t.runtime.db, 'brightdata'), billed());

    // Fewer records left than one person's share: one person, with limit_per_input what is left.
    fake.calls.length = 0;
    const small = new BrightDataCollector({ settings: { ...settings, dailyRecordBudget: billed() + 4, postsPerPerson: 10 }, db: t.runtime.db });
    await settle(small, [request('posts-2', 'activity'), request('posts-3', 'activity')]);
    const [next] = jobs();
    assert.equal(next.urls.length, 1);
    assert.equal(next.query.limit_per_input, '4');
  });

  test('the budget is never idle while work remains and records come back: a waiting item runs once they do', async () => {
    const collector = new BrightDataCollector({ settings: { ...settings, dailyRecordBudget: 10, postsPerPerson: 5 }, db: t.runtime.db });
    const first = await settle(collector, [request('idle-0', 'activity'), request('idle-1', 'activity'), request('idle-2', 'activity')]);
    const waiting = first.filter((a) => 'error' in a);
    assert.equal(waiting.length, 1);
    // Each person has at most 3 posts: at least 4 of the 10 records came back.
    const again = await settle(collector, [request(`idle-${first.findIndex((a) => 'error' in a)}`, 'activity')]);
    assert.ok('result' in again[0], JSON.stringify(again[0]));
    assert.ok((await reservedToday(t.runtime.db, 'brightdata')) <= 10);
  });

  test('a company page bought less than BRIGHTDATA_COMPANY_MAX_AGE ago is reused with its capture time, per workspace', async () => {
    const collector = new BrightDataCollector({ settings: { ...settings, companyMaxAgeMs: 24 * HOUR_MS }, db: t.runtime.db });
    const [bought] = await settle(collector, [request('acme-data', 'full_profile', 'company_page')]);
    assert.ok('result' in bought && bought.result.outcome === 'ok');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [reused] = await settle(collector, [request('acme-data', 'full_profile', 'company_page')]);
    assert.ok('result' in reused && reused.result.outcome === 'ok');
    assert.equal(reused.result.captured_at, bought.result.captured_at);
    assert.equal(reused.result.billed_records, 0);
    assert.equal(reused.result.company?.name, bought.result.company?.name);
    assert.equal(jobs().filter((c) => c.datasetId === DATASETS.companies).length, 1, 'bought once');

    // Older than the setting: bought again.
    await sql`update brightdata_company_pages set captured_at = now() - interval '25 hours'`.execute(t.runtime.db);
    await settle(collector, [request('acme-data', 'full_profile', 'company_page')]);
    assert.equal(jobs().filter((c) => c.datasetId === DATASETS.companies).length, 2);
  });

  test('an interim answer or a second claim never re-buys a delivered record: the stored snapshot is downloaded again, billed nothing', async () => {
    const collector = new BrightDataCollector({ settings: { ...settings, postsPerPerson: 2 }, db: t.runtime.db });
    fake.interimStatus = 200;
    try {
      const [first] = await settle(collector, [request('rebuy-0', 'activity')]);
      assert.ok('result' in first && first.result.outcome === 'ok');
      const [second] = await settle(collector, [request('rebuy-0', 'activity')]);
      assert.ok('result' in second && second.result.outcome === 'ok');
      assert.deepEqual(second.result.activity, first.result.activity);
      assert.equal(second.result.billed_records, 0);
      assert.equal(jobs().length, 1, 'triggered once');
    } finally {
      fake.interimStatus = null;
    }
  });
});
