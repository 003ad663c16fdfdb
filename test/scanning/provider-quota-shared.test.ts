/**
 * Provider quotas shared through PostgreSQL (docs/collectors.md
 * "Provider quotas"): two HTTP provider collectors, each with its own pool and
 * its own limiter (two "processes" that share nothing but the database), call
 * the local fake provider. The fake observes the calls: never more in flight
 * than PROVIDER_MAX_CONCURRENCY, never more starts per second than
 * PROVIDER_MAX_PER_SECOND, all calls complete; and a slot held by a process
 * that died frees itself once its lease ends. Then, through a live scan run:
 * a provider answering 429 with Retry-After defers the items, which complete
 * without spending an attempt.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { CollectRequest } from '../../src/scanning/collectors/collector.js';
import { providerCollectorFromEnv } from '../../src/scanning/collectors/http-provider.js';
import { SharedProviderQuota } from '../../src/scanning/collectors/provider-quota.js';
// Two pools of the test's own stand for two processes that share only the database.
import { createDb, createPool, type Db } from '../../src/store/database.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { startFakeProvider, rateLimitedFirst, type FakeProvider } from '../support/fake-provider.js';
import { startScanWorker, type ScanWorker } from '../../src/scanning/worker.js';
import { eventually, people, reportBody, startTestApp, type TestApp } from '../support/app.js';

const API_KEY = 'pk_quota_test_key_5150';

function request(i: number, signal: AbortSignal = AbortSignal.timeout(60_000)): CollectRequest {
  return { kind: 'person', mode: 'full_profile', url: `https://pronet.example/in/quota-${i}`, attempt: 1, signal };
}

describe('provider quota shared by two processes through PostgreSQL', () => {
  let database: TestDatabase;
  const dbs: Db[] = [];
  const providers: FakeProvider[] = [];

  /** A "process": its own pool (and so its own connections) to the same database. */
  function processDb(): Db {
    const db = createDb(createPool(database.url, 4));
    dbs.push(db);
    return db;
  }

  async function fake(options: Parameters<typeof startFakeProvider>[0]): Promise<FakeProvider> {
    const provider = await startFakeProvider({ apiKey: API_KEY, ...options });
    providers.push(provider);
    return provider;
  }

  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    for (const provider of providers) await provider.close();
    for (const db of dbs) await db.destroy().catch(() => {});
    await database?.drop();
  });

  test('PROVIDER_MAX_CONCURRENCY=3: 40 calls through two processes, the provider never has more than 3 in flight, and every call completes', async () => {
    const provider = await fake({ behavior: 'slow', slowMs: 150 });
    const env = {
      PROVIDER_BASE_URL: provider.url,
      PROVIDER_API_KEY: API_KEY,
      PROVIDER_TIMEOUT_MS: '5000',
      PROVIDER_MAX_CONCURRENCY: '3',
      PROVIDER_MAX_PER_SECOND: '1000',
    };
    const a = providerCollectorFromEnv(env, { db: processDb() });
    const b = providerCollectorFromEnv(env, { db: processDb() });
    assert.ok(a && b);
    // Each process alone wants 20 calls at once: only a limit shared by both keeps the total at 3.
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).collect(request(i))));
    assert.deepEqual(
      results.map((r) => r.outcome),
      Array(40).fill('ok'),
    );
    assert.equal(provider.calls, 40);
    assert.ok(provider.maxInFlight <= 3, `the provider saw ${provider.maxInFlight} calls in flight at once`);
    assert.ok(provider.maxInFlight >= 2, 'the processes never called concurrently at all');
    // Every slot was given back (none waits for its lease to run out).
    const slots = await sql<{ total: number; held: number }>`
      select count(*)::int as total, count(holder)::int as held from provider_call_slots where provider = ${`${provider.url}/v1/collect`}`.execute(dbs[0]);
    assert.deepEqual(slots.rows[0], { total: 3, held: 0 });
  });

  test('PROVIDER_MAX_PER_SECOND=5: 12 calls through two processes, no 1-second window holds more than 5 starts', async () => {
    const provider = await fake({ behavior: 'ok' });
    const env = {
      PROVIDER_BASE_URL: provider.url,
      PROVIDER_API_KEY: API_KEY,
      PROVIDER_TIMEOUT_MS: '5000',
      PROVIDER_MAX_CONCURRENCY: '16',
      PROVIDER_MAX_PER_SECOND: '5',
    };
    const a = providerCollectorFromEnv(env, { db: processDb() });
    const b = providerCollectorFromEnv(env, { db: processDb() });
    assert.ok(a && b);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).collect(request(i))));
    assert.equal(results.filter((r) => r.outcome === 'ok').length, 12);

    const starts = provider.callLog.map((c) => c.startedAt).sort((x, y) => x - y);
    assert.equal(starts.length, 12);
    // Starts are reserved 200 ms apart; between the reservation and the provider seeing the request
    // lies a little delivery time whose variation we allow for (JITTER_MS). Waiting only delays
    // starts, so a loaded machine can only make these gaps larger.
    const JITTER_MS = 150;
    for (let i = 0; i + 5 < starts.length; i++) {
      const span = starts[i + 5] - starts[i];
      assert.ok(span >= 1000 - JITTER_MS, `6 starts within ${Math.round(span)} ms (calls ${i}..${i + 5})`);
    }
    assert.ok(starts[11] - starts[0] >= 11 * 200 - JITTER_MS, `12 starts within ${Math.round(starts[11] - starts[0])} ms`);
  });

  test('a slot held by a process that died (never released) frees itself when its lease ends, not before', async () => {
    const provider = 'http://crashed.provider.example/v1/collect';
    const limits = { provider, maxConcurrency: 1, maxPerSecond: 1000, leaseMs: 1_500 };
    const crashedDb = createDb(createPool(database.url, 1));
    const crashed = new SharedProviderQuota({ db: crashedDb, ...limits });
    await crashed.acquire(AbortSignal.timeout(10_000)); // never released
    await crashedDb.destroy(); // the process is gone: its connections too
    const lease = await sql<{ holder: string; expires_at: Date }>`
      select holder, expires_at from provider_call_slots where provider = ${provider} and slot = 0`.execute(dbs[0]);
    const crashedHolder = lease.rows[0].holder;
    assert.ok(crashedHolder, 'the crashed process holds the only slot');

    const survivorDb = processDb();
    const survivor = new SharedProviderQuota({ db: survivorDb, ...limits });
    // While the lease runs, the only slot stays taken: a short wait gives up.
    await assert.rejects(survivor.acquire(AbortSignal.timeout(300)), (err: unknown) => {
      assert.ok(err instanceof Error && err.name === 'TimeoutError', `expected the wait to time out, got ${String(err)}`);
      return true;
    });
    const permit = await survivor.acquire(AbortSignal.timeout(20_000));
    const taken = await sql<{ holder: string; lease_had_ended: boolean }>`
      select holder, clock_timestamp() >= ${lease.rows[0].expires_at}::timestamptz as lease_had_ended
        from provider_call_slots where provider = ${provider} and slot = 0`.execute(survivorDb);
    assert.notEqual(taken.rows[0].holder, crashedHolder, 'the survivor now holds the slot');
    assert.equal(taken.rows[0].lease_had_ended, true, 'the slot was taken over only after the crashed lease ended');
    await permit.release();
    const released = await sql<{ holder: string | null }>`select holder from provider_call_slots where provider = ${provider}`.execute(survivorDb);
    assert.deepEqual(released.rows, [{ holder: null }]);
  });
});

describe('provider 429 with Retry-After through a live scan run', () => {
  let t: TestApp;
  let provider: FakeProvider;
  let worker: ScanWorker | undefined;

  before(async () => {
    // Every (kind, mode, url) is refused once with Retry-After: 1, then answered.
    provider = await startFakeProvider({ apiKey: API_KEY, behavior: rateLimitedFirst(1, { retryAfter: '1' }) });
    const providerEnv = { PROVIDER_BASE_URL: provider.url, PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '5000' };
    // One attempt per item: a 429 that spent it would fail the item at once.
    t = await startTestApp({ env: { ...providerEnv, ITEM_MAX_ATTEMPTS: '1' } });
    worker = await startScanWorker({ runtime: t.runtime, config: t.config, clock: t.clock, concurrency: 4, log: () => {}, providerEnv });
  });
  after(async () => {
    await worker?.stop();
    await t?.close();
    await provider?.close();
  });

  test('the items are deferred, not failed: every run completes, each item on its one attempt, called again only after Retry-After', async () => {
    const { secret } = await t.tenant({ mode: 'live' });
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'quota-429' },
      body: reportBody({ profiles: people(2, 'limited') }),
    });
    assert.equal(res.status, 201, res.text);
    const reportId: string = res.body.data.report.id;
    for (const run of res.body.data.scan_requests as Array<{ id: string }>) {
      const done = await eventually(
        async () => {
          const r = await t.request('GET', `/api/v1/reports/${reportId}/scans/${run.id}`, { key: secret });
          return ['queued', 'running'].includes(r.body.data.status) ? null : r.body.data;
        },
        60_000,
        200,
      );
      assert.equal(done.status, 'completed');
      assert.equal(done.counts.failed, 0);
    }
    const items = await t.runtime.db.selectFrom('scan_items').select(['status', 'attempts']).where('report_id', '=', reportId).execute();
    assert.equal(items.length, 5, 'two people in two modes, and the company page');
    for (const item of items) assert.deepEqual(item, { status: 'succeeded', attempts: 1 });

    // Two calls per item (the 429, then the answer), the second no earlier than Retry-After allows.
    const byItem = new Map<string, number[]>();
    provider.requests.forEach((r, i) => {
      const body = JSON.parse(r.body);
      const key = `${body.kind} ${body.mode} ${body.url}`;
      byItem.set(key, [...(byItem.get(key) ?? []), provider.callLog[i].startedAt]);
    });
    assert.equal(byItem.size, 5);
    for (const [key, starts] of byItem) {
      assert.equal(starts.length, 2, key);
      assert.ok(starts[1] - starts[0] >= 1_000, `${key}: called again ${Math.round(starts[1] - starts[0])} ms after a Retry-After of 1 s`);
    }
  });
});
