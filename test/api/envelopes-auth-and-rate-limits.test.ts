/**
 * Foundation rules through a real server: envelopes (2.1, 7), authentication
 * and scopes (4, 5), body handling (413/415/400), 404/405, context and
 * workspace (2.2, 2.3), rate limits (8) including across two processes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../../src/clock.js';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';
import { startService } from '../support/processes.js';
import { changeWorkspaceSettings, revokeKey } from '../support/operator.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('envelopes, authentication, scopes and bodies', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('2.1: X-Request-ID equals request_id and success carries Cache-Control: no-store', async () => {
    const { secret } = await t.tenant();
    const res = await t.request('GET', '/api/v1/context', { key: secret });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'request_id']);
    assert.match(res.body.request_id, UUID);
    assert.equal(res.headers.get('x-request-id'), res.body.request_id);
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });

  test('7.1: errors use {error: {code, message}, request_id}, no-store, and never echo the token', async () => {
    const res = await t.request('GET', '/api/v1/context', { key: 'psk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'unauthorized');
    assert.equal(typeof res.body.error.message, 'string');
    assert.equal(res.headers.get('x-request-id'), res.body.request_id);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.ok(!res.text.includes('AAAAAAAAAAAAAAAA'));
  });

  test('5.1: a request without a bearer key, or with a malformed one, is 401', async () => {
    assert.equal((await t.request('GET', '/api/v1/workspace')).status, 401);
    assert.equal((await t.request('GET', '/api/v1/workspace', { headers: { authorization: 'Basic abc' } })).status, 401);
  });

  test('2.2/4.1: GET /context returns key, user, workspace, scopes and the effective limits', async () => {
    const tenant = await t.tenant({ scopes: ['workspace:read', 'reports:read'] });
    const res = await t.request('GET', '/api/v1/context', { key: tenant.secret });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, {
      key_id: tenant.keyId,
      user_id: tenant.userId,
      workspace_id: tenant.workspaceId,
      scopes: ['reports:read', 'workspace:read'],
      limits: {
        reads_per_minute_per_key: 60_000,
        reads_per_minute_per_workspace: 300_000,
        page_size_max: 100,
        writes_per_minute_per_key: 100_000,
        writes_per_minute_per_workspace: 100_000,
        submitted_profiles_per_minute_per_workspace: 1_000_000,
        profiles_per_write_max: 100,
      },
    });
  });

  test('2.3/4.2: GET /workspace returns exactly the workspace fields', async () => {
    const tenant = await t.tenant({ name: 'Acme Sales' });
    const res = await t.request('GET', '/api/v1/workspace', { key: tenant.secret });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body.data).sort(), ['created_at', 'id', 'name', 'slug', 'status', 'updated_at']);
    assert.equal(res.body.data.id, tenant.workspaceId);
    assert.equal(res.body.data.name, 'Acme Sales');
    assert.equal(res.body.data.status, 'active');
    assert.match(res.body.data.slug, /^acme-sales/);
  });

  test('section 4: required scopes are a conjunction; a missing scope is 403 insufficient_scope', async () => {
    const tenant = await t.tenant({ scopes: ['reports:read'] });
    const res = await t.request('GET', '/api/v1/context', { key: tenant.secret });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'insufficient_scope');
    const create = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      body: reportBody(),
      headers: { 'idempotency-key': 'x1' },
    });
    assert.equal(create.status, 403);
  });

  test('5.6: revocation denies the next request', async () => {
    const tenant = await t.tenant();
    assert.equal((await t.request('GET', '/api/v1/context', { key: tenant.secret })).status, 200);
    await revokeKey(t, tenant.keyId);
    const res = await t.request('GET', '/api/v1/context', { key: tenant.secret });
    assert.equal(res.status, 401);
  });

  test('5.4: workspace API access disabled is 403 api_access_disabled', async () => {
    const tenant = await t.tenant();
    await changeWorkspaceSettings(t, tenant.workspaceId, { api_access: false });
    const res = await t.request('GET', '/api/v1/context', { key: tenant.secret });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'api_access_disabled');
  });

  test('7: unknown path is 404 and a known path with another method is 405, both in the envelope', async () => {
    const { secret } = await t.tenant();
    const missing = await t.request('GET', '/api/v1/nope', { key: secret });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
    const wrong = await t.request('DELETE', '/api/v1/reports', { key: secret });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.body.error.code, 'method_not_allowed');
    assert.match(wrong.headers.get('allow') ?? '', /GET/);
    assert.match(wrong.headers.get('allow') ?? '', /POST/);
  });

  test('4.4: non-JSON bodies are 415, malformed JSON is 400, bodies over 1 MiB are 413', async () => {
    const { secret } = await t.tenant();
    const headers = { 'idempotency-key': 'body-1' };
    const text = await t.request('POST', '/api/v1/reports', {
      key: secret,
      rawBody: 'name=x',
      headers: { ...headers, 'content-type': 'text/plain' },
    });
    assert.equal(text.status, 415);
    assert.equal(text.body.error.code, 'unsupported_media_type');
    const form = await t.request('POST', '/api/v1/reports', {
      key: secret,
      rawBody: 'a=b',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    const bad = await t.request('POST', '/api/v1/reports', {
      key: secret,
      rawBody: '{"name":',
      headers: { ...headers, 'content-type': 'application/json' },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'invalid_request');
    const big = await t.request('POST', '/api/v1/reports', {
      key: secret,
      rawBody: JSON.stringify({ ...reportBody(), name: 'x'.repeat(1024 * 1024 + 10) }),
      headers: { ...headers, 'content-type': 'application/json' },
    });
    assert.equal(big.status, 413);
    assert.equal(big.body.error.code, 'payload_too_large');
  });

  test('OpenAPI 3.1 document is served and lists the contract paths', async () => {
    const res = await t.request('GET', '/api/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    for (const p of ['/api/v1/context', '/api/v1/reports', '/api/v1/reports/{report_id}/profile-imports']) assert.ok(res.body.paths[p], p);
  });
});

describe('rate limits (section 8)', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-11-22T10:00:10.000Z');
  before(async () => {
    t = await startTestApp({ clock, env: { READ_LIMIT_MULTIPLIER: '1' } });
  });
  after(async () => t.close());

  test('8: the 61st read of a key in a UTC minute is 429 with Retry-After until the window ends', async () => {
    const { secret } = await t.tenant();
    for (let i = 0; i < 60; i++) {
      const ok = await t.request('GET', '/api/v1/context', { key: secret });
      assert.equal(ok.status, 200, `request ${i + 1}`);
    }
    const refused = await t.request('GET', '/api/v1/context', { key: secret });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'rate_limited');
    assert.equal(refused.headers.get('retry-after'), '50');
    assert.match(refused.headers.get('ratelimit') ?? '', /^"reads-per-key";r=0;t=50$/);
    clock.advance(50_000);
    assert.equal((await t.request('GET', '/api/v1/context', { key: secret })).status, 200);
  });

  test('8: RateLimit-Policy lists the policies and RateLimit counts down', async () => {
    const { secret } = await t.tenant();
    const res = await t.request('GET', '/api/v1/workspace', { key: secret });
    assert.equal(res.headers.get('ratelimit-policy'), '"reads-per-key";q=60;w=60, "reads-per-workspace";q=300;w=60');
    assert.match(res.headers.get('ratelimit') ?? '', /^"reads-per-key";r=59;t=\d+$/);
  });

  test('8: writes are limited per key by the workspace setting (default 10)', async () => {
    const tenant = await t.tenant({ limits: {} });
    for (let i = 0; i < 10; i++) {
      const res = await t.request('POST', '/api/v1/reports', {
        key: tenant.secret,
        body: reportBody(),
        headers: { 'idempotency-key': `w-${i}` },
      });
      assert.equal(res.status, 201);
    }
    const refused = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      body: reportBody(),
      headers: { 'idempotency-key': 'w-10' },
    });
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  });

  test('8: per-workspace reads are shared by every key of the workspace', async () => {
    const first = await t.tenant();
    const keys = [first, ...(await Promise.all(Array.from({ length: 5 }, () => t.key(first.workspaceId))))];
    let admitted = 0;
    for (let i = 0; i < 305; i++) {
      const res = await t.request('GET', '/api/v1/context', { key: keys[i % keys.length].secret });
      if (res.status === 200) admitted++;
      else assert.equal(res.status, 429);
    }
    assert.equal(admitted, 300);
  });
});

describe('rate limits across processes', () => {
  let t: TestApp;
  const children: ChildProcess[] = [];
  before(async () => {
    t = await startTestApp({ env: { READ_LIMIT_MULTIPLIER: '1' } });
  });
  after(async () => {
    for (const child of children) child.kill('SIGTERM');
    await t.close();
  });

  // Both servers run on one clock, shifted so that a UTC minute starts 1 s after they are spawned
  // (set by the test, just before it spawns them).
  let offsetMs = 0;
  const minuteOf = (ms: number) => Math.floor(ms / 60_000);

  async function serve(): Promise<string> {
    const service = await startService('serve', ['serve'], {
      DATABASE_URL: t.database.url,
      PORT: '0',
      WORKER_CONCURRENCY: '0',
      LOG_LEVEL: 'warn',
      READ_LIMIT_MULTIPLIER: '1',
      CLOCK_OFFSET_MS: String(offsetMs),
    });
    children.push(service.child);
    return service.url;
  }

  test('8: counters are shared by every process on the same database (two servers, one key)', async () => {
    const spawnedAt = Date.now();
    offsetMs = Math.ceil(spawnedAt / 60_000) * 60_000 + 1000 - spawnedAt;
    const [a, b] = await Promise.all([serve(), serve()]);
    // The 62 requests must fall in one window of the servers' clock, however slowly the servers
    // started or answer: with less than 40 s left in the window, start in the next one, and if a
    // window still ends mid-sequence, run it again with a fresh key (fresh counters).
    for (let round = 1; ; round++) {
      const intoWindow = (Date.now() + offsetMs) % 60_000;
      if (intoWindow > 20_000) await sleep(60_000 - intoWindow + 500);
      const { secret } = await t.tenant();
      const window = minuteOf(Date.now() + offsetMs);
      const statuses: number[] = [];
      for (let i = 0; i < 62; i++) {
        const base = i % 2 === 0 ? a : b;
        const res = await fetch(`${base}/api/v1/context`, { headers: { authorization: `Bearer ${secret}` } });
        statuses.push(res.status);
        await res.arrayBuffer();
      }
      if (minuteOf(Date.now() + offsetMs) !== window) {
        assert.ok(round < 3, 'three windows ended before 62 requests were answered');
        continue;
      }
      assert.deepEqual(statuses.slice(0, 60), Array(60).fill(200));
      assert.deepEqual(statuses.slice(60), [429, 429]);
      break;
    }
  });
});
