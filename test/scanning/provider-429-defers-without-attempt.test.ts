/**
 * Provider quotas end to end: a provider that answers 429
 * with Retry-After has the item deferred (back in the queue, claimable after
 * the wait), not failed, and the deferral spends no attempt. With
 * ITEM_MAX_ATTEMPTS=2 and two 429s per URL before the provider answers, an
 * item whose deferrals counted would fail; every one must succeed on its
 * first counted attempt.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startScanWorker, type ScanWorker } from '../../src/scanning/worker.js';
import { rateLimitedFirst, startFakeProvider, type FakeProvider } from '../support/fake-provider.js';
import { eventually, reportBody, startTestApp, type TestApp } from '../support/app.js';

const API_KEY = 'pk_defer_test_key_1234';
const RATE_LIMITED_CALLS = 2;

describe('provider 429 with Retry-After through a live scan run', () => {
  let t: TestApp;
  let provider: FakeProvider;
  let worker: ScanWorker;
  let secret: string;
  let reportId: string;
  let runIds: string[];
  /** An item seen back in the queue after a 429, with its attempts and wait. */
  let deferredSeen: { attempts: number; waitSeconds: number; reason: string | null } | null = null;

  before(async () => {
    provider = await startFakeProvider({ apiKey: API_KEY, behavior: rateLimitedFirst(RATE_LIMITED_CALLS, { retryAfter: '2' }) });
    const providerEnv = { PROVIDER_BASE_URL: provider.url, PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '5000' };
    t = await startTestApp({ env: { ...providerEnv, ITEM_MAX_ATTEMPTS: '2' } });
    secret = (await t.tenant({ mode: 'live' })).secret;
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'defer-1' },
      body: reportBody({
        profiles: [{ pronet_url: 'https://pronet.example/in/rita-limits' }, { pronet_url: 'https://pronet.example/in/otto-quota' }],
      }),
    });
    assert.equal(res.status, 201, res.text);
    reportId = res.body.data.report.id;
    runIds = res.body.data.scan_requests.map((r: { id: string }) => r.id);

    worker = await startScanWorker({ runtime: t.runtime, config: t.config, clock: t.clock, concurrency: 4, log: () => {}, providerEnv });
    // Catch an item while it waits out its Retry-After.
    deferredSeen = await eventually(
      async () => {
        const { rows } = await sql<{ attempts: number; wait_seconds: number; reason: string | null }>`
        select attempts, extract(epoch from ready_at - now())::float8 as wait_seconds, reason
        from scan_items where report_id = ${reportId} and status = 'pending' and ready_at > now() limit 1`.execute(t.runtime.db);
        const row = rows[0];
        return row ? { attempts: row.attempts, waitSeconds: row.wait_seconds, reason: row.reason } : null;
      },
      30_000,
      20,
    );
    for (const runId of runIds) {
      await eventually(
        async () => {
          const run = await t.request('GET', `/api/v1/reports/${reportId}/scans/${runId}`, { key: secret });
          return ['queued', 'running'].includes(run.body.data.status) ? null : run.body.data;
        },
        60_000,
        200,
      );
    }
  });
  after(async () => {
    await worker?.stop();
    await t?.close();
    await provider?.close();
  });

  test('a 429 puts the item back in the queue until Retry-After has passed, with its attempt given back', () => {
    assert.ok(deferredSeen, 'an item was seen waiting');
    assert.equal(deferredSeen.attempts, 0, 'the deferred attempt is not counted');
    assert.ok(deferredSeen.waitSeconds > 0 && deferredSeen.waitSeconds <= 2.5, `waits out Retry-After (${deferredSeen.waitSeconds} s left)`);
    assert.match(deferredSeen.reason ?? '', /429|rate|limit/i);
  });

  test('deferred items are not failed: every run completes and every item succeeded on its first counted attempt', async () => {
    for (const runId of runIds) {
      const run = await t.request('GET', `/api/v1/reports/${reportId}/scans/${runId}`, { key: secret });
      assert.equal(run.body.data.status, 'completed');
      assert.equal(run.body.data.counts.failed, 0);
    }
    const items = await t.runtime.db.selectFrom('scan_items').select(['status', 'attempts']).where('report_id', '=', reportId).execute();
    assert.equal(items.length, 5);
    for (const item of items) {
      assert.equal(item.status, 'succeeded');
      assert.equal(item.attempts, 1, 'two 429s spent no attempt (ITEM_MAX_ATTEMPTS is 2)');
    }
    // Each (url, mode) was asked RATE_LIMITED_CALLS times in vain, then once more.
    assert.equal(provider.calls, 5 * (RATE_LIMITED_CALLS + 1));
  });

  test('the worker takes its provider permits from the limiter shared through PostgreSQL', async () => {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from provider_call_slots`.execute(t.runtime.db);
    assert.ok(rows[0].n > 0, 'the shared concurrency slots exist');
  });
});
