/**
 * Admission while workers start on the same runs. A run's stored status lags
 * its items (a claim never touches the run row; transitions reach it when
 * their roll-up deltas are folded), so coalescing must decide from the items.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
// Claims taken by hand stage workers starting on a run while admission writes to it.
import { claimItem } from '../../src/queue/claim.js';
import { settleStaleRollups } from '../../src/queue/settle.js';
import { removePerson } from '../../src/use-cases/manage-report.js';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';
import { assertRunCountsMatchItems } from '../support/rollups.js';

describe('admission races', () => {
  let t: TestApp;
  before(async () => {
    // The worker's items take 500 ms each: claims keep coming without the image work of thousands of items.
    t = await startTestApp({ env: { SIMULATOR_DELAY_MS: '500' } });
  });
  after(async () => t.close());

  async function runsOf(reportId: string) {
    return t.runtime.db.selectFrom('scan_runs').selectAll().where('report_id', '=', reportId).orderBy('created_at').execute();
  }

  /** Claims items through the real queue until `wanted` is claimed; the run rows are left as the claim leaves them. */
  async function claimUntil(wanted: string) {
    for (let claim = await claimItem(t.runtime.db, 30); claim; claim = await claimItem(t.runtime.db, 30)) {
      if (claim.itemId === wanted) return claim;
    }
    throw new Error(`item ${wanted} was never claimed`);
  }

  test('decisions/coalescing: an import into a report whose queued run has its company page already claimed answers 201 and opens a new activity run', async () => {
    const { secret } = await t.tenant();
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'claimed-company' },
      body: reportBody({ profiles: [{ pronet_url: 'https://pronet.example/in/first-one' }] }),
    });
    assert.equal(created.status, 201);
    const reportId = created.body.data.report.id;
    const company = await t.runtime.db
      .selectFrom('scan_items')
      .select(['id', 'run_id'])
      .where('report_id', '=', reportId)
      .where('kind', '=', 'company_page')
      .executeTakeFirstOrThrow();
    await claimUntil(company.id);
    // The window: the company page is running, its run still says queued.
    const before = await runsOf(reportId);
    assert.deepEqual(
      before.map((r) => r.status),
      ['queued', 'queued'],
    );

    const imported = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
      key: secret,
      headers: { 'idempotency-key': 'after-claim' },
      body: { profiles: [{ pronet_url: 'https://pronet.example/in/second-one' }] },
    });
    assert.equal(imported.status, 201, imported.text);
    const activity = imported.body.data.scan_requests.find((s: { mode: string }) => s.mode === 'activity');
    assert.notEqual(activity.scan_run_id, company.run_id, 'the begun activity run is not joined');
    assert.equal(activity.jobs_created, 2, 'the new run has the person and its own company page item');
    const items = await t.runtime.db.selectFrom('scan_items').select(['run_id', 'kind']).where('report_id', '=', reportId).execute();
    assert.equal(items.filter((i) => i.kind === 'company_page').length, 2);
  });

  test('decisions/removal and restore: a restored person whose item in the still-queued run is running gets a new run, not a 500', async () => {
    const { secret } = await t.tenant();
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'restore-running' },
      body: reportBody({ profiles: [{ pronet_url: 'https://pronet.example/in/comes-back' }, { pronet_url: 'https://pronet.example/in/stays-on' }] }),
    });
    const reportId = created.body.data.report.id;
    const profileId = created.body.data.profiles.rows[0].profile_id;
    const [fullRun] = created.body.data.scan_requests.filter((s: { mode: string }) => s.mode === 'full_profile');
    const item = await t.runtime.db
      .selectFrom('scan_items')
      .select('id')
      .where('run_id', '=', fullRun.id)
      .where('profile_id', '=', profileId)
      .executeTakeFirstOrThrow();
    await claimUntil(item.id);
    assert.ok(await removePerson({ db: t.runtime.db, workspaceId: null, now: t.clock.now() }, reportId, profileId));

    const restored = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
      key: secret,
      headers: { 'idempotency-key': 'restore' },
      body: { profiles: [{ pronet_url: 'https://pronet.example/in/comes-back' }] },
    });
    assert.equal(restored.status, 201, restored.text);
    assert.equal(restored.body.data.rows[0].status, 'restored');
    const full = restored.body.data.scan_requests.find((s: { mode: string }) => s.mode === 'full_profile');
    assert.notEqual(full.scan_run_id, fullRun.id);
    assert.equal(full.jobs_created, 1);
  });

  test('decisions/coalescing: imports racing a worker that starts on the same runs never answer 5xx (1,000 writes), and every run counts its items once', async () => {
    const { secret } = await t.tenant();
    const reports: string[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await t.request('POST', '/api/v1/reports', {
        key: secret,
        headers: { 'idempotency-key': `racing-${i}` },
        body: reportBody({ profiles: [{ pronet_url: `https://pronet.example/in/racing-${i}-0` }] }),
      });
      assert.equal(res.status, 201);
      reports.push(res.body.data.report.id);
    }
    const worker = await t.startWorker(8);
    const statuses = new Map<number, number>();
    let sent = 0;
    // Four writers, each importing one new person into a report every 15-90 ms.
    const writer = async (w: number) => {
      for (let n = 0; n < 250; n++) {
        const reportId = reports[(n * 4 + w) % reports.length];
        const res = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
          key: secret,
          headers: { 'idempotency-key': `race-${w}-${n}` },
          body: { profiles: [{ pronet_url: `https://pronet.example/in/racing-w${w}-n${n}` }] },
        });
        sent += 1;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        assert.ok(res.status < 500, `write ${w}/${n} answered ${res.status}: ${res.text}`);
        await new Promise((resolve) => setTimeout(resolve, 15 + Math.floor(Math.random() * 75)));
      }
    };
    await Promise.all([0, 1, 2, 3].map(writer));
    assert.equal(sent, 1000);
    assert.deepEqual([...statuses.entries()], [[201, 1000]]);

    // Every run counts each of its items once, finished or not.
    await worker.stop();
    await settleStaleRollups(t.runtime.db, t.clock.now(), 0);
    for (const reportId of reports) for (const run of await runsOf(reportId)) await assertRunCountsMatchItems(t, run);
  });
});
