/**
 * Refreshes: a report's people scanned again through the API
 * extension `POST /api/v1/reports/{id}/refreshes` and the one use-case every
 * entry point calls (use-cases/refresh-report.ts), against a real server,
 * PostgreSQL and scan worker.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ManualClock } from '../../src/clock.js';
import { readScanAllowance, setScanAllowance } from '../../src/use-cases/scan-allowance.js';
import { setArchived } from '../../src/store/report-repository.js';
import { refreshReport } from '../../src/use-cases/refresh-report.js';
import { ScanItemQueue } from '../../src/store/queue-channel.js';
import { reportBody, scansFinished, startTestApp, type Tenant, type TestApp } from '../support/app.js';

const url = (slug: string) => `https://pronet.example/in/${slug}`;

describe('refreshes', () => {
  let t: TestApp;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock(new Date('2026-11-20T12:00:00Z'));
    t = await startTestApp({ clock });
  });
  after(async () => t?.close());

  async function scannedReport(owner: Tenant, slugs: string[], options: { finish?: boolean } = { finish: true }) {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': `create-${slugs.join('-')}` },
      body: reportBody({ profiles: slugs.map((slug) => ({ pronet_url: url(slug), name: `Person ${slug}` })) }),
    });
    assert.equal(created.status, 201);
    const reportId: string = created.body.data.report.id;
    const profileIds: string[] = created.body.data.profiles.rows.map((r: { profile_id: string }) => r.profile_id);
    if (options.finish !== false) {
      const worker = await t.startWorker(2);
      await scansFinished(t, owner.secret, reportId, slugs.filter((s) => !s.startsWith('inaccessible-')).length);
      await worker.stop();
    }
    return { reportId, profileIds };
  }

  const refresh = (owner: Tenant, reportId: string, key: string, body?: unknown) => {
    // A refresh's runs are newer than the scans before it (the service clock stands still otherwise).
    clock.advance(60_000);
    return t.request('POST', `/api/v1/reports/${reportId}/refreshes`, { key: owner.secret, headers: { 'idempotency-key': key }, body });
  };

  async function pendingItems(reportId: string) {
    const { rows } = await sql<{ n: string }>`select count(*) as n from scan_items where report_id = ${reportId} and status = 'pending'`.execute(t.runtime.db);
    return Number(rows[0].n);
  }
  const used = async (owner: Tenant) => (await readScanAllowance(t.runtime.db, owner.workspaceId, clock.now())).used;

  test('a refresh queues a full_profile and an activity item per active person and one for the company page, and reserves one scan per person', async () => {
    const owner = await t.tenant();
    const { reportId } = await scannedReport(owner, ['r1a', 'r1b', 'r1c']);
    const before = await used(owner);
    const res = await refresh(owner, reportId, 'refresh-1');
    assert.equal(res.status, 201);
    assert.equal(res.body.data.people_requested, 3);
    assert.equal(res.body.data.people_queued, 3);
    assert.deepEqual(
      res.body.data.scan_requests.map((s: { mode: string; jobs_created: number; jobs_coalesced: number }) => [s.mode, s.jobs_created, s.jobs_coalesced]),
      [
        ['full_profile', 3, 0],
        ['activity', 4, 0],
      ],
    );
    assert.equal(await pendingItems(reportId), 7);
    assert.equal((await used(owner)) - before, 3);
  });

  test('while a refresh runs the previous results stay shown, freshness stale with refresh_in_progress, and the summary gains no fields', async () => {
    const owner = await t.tenant();
    const { reportId } = await scannedReport(owner, ['r2a', 'r2b']);
    const done = (await t.request('GET', `/api/v1/reports/${reportId}/analysis`, { key: owner.secret })).body.data;
    assert.equal(done.freshness.reasons.includes('refresh_in_progress'), false);
    assert.equal((await refresh(owner, reportId, 'refresh-2')).status, 201);
    const during = (await t.request('GET', `/api/v1/reports/${reportId}/analysis`, { key: owner.secret })).body.data;
    assert.equal(during.freshness.state, 'stale');
    assert.ok(during.freshness.reasons.includes('refresh_in_progress'));
    assert.equal(during.has_usable_results, true);
    assert.equal(during.coverage.optimization.analyzed_profiles, 2, 'the previous analyses are still counted');
    assert.deepEqual(during.optimization_summary.counts, done.optimization_summary.counts);
    assert.deepEqual(Object.keys(during).sort(), Object.keys(done).sort());
    assert.deepEqual(Object.keys(during.freshness).sort(), Object.keys(done.freshness).sort());
    const findings = await t.request('GET', `/api/v1/reports/${reportId}/analysis/profiles`, { key: owner.secret });
    assert.equal(findings.status, 200);
    assert.ok(
      findings.body.data.every((r: { analysis: unknown }) => r.analysis !== null),
      'every person keeps their analysis',
    );

    const worker = await t.startWorker(2);
    const after = await scansFinished(t, owner.secret, reportId, 2);
    await worker.stop();
    assert.equal(after.freshness.reasons.includes('refresh_in_progress'), false);
  });

  test('reads start nothing and reserve nothing, before, during and after a refresh', async () => {
    const owner = await t.tenant();
    const { reportId } = await scannedReport(owner, ['r3a']);
    assert.equal((await refresh(owner, reportId, 'refresh-3')).status, 201);
    const pending = await pendingItems(reportId);
    const before = await used(owner);
    for (const path of ['analysis', 'analysis/profiles', 'analysis/activity', 'profiles'])
      assert.equal((await t.request('GET', `/api/v1/reports/${reportId}/${path}`, { key: owner.secret })).status, 200);
    assert.equal(await pendingItems(reportId), pending);
    assert.equal(await used(owner), before);
  });

  test('a second refresh while the first is still queued coalesces: nothing new is queued or charged', async () => {
    const owner = await t.tenant();
    const { reportId } = await scannedReport(owner, ['r4a', 'r4b']);
    assert.equal((await refresh(owner, reportId, 'refresh-4a')).status, 201);
    const before = await used(owner);
    const second = await refresh(owner, reportId, 'refresh-4b');
    assert.equal(second.status, 201);
    assert.equal(second.body.data.people_queued, 0);
    assert.deepEqual(
      second.body.data.scan_requests.map((s: { jobs_created: number; jobs_coalesced: number }) => [s.jobs_created, s.jobs_coalesced]),
      [
        [0, 2],
        [0, 2],
      ],
    );
    assert.equal(await pendingItems(reportId), 5);
    assert.equal(await used(owner), before);
  });

  test('the same Idempotency-Key and body replays the first answer and queues nothing; another body with it is 409', async () => {
    const owner = await t.tenant();
    const { reportId, profileIds } = await scannedReport(owner, ['r5a', 'r5b']);
    const first = await refresh(owner, reportId, 'refresh-5', { profile_ids: [profileIds[0]] });
    assert.equal(first.status, 201);
    const pending = await pendingItems(reportId);
    const replay = await refresh(owner, reportId, 'refresh-5', { profile_ids: [profileIds[0]] });
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(replay.body.data, first.body.data);
    assert.equal(await pendingItems(reportId), pending);
    const other = await refresh(owner, reportId, 'refresh-5', { profile_ids: [profileIds[1]] });
    assert.equal(other.status, 409);
    assert.equal(other.body.error.code, 'idempotency_key_reused');
  });

  test('chosen people only: the others are not queued; someone not on the report is 422 naming the position, nothing queued', async () => {
    const owner = await t.tenant();
    const { reportId, profileIds } = await scannedReport(owner, ['r6a', 'r6b', 'r6c']);
    const res = await refresh(owner, reportId, 'refresh-6', { profile_ids: [profileIds[1]] });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.people_queued, 1);
    assert.equal(await pendingItems(reportId), 3, 'one person, two modes, and the company page');
    const other = await scannedReport(owner, ['r6z'], { finish: false });
    const bad = await refresh(owner, reportId, 'refresh-6b', { profile_ids: [profileIds[0], other.profileIds[0]] });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.code, 'validation_failed');
    assert.deepEqual(bad.body.error.details, [{ field: 'profile_ids[1]', code: 'not_on_report' }]);
    assert.equal(bad.text.includes(other.profileIds[0]), false, 'the error does not echo the ids');
    assert.equal(await pendingItems(reportId), 3);
  });

  test('over the scan allowance the refresh is refused whole with 409 scan_allowance_exceeded: nothing queued, the key free again', async () => {
    const owner = await t.tenant();
    const { reportId } = await scannedReport(owner, ['r7a', 'r7b', 'r7c']);
    await setScanAllowance(t.runtime.db, owner.workspaceId, (await used(owner)) + 2, clock.now());
    const res = await refresh(owner, reportId, 'refresh-7');
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'scan_allowance_exceeded');
    assert.match(res.body.error.message, /2 of \d+ left/);
    assert.equal(res.headers.get('scan-allowance-remaining'), '2');
    assert.equal(await pendingItems(reportId), 0);
    await setScanAllowance(t.runtime.db, owner.workspaceId, null, clock.now());
    assert.equal((await refresh(owner, reportId, 'refresh-7')).status, 201, 'the refused key saved nothing');
  });

  test('"Try these again" scans only the people whose latest attempt failed or was inaccessible', async () => {
    const owner = await t.tenant();
    const { reportId, profileIds } = await scannedReport(owner, ['r8a', 'inaccessible-r8b']);
    const ctx = { db: t.runtime.db, clock, queue: new ScanItemQueue(), workspaceId: owner.workspaceId, keyMode: 'test' as const };
    clock.advance(60_000);
    const res = await refreshReport(ctx, reportId, { target: { kind: 'unsuccessful' } });
    assert.equal(res.data.people_queued, 1);
    const { rows } = await sql<{ profile_id: string }>`
      select profile_id from scan_items where report_id = ${reportId} and status = 'pending' and kind = 'person'`.execute(t.runtime.db);
    assert.deepEqual([...new Set(rows.map((r) => r.profile_id))], [profileIds[1]]);
    const none = await scannedReport(owner, ['r8c']);
    await assert.rejects(refreshReport(ctx, none.reportId, { target: { kind: 'unsuccessful' } }), { code: 'validation_failed', status: 422 });
  });

  test('an archived report refuses a refresh with 409 report_archived; a foreign report is 404', async () => {
    const owner = await t.tenant();
    const { reportId } = await scannedReport(owner, ['r9a'], { finish: false });
    await setArchived(t.runtime.db, reportId, true, clock.now());
    const res = await refresh(owner, reportId, 'refresh-9');
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'report_archived');
    const stranger = await t.tenant();
    assert.equal((await refresh(stranger, reportId, 'refresh-9')).status, 404);
  });

  test('the extension is a write: Idempotency-Key required, profiles:add scope required, write limits apply (429 with Retry-After)', async () => {
    const owner = await t.tenant({
      limits: { writes_per_minute_per_key: 3, writes_per_minute_per_workspace: 100, submitted_profiles_per_minute_per_workspace: 1000 },
    });
    const { reportId } = await scannedReport(owner, ['r10a'], { finish: false });
    const noKey = await t.request('POST', `/api/v1/reports/${reportId}/refreshes`, { key: owner.secret });
    assert.equal(noKey.status, 400);
    assert.equal(noKey.body.error.code, 'idempotency_key_invalid');
    const reader = await t.key(owner.workspaceId, { scopes: ['reports:read'] });
    const denied = await refresh(reader, reportId, 'refresh-10');
    assert.equal(denied.status, 403);
    // Within one minute of the service clock.
    const write = (key: string) => t.request('POST', `/api/v1/reports/${reportId}/refreshes`, { key: owner.secret, headers: { 'idempotency-key': key } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await write(`refresh-10-${i}`)).status);
    assert.deepEqual(statuses, [201, 201, 201]);
    const limited = await write('refresh-10-x');
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  });

  test('an invalid body is 422 validation_failed naming the field; nothing queued', async () => {
    const owner = await t.tenant();
    const { reportId } = await scannedReport(owner, ['r11a'], { finish: false });
    const pending = await pendingItems(reportId);
    const res = await refresh(owner, reportId, 'refresh-11', { profile_ids: ['not-a-uuid'] });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'validation_failed');
    assert.equal(await pendingItems(reportId), pending);
  });
});
