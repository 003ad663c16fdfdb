/**
 * Health and metrics on a real server: /livez and
 * /readyz outside /api/v1 without a key, revealing nothing but check states;
 * /readyz 503 while draining; /metrics only with the METRICS_TOKEN bearer, in
 * Prometheus text, with request, rate-limit, queue, item and pool series
 * that move with the traffic and the scans.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { BREAKER_FRESH_MS, writeBreakerState } from '../../src/store/brightdata-repository.js';
import { eventually, people, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one series in Prometheus text (labels in any order), or null. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return null;
}

describe('health and metrics endpoints', () => {
  let t: TestApp;
  let owner: Tenant;
  let limited: Tenant;

  const metrics = async () => {
    const res = await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  before(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN: TOKEN } });
    owner = await t.tenant();
    limited = await t.tenant({
      name: 'Limited',
      limits: { writes_per_minute_per_key: 1, writes_per_minute_per_workspace: 100, submitted_profiles_per_minute_per_workspace: 1000 },
    });
  });
  after(async () => t?.close());

  test('/livez answers 200 without a key; /readyz 200 with the checks and nothing else', async () => {
    const live = await fetch(`${t.baseUrl}/livez`);
    assert.equal(live.status, 200);
    assert.deepEqual(await live.json(), { status: 'ok' });
    const ready = await fetch(`${t.baseUrl}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(ready.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await ready.json(), { status: 'ready', checks: { database: 'ok', migrations: 'ok' } });
  });

  test('/readyz reports the scan worker of the process: 503 while it starts or after it failed, 200 once ready', async () => {
    t.health.queue = 'starting';
    const starting = await fetch(`${t.baseUrl}/readyz`);
    assert.equal(starting.status, 503);
    assert.deepEqual(await starting.json(), { status: 'unavailable', checks: { database: 'ok', migrations: 'ok', queue: 'starting' } });
    t.health.queue = 'failed';
    assert.equal((await fetch(`${t.baseUrl}/readyz`)).status, 503);
    t.health.queue = 'ready';
    assert.equal((await fetch(`${t.baseUrl}/readyz`)).status, 200);
    t.health.queue = 'none';
  });

  test('/readyz is 503 while draining (shutdown), /livez stays 200', async () => {
    t.health.draining = true;
    try {
      const res = await fetch(`${t.baseUrl}/readyz`);
      assert.equal(res.status, 503);
      const body = await res.json();
      assert.equal(body.status, 'unavailable');
      assert.equal(body.checks.shutdown, 'draining');
      assert.equal((await fetch(`${t.baseUrl}/livez`)).status, 200);
    } finally {
      t.health.draining = false;
    }
  });

  test('/metrics needs the configured bearer token: 401 without it or with another', async () => {
    assert.equal((await fetch(`${t.baseUrl}/metrics`)).status, 401);
    assert.equal((await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: 'Bearer not-the-token-000000' } })).status, 401);
    assert.equal(
      (await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: `Bearer ${owner.secret}` } })).status,
      401,
      'an API key is not the metrics token',
    );
    await metrics();
  });

  test('request series by route pattern and status, and rate-limit refusals by kind', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await t.request('GET', '/api/v1/context', { key: owner.secret })).status, 200);
    assert.equal((await t.request('GET', '/api/v1/reports/00000000-0000-4000-8000-000000000000', { key: owner.secret })).status, 404);
    const first = await t.request('POST', '/api/v1/reports', {
      key: limited.secret,
      headers: { 'idempotency-key': 'rl-1' },
      body: reportBody(),
    });
    assert.equal(first.status, 201, first.text);
    const refused = await t.request('POST', '/api/v1/reports', {
      key: limited.secret,
      headers: { 'idempotency-key': 'rl-2' },
      body: reportBody(),
    });
    assert.equal(refused.status, 429);
    const text = await metrics();
    assert.ok((sample(text, 'profile_scan_http_requests_total', { method: 'GET', route: '/api/v1/context', status: '200' }) ?? 0) >= 3);
    assert.ok((sample(text, 'profile_scan_http_requests_total', { method: 'GET', route: '/api/v1/reports/:report_id', status: '404' }) ?? 0) >= 1);
    assert.ok((sample(text, 'profile_scan_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/context', status: '200' }) ?? 0) >= 3);
    assert.ok((sample(text, 'profile_scan_rate_limit_refusals_total', { kind: 'write' }) ?? 0) >= 1);
    assert.ok(!text.includes(owner.secret) && !text.includes(limited.secret), 'no key in the metrics');
  });

  test('queue depth and oldest ready age per mode come from scan_items; items by outcome and duration once a worker ran them', async () => {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'q-1' },
      body: reportBody({ profiles: people(3, 'ops') }),
    });
    assert.equal(created.status, 201, created.text);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const byMode = async (status: 'pending' | 'succeeded') =>
      Object.fromEntries(
        (
          await t.runtime.db
            .selectFrom('scan_items as i')
            .innerJoin('scan_runs as r', 'r.id', 'i.run_id')
            .select(['r.mode', (eb) => eb.fn.countAll<number>().as('n')])
            .where('i.status', '=', status)
            .groupBy('r.mode')
            .execute()
        ).map((row) => [row.mode, Number(row.n)]),
      );
    const pending = await byMode('pending');
    assert.ok(pending.full_profile >= 3 && pending.activity >= 4, JSON.stringify(pending));
    let text = await metrics();
    assert.equal(sample(text, 'profile_scan_queue_items', { mode: 'full_profile', state: 'ready' }), pending.full_profile);
    assert.equal(sample(text, 'profile_scan_queue_items', { mode: 'activity', state: 'ready' }), pending.activity);
    assert.equal(sample(text, 'profile_scan_queue_items', { mode: 'activity', state: 'running' }), 0);
    assert.ok((sample(text, 'profile_scan_queue_oldest_ready_age_seconds', { mode: 'full_profile' }) ?? 0) >= 1);
    assert.ok((sample(text, 'profile_scan_db_pool_connections', { pool: 'api' }) ?? 0) >= 1);

    const worker = await t.startWorker(4);
    await eventually(async () => Object.keys(await byMode('pending')).length === 0);
    await worker.stop();
    const succeeded = await byMode('succeeded');
    text = await metrics();
    assert.equal(sample(text, 'profile_scan_queue_items', { mode: 'full_profile', state: 'ready' }), 0);
    assert.equal(sample(text, 'profile_scan_queue_oldest_ready_age_seconds', { mode: 'full_profile' }), 0);
    assert.equal(sample(text, 'profile_scan_items_processed_total', { mode: 'full_profile', outcome: 'succeeded' }), succeeded.full_profile);
    assert.equal(sample(text, 'profile_scan_items_processed_total', { mode: 'activity', outcome: 'succeeded' }), succeeded.activity);
    assert.equal(sample(text, 'profile_scan_item_duration_seconds_count', { mode: 'activity', outcome: 'succeeded' }), succeeded.activity);
  });

  test("the breaker's state in /metrics is the one stored for every process, not this process's: a paused worker elsewhere shows; a stale row counts as closed", async () => {
    // This process runs no Bright Data collector: only the stored row can say that collection is paused.
    await writeBreakerState(t.runtime.db, 'brightdata', 'open', 'provider answered 503');
    try {
      let text = await metrics();
      assert.equal(sample(text, 'profile_scan_provider_breaker_state', { provider: 'brightdata', state: 'open' }), 1);
      assert.equal(sample(text, 'profile_scan_provider_breaker_state', { provider: 'brightdata', state: 'closed' }), 0);
      // A paused row its process stopped refreshing (the process is gone) is not a pause.
      await sql`update provider_breakers set updated_at = now() - make_interval(secs => ${BREAKER_FRESH_MS / 1000 + 60}) where provider = 'brightdata'`.execute(
        t.runtime.db,
      );
      text = await metrics();
      assert.equal(sample(text, 'profile_scan_provider_breaker_state', { provider: 'brightdata', state: 'open' }), 0);
      assert.equal(sample(text, 'profile_scan_provider_breaker_state', { provider: 'brightdata', state: 'closed' }), 1);
    } finally {
      await writeBreakerState(t.runtime.db, 'brightdata', 'closed', null);
    }
  });
});
