/**
 * The report page never claims scans run when nothing works on them
 * (use-cases/report-view.ts, "scansWaiting"): unfinished scans are shown as
 * running only while a scan worker beats. Here the worker is a real one whose
 * database connections go through a relay the test makes silent: it holds
 * its items and waits for the database, its beats stop arriving, and the page
 * (served by a process that still reaches the database) says the scans wait;
 * once the worker reaches the database again, they run again.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { startScanWorker, WORKER_DEAD_SECONDS, type ScanWorker } from '../../src/scanning/worker.js';
import { writeBreakerState } from '../../src/store/brightdata-repository.js';
import { SCANS_RUNNING, SCANS_WAITING } from '../../src/web/components/runs.js';
import { eventually, people, reportBody, startTestApp, type TestApp } from '../support/app.js';
import { relayedUrl, startRelay, targetOf, type Relay } from '../support/relay.js';
import { webUser, type WebUser } from '../support/web.js';

describe('the report page says whether its scans run or wait', () => {
  let t: TestApp;
  let user: WebUser;
  let reportId: string;
  let relay: Relay;
  let workerRuntime: Runtime | null = null;
  let worker: ScanWorker | null = null;

  before(async () => {
    t = await startTestApp();
    const { secret, workspaceId } = await t.tenant();
    user = await webUser(t, workspaceId);
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'scan-status' },
      body: reportBody({ profiles: people(2, 'scan-status') }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    relay = await startRelay(targetOf(t.database.url));
  });

  after(async () => {
    relay.silent = false;
    await worker?.stop({ timeoutMs: 100 });
    await workerRuntime?.close();
    await relay?.close();
    await t?.close();
  });

  const page = async () => {
    const res = await user.client.get(`/reports/${reportId}`);
    assert.equal(res.status, 200);
    const status = /<p id="live-status"[^>]*>([^<]*)<\/p>/.exec(res.text)?.[1] ?? '';
    const runs = [...res.text.matchAll(/<span data-field="status">([^<]*)<\/span>/g)].map((m) => m[1]);
    return { status: status.replace(/&#39;|&apos;/g, "'"), runs };
  };
  const progress = async () => {
    const res = await user.client.get(`/reports/${reportId}/progress`);
    assert.equal(res.status, 200);
    return JSON.parse(res.text) as { waiting: boolean; status_text: string; runs: Array<{ status: string; status_label: string }> };
  };

  test('queued scans and no scan worker: the page and its progress say they wait for a worker', async () => {
    const shown = await page();
    assert.equal(shown.status, SCANS_WAITING);
    assert.ok(shown.runs.length > 0 && shown.runs.every((r) => r === 'Waiting for a worker'), shown.runs.join(', '));
    const p = await progress();
    assert.equal(p.waiting, true);
    assert.equal(p.status_text, SCANS_WAITING);
    assert.ok(p.runs.every((r) => r.status_label === 'Waiting for a worker'));
  });

  test('a worker that beats: the scans run; the same worker waiting for the database: they wait; back: they run', async () => {
    const config = loadConfig({ DATABASE_URL: relayedUrl(t.database.url, relay), DATA_DIR: t.config.dataDir, LOG_LEVEL: 'silent' });
    workerRuntime = await openRuntime(config, { poolSize: 4 });
    // Its items stay in flight for the whole test.
    worker = await startScanWorker({
      runtime: workerRuntime,
      config: { ...t.config, simulatorDelayMs: 600_000 },
      clock: t.clock,
      concurrency: 4,
      log: () => {},
    });
    await eventually(async () => (await progress()).runs.some((r) => r.status === 'running') && !(await progress()).waiting, 15_000, 100);
    const running = await page();
    assert.equal(running.status, SCANS_RUNNING);
    assert.ok(running.runs.includes('Running'), running.runs.join(', '));

    relay.silent = true;
    // Its beats no longer arrive: once it would be taken for dead, the page stops saying the scans run.
    const waited = Date.now();
    await eventually(async () => (await progress()).waiting, (WORKER_DEAD_SECONDS + 10) * 1000, 250);
    assert.ok(Date.now() - waited >= (WORKER_DEAD_SECONDS - 4) * 1000, 'not before its beats have been missing a while');
    const waiting = await page();
    assert.equal(waiting.status, SCANS_WAITING);
    assert.ok(!waiting.runs.includes('Running'), waiting.runs.join(', '));

    relay.silent = false;
    await eventually(async () => !(await progress()).waiting, 15_000, 100);
    assert.equal((await page()).status, SCANS_RUNNING);
  });

  test('collection paused by the provider breaker: the page and its progress say it once, instead of "running"; resumed: running again', async () => {
    await eventually(async () => !(await progress()).waiting, 15_000, 100);
    await writeBreakerState(t.runtime.db, 'brightdata', 'open', 'provider answered 503');
    try {
      const res = await user.client.get(`/reports/${reportId}`);
      const shown = await page();
      assert.match(shown.status, /^Collection is paused: the data provider is not answering \(provider answered 503\)/);
      assert.doesNotMatch(res.text, new RegExp(SCANS_RUNNING.replace(/[.;]/g, '.')));
      assert.equal(res.text.match(/Collection is paused/g)?.length, 1, 'said once');
      assert.ok(shown.runs.length > 0 && shown.runs.every((r) => r === 'Waiting for the data provider'), shown.runs.join(', '));
      const p = await progress();
      assert.equal(p.status_text, shown.status);
      assert.ok(p.runs.every((r) => r.status_label !== 'Running'));
    } finally {
      await writeBreakerState(t.runtime.db, 'brightdata', 'closed', null);
    }
    assert.equal((await page()).status, SCANS_RUNNING);
  });
});
