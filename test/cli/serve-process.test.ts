/**
 * `profile-scan serve` as a real process of the compiled build
 * (bin/profile-scan.js), with LOG_LEVEL=info:
 *
 * - One logger: its output is JSON lines only, requests
 *   logged with their request id and route, and no secret anywhere in it:
 *   not the API key (Authorization), not a wrong key someone tried, not the
 *   public report token (in /public/reports/<token> URLs), not a cookie, not
 *   the provider's key, not the metrics token.
 * - Bounded shutdown (item 7): on SIGTERM with items still collecting (a
 *   slow simulator), the process stops within SHUTDOWN_TIMEOUT_SECONDS plus
 *   a little, and the items it held are back in the queue: pending, claim
 *   cleared, their attempt given back.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setReportSharing } from '../../src/use-cases/manage-report.js';
import { eventually, people, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { startService, type ServiceProcess } from '../support/processes.js';

const PROVIDER_KEY = 'prov_live_SECRET_0123456789abcdefXYZ';
const METRICS_TOKEN = 'metrics_SECRET_token_0123456789';
const COOKIE_VALUE = 'session_SECRET_cookie_0123456789';
const WRONG_KEY = 'psk_test_WRONGwrongWRONGwrong0123456789abcd';
const SHUTDOWN_SECONDS = 2;

describe('serve process: one logger with no secrets in it, and a bounded shutdown', () => {
  let t: TestApp;
  let owner: Tenant;
  let serve: ServiceProcess;
  let dataDir: string;
  let publicToken: string;
  let reportId: string;
  let exitCode: number | null;
  let stoppedInMs = 0;

  before(async () => {
    t = await startTestApp();
    owner = await t.tenant();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-serve-'));
    serve = await startService('serve', ['serve'], {
      DATABASE_URL: t.runtime.databaseUrl,
      DATA_DIR: dataDir,
      PORT: '0',
      WORKER_CONCURRENCY: '4',
      SIMULATOR_DELAY_MS: '60000',
      ITEM_LEASE_SECONDS: '30',
      SHUTDOWN_TIMEOUT_SECONDS: String(SHUTDOWN_SECONDS),
      METRICS_TOKEN,
      PROVIDER_BASE_URL: 'http://127.0.0.1:9/provider',
      PROVIDER_API_KEY: PROVIDER_KEY,
      MAINTENANCE_INTERVAL: '0',
    });
    const auth = { authorization: `Bearer ${owner.secret}` };
    assert.equal((await fetch(`${serve.url}/api/v1/context`, { headers: { ...auth, cookie: `ps_session=${COOKIE_VALUE}` } })).status, 200);
    assert.equal((await fetch(`${serve.url}/api/v1/context`, { headers: { authorization: `Bearer ${WRONG_KEY}` } })).status, 401);
    const created = await fetch(`${serve.url}/api/v1/reports`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'serve-1' },
      body: JSON.stringify(reportBody({ profiles: people(2, 'slow') })),
    });
    assert.equal(created.status, 201);
    reportId = (await created.json()).data.report.id;
    const shared = await setReportSharing({ db: t.runtime.db, workspaceId: null, now: new Date() }, reportId, true);
    publicToken = shared!.public_token!;
    assert.ok(publicToken.length >= 16);
    assert.equal((await fetch(`${serve.url}/public/reports/${publicToken}`)).status, 200);
    await fetch(`${serve.url}/public/reports/${publicToken}x?token=${publicToken}`);
    assert.equal((await fetch(`${serve.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status, 200);

    // Shutdown while the worker thread holds items (the simulator takes a minute each).
    await eventually(
      async () => {
        const running = await t.runtime.db.selectFrom('scan_items').select('id').where('report_id', '=', reportId).where('status', '=', 'running').execute();
        return running.length >= 2;
      },
      30_000,
      50,
    );
    const started = Date.now();
    exitCode = await serve.kill('SIGTERM');
    stoppedInMs = Date.now() - started;
  });

  after(async () => {
    await serve?.kill('SIGKILL');
    await t?.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  test('the output is JSON log lines only, with request records carrying request ids and route patterns', () => {
    const lines = serve.output().trim().split('\n');
    const records = lines.map((line) => JSON.parse(line) as Record<string, any>);
    assert.ok(records.length > 10);
    const requests = records.filter((r) => r.req);
    assert.ok(
      requests.some((r) => r.req.route === '/api/v1/context' && typeof r.reqId === 'string'),
      'requests are logged with their id',
    );
    assert.ok(
      requests.some((r) => r.req.url === '/public/reports/[redacted]'),
      'the public report URL is logged, token redacted',
    );
    assert.ok(
      records.some((r) => r.role === 'worker-thread'),
      "the worker thread's records come through the same logger",
    );
    assert.ok(
      records.some((r) => /TEST HOOKS ENABLED/.test(r.msg ?? '')),
      'test hooks are announced (the suite enables them)',
    );
  });

  test('no secret in the logs: API key, wrong key, public token, cookie, provider key, metrics token', () => {
    const output = serve.output();
    for (const [what, secret] of [
      ['the API key', owner.secret],
      ['the wrong key', WRONG_KEY],
      ['the public token', publicToken],
      ['the cookie', COOKIE_VALUE],
      ['the provider key', PROVIDER_KEY],
      ['the metrics token', METRICS_TOKEN],
    ] as const) {
      assert.equal(output.includes(secret), false, `${what} appears in the logs`);
    }
    assert.ok(output.includes('[redacted]'));
  });

  test('SIGTERM: readiness drops, items in flight go back to the queue, and the process exits within the timeout', async () => {
    assert.equal(exitCode, 0);
    assert.ok(stoppedInMs < (SHUTDOWN_SECONDS + 8) * 1000, `stopped in ${stoppedInMs} ms`);
    const items = await t.runtime.db
      .selectFrom('scan_items')
      .select(['status', 'attempts', 'claim_id', 'lease_expires_at', 'reason'])
      .where('report_id', '=', reportId)
      .execute();
    assert.equal(items.length, 5);
    for (const item of items) {
      assert.equal(item.status, 'pending');
      assert.equal(item.claim_id, null);
      assert.equal(item.lease_expires_at, null);
      assert.equal(item.attempts, 0, 'the attempt is given back');
    }
    assert.ok(items.filter((i) => i.reason === 'released by a worker shutting down').length >= 2);
    const output = serve.output();
    assert.match(output, /shutdown timeout: items in flight handed back to the queue/);
    assert.match(output, /"msg":"stopped"/);
  });
});
