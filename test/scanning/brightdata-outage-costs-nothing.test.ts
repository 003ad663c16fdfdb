/**
 * A provider outage costs nothing: during a 100-person report the local
 * Bright Data server answers 503 without Retry-After, then 500, then refuses
 * connections (its port closed), then accepts requests and never answers.
 * The collector's breaker opens, items wait without spending an attempt,
 * /metrics and the report page say collection is paused and why, and after
 * the outage every item completes; every snapshot that was triggered is
 * downloaded (none abandoned).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
// The providers the breaker paused, as stored for every process.
import { readPausedProviders } from '../../src/store/brightdata-repository.js';
import { eventually, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { startFakeBrightData, type FakeBrightData } from '../support/fake-brightdata.js';
import { webUser } from '../support/web.js';

const KEY = 'bd-outage-key';
const PEOPLE = 100;

describe('Bright Data outage during a 100-person report', () => {
  let fake: FakeBrightData;
  let t: TestApp;
  let owner: Tenant;
  let reportId: string;
  let pausedDuringOutage: Awaited<ReturnType<typeof readPausedProviders>> = [];
  let metricsDuringOutage = '';
  let pageDuringOutage = '';
  let attemptsAfterOutage: number[] = [];

  before(async () => {
    fake = await startFakeBrightData({ apiKey: KEY });
    fake.pollsUntilReady = 3;
    t = await startTestApp({
      env: {
        COLLECTOR: 'brightdata',
        BRIGHTDATA_API_KEY: KEY,
        BRIGHTDATA_BASE_URL: fake.url,
        BRIGHTDATA_BATCH_MAX: '25',
        BRIGHTDATA_BATCH_WINDOW_MS: '300',
        BRIGHTDATA_POLL_INTERVAL_MS: '200',
        BRIGHTDATA_POSTS_PER_PERSON: '2',
        BRIGHTDATA_EXCHANGE_TIMEOUT_MS: '1000',
      },
    });
    owner = await t.tenant({ mode: 'live' });
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'bd-outage' },
      body: reportBody({
        company: { name: 'Acme Data', domain: 'acme-data.example', pronet_company_url: 'https://www.linkedin.com/company/acme-data' },
        profiles: Array.from({ length: PEOPLE }, (_, i) => ({ pronet_url: `https://www.linkedin.com/in/outage-member-${i + 1}` })),
      }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    const user = await webUser(t, owner.workspaceId);
    // The provider goes down as the first calls are made, with every kind of outage in turn.
    fake.outage = '503';
    const worker = await t.startWorker(64);
    try {
      await sleep(2500);
      fake.outage = '500';
      await sleep(2500);
      fake.outage = 'refuse';
      await sleep(2500);
      fake.outage = 'hang';
      await eventually(async () => (await readPausedProviders(t.runtime.db, 60_000)).length > 0, 20_000, 100);
      pausedDuringOutage = await readPausedProviders(t.runtime.db, 60_000);
      metricsDuringOutage = (await t.metrics.render()).body;
      pageDuringOutage = (await user.client.get(`/reports/${reportId}`)).text;
      await sleep(2500);
      attemptsAfterOutage = (await t.runtime.db.selectFrom('scan_items').select('attempts').where('report_id', '=', reportId).execute()).map((r) => r.attempts);
      fake.outage = null;
      await eventually(
        async () => {
          const runs = await t.runtime.db.selectFrom('scan_runs').select('status').where('report_id', '=', reportId).execute();
          return runs.length === 2 && runs.every((r) => !['queued', 'running'].includes(r.status));
        },
        180_000,
        200,
      );
    } finally {
      await worker.stop();
    }
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  test('while the provider is down, collection is paused: the breaker is open and /metrics and the report page say so and why', () => {
    assert.ok(pausedDuringOutage.length > 0);
    assert.match(pausedDuringOutage[0].reason ?? '', /provider (answered 50[03]|connection failed|timed out)/);
    assert.match(metricsDuringOutage, /profile_scan_provider_breaker_state\{[^}]*provider="brightdata"[^}]*state="(open|half_open)"[^}]*\} 1/);
    assert.match(metricsDuringOutage, /profile_scan_provider_calls_total\{[^}]*provider="brightdata"[^}]*outcome="outage"[^}]*\} [1-9]/);
    assert.match(pageDuringOutage, /Collection is paused: the data provider is not answering/);
  });

  test('no attempt is spent during the outage', () => {
    assert.equal(attemptsAfterOutage.length, PEOPLE * 2 + 1);
    for (const attempts of attemptsAfterOutage) assert.ok(attempts <= 1, `attempts ${attempts}`);
  });

  test('after the outage every item completes: zero failed', async () => {
    const items = await t.runtime.db.selectFrom('scan_items').select(['status', 'attempts', 'reason']).where('report_id', '=', reportId).execute();
    assert.deepEqual(
      items.filter((i) => i.status !== 'succeeded'),
      [],
    );
    const runs = await t.runtime.db.selectFrom('scan_runs').select(['status', 'completed', 'requested']).where('report_id', '=', reportId).execute();
    for (const run of runs) assert.equal(run.status, 'completed');
  });

  test('no snapshot was abandoned: every snapshot triggered was downloaded', () => {
    assert.ok(fake.snapshotIds.length > 0);
    for (const id of fake.snapshotIds) assert.ok(fake.delivered.has(id), `snapshot ${id} never downloaded`);
  });

  test('once the provider answers, the breaker closes and the report page no longer says paused', async () => {
    await eventually(async () => (await readPausedProviders(t.runtime.db, 60_000)).length === 0, 10_000, 100);
    const metrics = (await t.metrics.render()).body;
    assert.match(metrics, /profile_scan_provider_breaker_state\{[^}]*provider="brightdata"[^}]*state="closed"[^}]*\} 1/);
  });
});
