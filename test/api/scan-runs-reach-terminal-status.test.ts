/**
 * Scan pipeline through a real server and real workers: runs reach their
 * terminal status per the decisions ("Run status"), results are stored.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, reportBody, startTestApp, type TestApp } from '../support/app.js';
import { archiveReport } from '../support/operator.js';

describe('scan pipeline', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { ITEM_MAX_ATTEMPTS: '2' } });
  });
  after(async () => t.close());

  async function create(secret: string, urls: string[]) {
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': `s-${Math.random()}` },
      body: reportBody({ profiles: urls.map((u) => ({ pronet_url: `https://pronet.example/in/${u}` })) }),
    });
    assert.equal(res.status, 201);
    return res.body.data;
  }
  async function terminal(secret: string, reportId: string, runId: string) {
    return eventually(async () => {
      const res = await t.request('GET', `/api/v1/reports/${reportId}/scans/${runId}`, { key: secret });
      return ['queued', 'running'].includes(res.body.data.status) ? null : res.body.data;
    });
  }

  test('decisions/run status: ordinary people complete; the report becomes available with stored findings', async () => {
    await t.startWorker(2);
    const { secret } = await t.tenant();
    const { report, scan_requests } = await create(secret, ['jane-doe', 'quiet-bob']);
    const full = await terminal(secret, report.id, scan_requests[0].id);
    const activity = await terminal(secret, report.id, scan_requests[1].id);
    assert.equal(full.status, 'completed');
    assert.deepEqual(full.counts.requested, 2);
    assert.equal(full.counts.completed, 2);
    assert.equal(activity.status, 'completed');
    assert.equal(activity.counts.requested, 3);
    assert.ok(full.started_at && full.completed_at);
    assert.equal(full.terminal_reason, null);
    const read = await t.request('GET', `/api/v1/reports/${report.id}`, { key: secret });
    assert.equal(read.body.data.analysis_state, 'available');
    assert.equal(read.body.data.analyzed_profile_count, 2);
    const analyses = await t.runtime.db.selectFrom('profile_analyses').select(['good', 'optimize', 'unknown']).where('report_id', '=', report.id).execute();
    assert.equal(analyses.length, 2);
    assert.ok(analyses.every((a) => a.good + a.optimize + a.unknown >= 20));
    const evidence = await t.runtime.db.selectFrom('evidence_images').select('id').where('report_id', '=', report.id).execute();
    assert.ok(evidence.length >= 2);
    const company = await t.runtime.db.selectFrom('company_context').selectAll().where('report_id', '=', report.id).executeTakeFirst();
    assert.ok(company);
    const quiet = await t.runtime.db
      .selectFrom('activity_coverage as c')
      .innerJoin('report_profiles as p', 'p.id', 'c.profile_id')
      .select(['c.event_count'])
      .where('p.pronet_url', '=', 'https://pronet.example/in/quiet-bob')
      .executeTakeFirstOrThrow();
    assert.equal(quiet.event_count, 0, 'quiet- gives verified empty activity');
    const roster = await t.request('GET', `/api/v1/reports/${report.id}/profiles`, { key: secret });
    assert.ok(roster.body.data.every((p: any) => p.analysis_available === true));
  });

  test('decisions/run status: all inaccessible → inaccessible; all failing → failed after bounded retries; mixed → partial', async () => {
    const { secret } = await t.tenant();
    const a = await create(secret, ['inaccessible-ann']);
    assert.equal((await terminal(secret, a.report.id, a.scan_requests[0].id)).status, 'inaccessible');
    const f = await create(secret, ['failing-fred']);
    const failed = await terminal(secret, f.report.id, f.scan_requests[0].id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.terminal_reason, 'failed');
    assert.equal(failed.counts.failed, 1);
    const item = await t.runtime.db
      .selectFrom('scan_items')
      .select(['attempts', 'reason'])
      .where('run_id', '=', f.scan_requests[0].id)
      .executeTakeFirstOrThrow();
    assert.equal(item.attempts, 2);
    assert.equal(item.reason, 'simulated failure');
    const m = await create(secret, ['mia-ok', 'failing-max']);
    const mixed = await terminal(secret, m.report.id, m.scan_requests[0].id);
    assert.equal(mixed.status, 'partial');
    assert.deepEqual([mixed.counts.completed, mixed.counts.failed], [1, 1]);
    // The activity run also covers the company page, which succeeds: partial.
    assert.equal((await terminal(secret, f.report.id, f.scan_requests[1].id)).status, 'partial');
    const report = await t.request('GET', `/api/v1/reports/${f.report.id}`, { key: secret });
    assert.equal(report.body.data.analysis_state, 'failed', 'no usable person result once all work is finished');
  });

  test('decisions/scans: a report archived while its scans are queued ends with cancelled runs', async () => {
    const { secret } = await t.tenant();
    const c = await create(secret, ['cara', 'carl']);
    await archiveReport(t, c.report.id);
    for (const run of c.scan_requests) {
      const done = await terminal(secret, c.report.id, run.id);
      assert.equal(done.status, 'cancelled');
      assert.equal(done.terminal_reason, 'cancelled');
    }
  });
});
