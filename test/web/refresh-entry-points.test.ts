/**
 * Refreshes through the web and both command lines: each entry
 * point calls the one use-case (use-cases/refresh-report.ts); what it queues,
 * charges and refuses is tested once in refreshes.test.ts, here that each
 * entry point reaches it, asks first where the web does, respects roles, and
 * says what happened.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ManualClock } from '../../src/clock.js';
import { sql } from 'kysely';
import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { readScanAllowance, setScanAllowance } from '../../src/use-cases/scan-allowance.js';
import { reportBody, scansFinished, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { runAdmin } from '../support/processes.js';
import { webUser, type WebUser } from '../support/web.js';

/** The client package's own command (what an API user installs). */
const BIN = fileURLToPath(new URL('../../packages/client/bin/profile-scan-client.js', import.meta.url));

describe('refresh entry points', () => {
  let t: TestApp;
  let tenant: Tenant;
  let owner: WebUser;
  let viewer: WebUser;
  let reportId: string;
  let profileIds: string[];

  before(async () => {
    t = await startTestApp();
    tenant = await t.tenant();
    owner = await webUser(t, tenant.workspaceId, 'member');
    viewer = await webUser(t, tenant.workspaceId, 'viewer');
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': 'entry' },
      body: reportBody({
        profiles: ['ann', 'bob', 'inaccessible-cy'].map((slug) => ({ pronet_url: `https://pronet.example/in/${slug}`, name: `Person ${slug}` })),
      }),
    });
    reportId = created.body.data.report.id;
    profileIds = created.body.data.profiles.rows.map((r: { profile_id: string }) => r.profile_id);
    const worker = await t.startWorker(2);
    await scansFinished(t, tenant.secret, reportId, 2);
    await worker.stop();
  });
  after(() => t?.close());

  async function pendingPeople(): Promise<string[]> {
    const { rows } = await sql<{ profile_id: string }>`
      select distinct profile_id from scan_items where report_id = ${reportId} and status = 'pending' and kind = 'person' order by profile_id`.execute(
      t.runtime.db,
    );
    return rows.map((r) => r.profile_id);
  }
  /** Back to nothing pending between tests (the tests are about admission, not scanning). */
  async function cancelPending() {
    await sql`update scan_items set status = 'cancelled', finished_at = now() where report_id = ${reportId} and status = 'pending'`.execute(t.runtime.db);
    await sql`update scan_runs set status = 'cancelled' where report_id = ${reportId} and status = 'queued'`.execute(t.runtime.db);
  }
  const used = async () => (await readScanAllowance(t.runtime.db, tenant.workspaceId, new Date())).used;

  test('web "Scan again" on a report asks first, naming what it acts on, and queues nothing until confirmed', async () => {
    await cancelPending();
    const page = await owner.client.get(`/reports/${reportId}`);
    assert.match(page.text, /<h2 id="refresh-heading">Scan again<\/h2>/);
    assert.match(page.text, /Try these again \(1\)/, 'one person was inaccessible');
    const asked = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/refresh`, { people: 'all' });
    assert.equal(asked.status, 200);
    assert.match(asked.text, /Scan every person of “Quarterly audit” again\?/);
    assert.deepEqual(await pendingPeople(), []);
    const before = await used();
    const done = await owner.client.confirm(`/reports/${reportId}`, `/reports/${reportId}/refresh`, { people: 'all' });
    assert.equal(done.status, 303);
    assert.equal(done.location, `/reports/${reportId}?done=refreshed&queued=3&pending=0`);
    assert.deepEqual(await pendingPeople(), [...profileIds].sort());
    assert.equal((await used()) - before, 3);
    const shown = await owner.client.get(done.location);
    assert.match(shown.text, /Scans queued for 3 people/);
  });

  test('web "Try these again" queues only the person who was inaccessible', async () => {
    await cancelPending();
    const done = await owner.client.confirm(`/reports/${reportId}`, `/reports/${reportId}/refresh`, { people: 'unsuccessful' });
    assert.equal(done.status, 303);
    assert.deepEqual(await pendingPeople(), [profileIds[2]]);
  });

  test('web "Scan again" on a person asks first, then queues that person only; a second time coalesces and says so', async () => {
    await cancelPending();
    const personPage = `/reports/${reportId}/people/${profileIds[0]}`;
    const asked = await owner.client.submit(personPage, `${personPage}/refresh`);
    assert.equal(asked.status, 200);
    assert.match(asked.text, /Scan Person ann of “Quarterly audit” again\?/);
    const done = await owner.client.confirm(personPage, `${personPage}/refresh`);
    assert.equal(done.location, `${personPage}?done=refreshed&queued=1&pending=0`);
    assert.deepEqual(await pendingPeople(), [profileIds[0]]);
    const again = await owner.client.confirm(personPage, `${personPage}/refresh`);
    assert.equal(again.location, `${personPage}?done=refreshed&queued=0&pending=1`);
    assert.match((await owner.client.get(again.location)).text, /already waiting; nothing more was queued/);
  });

  test('web: a viewer sees no Scan again control and a refresh post is refused with 403, nothing queued', async () => {
    await cancelPending();
    const page = await viewer.client.get(`/reports/${reportId}`);
    assert.doesNotMatch(page.text, /refresh-heading/);
    const refused = await viewer.client.confirm(`/reports/${reportId}`, `/reports/${reportId}/refresh`, { people: 'all' }).catch(() => null);
    assert.ok(refused === null || refused.status === 403);
    assert.deepEqual(await pendingPeople(), []);
  });

  test('web: over the scan allowance the refresh is refused with the allowance named, nothing queued', async () => {
    await cancelPending();
    await setScanAllowance(t.runtime.db, tenant.workspaceId, await used(), new Date());
    try {
      const refused = await owner.client.confirm(`/reports/${reportId}`, `/reports/${reportId}/refresh`, { people: 'all' });
      assert.equal(refused.status, 409);
      assert.match(refused.text, /scan allowance has 0 of \d+ left this month/);
      assert.deepEqual(await pendingPeople(), []);
    } finally {
      await setScanAllowance(t.runtime.db, tenant.workspaceId, null, new Date());
    }
  });

  test('web: the refresh schedule is set from the report page and shown with its next time', async () => {
    const saved = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/refresh-schedule`, { cadence: 'monthly' });
    assert.equal(saved.status, 303);
    const page = await owner.client.get(saved.location!);
    assert.match(page.text, /Refresh schedule saved: every month/);
    assert.match(page.text, /<option value="monthly" selected="">Every month<\/option>|<option value="monthly" selected>Every month<\/option>/);
    assert.match(page.text, /Next scheduled refresh/);
    const bad = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/refresh-schedule`, { cadence: 'hourly' });
    assert.equal(bad.status, 422);
    await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/refresh-schedule`, { cadence: 'off' });
    assert.doesNotMatch((await owner.client.get(`/reports/${reportId}`)).text, /Next scheduled refresh/);
  });

  test("operator CLI: report refresh queues the report's people and prints what it did; report schedule sets it", async () => {
    await cancelPending();
    const out = await runAdmin(t, 'report', 'refresh', reportId, '--json');
    const data = JSON.parse(out.stdout);
    assert.equal(data.people_queued, 3);
    assert.deepEqual(await pendingPeople(), [...profileIds].sort());
    await cancelPending();
    const one = await runAdmin(t, 'report', 'refresh', reportId, '--profile', profileIds[1]);
    assert.match(one.stdout, /scans queued for 1 of 1 people/);
    assert.deepEqual(await pendingPeople(), [profileIds[1]]);
    const schedule = JSON.parse((await runAdmin(t, 'report', 'schedule', reportId, '--every', 'weekly', '--json')).stdout);
    assert.equal(schedule.cadence, 'weekly');
    await assert.rejects(runAdmin(t, 'report', 'schedule', reportId, '--every', 'daily'), /--every takes "off", "weekly" or "monthly"/);
    await runAdmin(t, 'report', 'schedule', reportId, '--every', 'off');
  });

  test('operator CLI: over the allowance it fails with the reason and queues nothing', async () => {
    await cancelPending();
    await setScanAllowance(t.runtime.db, tenant.workspaceId, await used(), new Date());
    try {
      await assert.rejects(runAdmin(t, 'report', 'refresh', reportId), /scan allowance has 0 of/);
      assert.deepEqual(await pendingPeople(), []);
    } finally {
      await setScanAllowance(t.runtime.db, tenant.workspaceId, null, new Date());
    }
  });

  test('API client command line: refresh queues, a replay with the same idempotency key queues nothing more', async () => {
    await cancelPending();
    const run = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, ...args, '--base-url', t.baseUrl, '--json'], {
          env: { PATH: process.env.PATH, HOME: os.tmpdir(), PROFILE_SCAN_API_KEY: tenant.secret },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c) => (stdout += c));
        child.stderr.on('data', (c) => (stderr += c));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      });
    const first = await run('refresh', reportId, '--idempotency-key', 'cli-refresh-1');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(JSON.parse(first.stdout).data.people_queued, 3);
    const replay = await run('refresh', reportId, '--idempotency-key', 'cli-refresh-1');
    assert.equal(replay.code, 0);
    assert.equal(JSON.parse(replay.stdout).replayed, true);
    assert.deepEqual(await pendingPeople(), [...profileIds].sort());
  });

  test('while the people are scanned again, the report says so and that their previous results stay shown', async () => {
    await cancelPending();
    // A later scan than the one the previous test queued (the test clock stands still otherwise).
    (t.clock as ManualClock).advance(60_000);
    await owner.client.confirm(`/reports/${reportId}`, `/reports/${reportId}/refresh`, { people: 'all' });
    const shown = (await owner.client.get(`/reports/${reportId}`)).text;
    assert.match(shown, /<strong id="work-state">Scanning again<\/strong>/);
    assert.match(shown, /3 of 3 people still to scan; until each finishes, their previous results are shown\./);
  });
});
