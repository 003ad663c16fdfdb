/**
 * Fair scheduling of scan items (docs/scanning.md): a small report queued
 * behind a large backlog starts at once, across workspaces and inside one;
 * a lone report takes every slot; the order lives in PostgreSQL, so it holds
 * across worker processes and survives one of them being SIGKILLed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { eventually, people, reportBody, startTestApp, type TestApp } from '../support/app.js';
import { startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';
import { assertTotalsMatchRebuild } from '../support/rollups.js';

/** Creates a report of `n` people: the first 100 with the report, the rest as imports of 100. */
async function largeReport(t: TestApp, secret: string, n: number, prefix: string): Promise<string> {
  const all = people(n, prefix);
  const res = await t.request('POST', '/api/v1/reports', {
    key: secret,
    headers: { 'idempotency-key': `${prefix}-create` },
    body: reportBody({ name: `Large ${prefix}`, profiles: all.slice(0, 100) }),
  });
  assert.equal(res.status, 201, res.text);
  const reportId: string = res.body.data.report.id;
  for (let i = 100; i < n; i += 100) {
    const imp = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
      key: secret,
      headers: { 'idempotency-key': `${prefix}-import-${i}` },
      body: { profiles: all.slice(i, i + 100) },
    });
    assert.equal(imp.status, 201, imp.text);
  }
  return reportId;
}

async function smallReport(t: TestApp, secret: string, prefix: string): Promise<{ reportId: string; runIds: string[] }> {
  const res = await t.request('POST', '/api/v1/reports', {
    key: secret,
    headers: { 'idempotency-key': `${prefix}-small` },
    body: reportBody({ name: `Small ${prefix}`, profiles: people(2, prefix) }),
  });
  assert.equal(res.status, 201, res.text);
  return { reportId: res.body.data.report.id, runIds: res.body.data.scan_requests.map((r: { id: string }) => r.id) };
}

async function runsTerminal(t: TestApp, secret: string, reportId: string, runIds: string[]): Promise<boolean> {
  for (const runId of runIds) {
    const res = await t.request('GET', `/api/v1/reports/${reportId}/scans/${runId}`, { key: secret });
    assert.equal(res.status, 200, res.text);
    if (['queued', 'running'].includes(res.body.data.status)) return false;
  }
  return true;
}

async function itemCounts(t: TestApp, reportId: string): Promise<{ pending: number; total: number }> {
  const { rows } = await sql<{ pending: number; total: number }>`
    select count(*) filter (where status = 'pending')::int as pending, count(*)::int as total
    from scan_items where report_id = ${reportId}`.execute(t.runtime.db);
  return rows[0];
}

describe('fair queue, one process (in-process worker)', () => {
  let t: TestApp;
  before(async () => {
    // Slow enough collection that the large backlog takes minutes to drain.
    t = await startTestApp({ env: { SIMULATOR_DELAY_MS: '150' } });
  });
  after(async () => t.close());

  test('fairness across workspaces: a 2-person report of workspace B finishes while 2,000 people of workspace A are still queued', async (ctx) => {
    const a = await t.tenant({ name: 'A' });
    const b = await t.tenant({ name: 'B' });
    const large = await largeReport(t, a.secret, 2000, 'wsa');
    const worker = await t.startWorker(8);
    // A's backlog is being worked on before B asks for anything.
    await eventually(async () => (await itemCounts(t, large)).pending < 4001, 30_000, 50);

    const started = Date.now();
    const small = await smallReport(t, b.secret, 'wsb');
    await eventually(() => runsTerminal(t, b.secret, small.reportId, small.runIds), 60_000, 100);
    const seconds = (Date.now() - started) / 1000;
    const backlog = await itemCounts(t, large);
    ctx.diagnostic(`B terminal after ${seconds.toFixed(1)} s; A still has ${backlog.pending} of ${backlog.total} items pending`);
    assert.equal(backlog.total, 4001);
    assert.ok(backlog.pending > backlog.total / 2, `A's backlog must be far from drained (pending ${backlog.pending})`);
    await worker.stop();
  });

  test('fairness inside a workspace: a small report after a large one of the same workspace is not behind it', async (ctx) => {
    const a = await t.tenant({ name: 'A2' });
    const large = await largeReport(t, a.secret, 1000, 'same');
    const worker = await t.startWorker(8);
    await eventually(async () => (await itemCounts(t, large)).pending < 2001, 30_000, 50);
    const started = Date.now();
    const small = await smallReport(t, a.secret, 'same-small');
    await eventually(() => runsTerminal(t, a.secret, small.reportId, small.runIds), 60_000, 100);
    const backlog = await itemCounts(t, large);
    ctx.diagnostic(`small report terminal after ${((Date.now() - started) / 1000).toFixed(1)} s; large still has ${backlog.pending} pending`);
    assert.ok(backlog.pending > backlog.total / 2, `the large report must be far from drained (pending ${backlog.pending})`);
    await worker.stop();
  });

  test('work-conserving: a lone report takes every slot of the worker', async () => {
    const a = await t.tenant({ name: 'Lone' });
    // Everything queued earlier in this file is cancelled, so this report is alone.
    await t.runtime.db.updateTable('scan_items').set({ status: 'cancelled', finished_at: new Date() }).where('status', '=', 'pending').execute();
    const lone = await largeReport(t, a.secret, 100, 'lone');
    const worker = await t.startWorker(8);
    let most = 0;
    await eventually(
      async () => {
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from scan_items where report_id = ${lone} and status = 'running'`.execute(t.runtime.db);
        most = Math.max(most, rows[0].n);
        return most >= 8;
      },
      30_000,
      20,
    );
    assert.equal(most, 8);
    await worker.stop();
  });
});

describe('fair queue, two worker processes, one SIGKILLed under load', () => {
  const LEASE_SECONDS = 5;
  let t: TestApp;
  const children: WorkerProcess[] = [];

  const startWorker = async () => {
    const worker = await startWorkerProcess(t, { concurrency: 6, env: { SIMULATOR_DELAY_MS: '100' } });
    children.push(worker);
    return worker;
  };

  before(async () => {
    t = await startTestApp({ env: { ITEM_LEASE_SECONDS: String(LEASE_SECONDS) } });
  });
  after(async () => {
    await stopWorkerProcesses(children);
    await t?.close();
  });

  test('nothing is lost or doubled, and a small report of another workspace still goes first', async (ctx) => {
    const a = await t.tenant({ name: 'A' });
    const b = await t.tenant({ name: 'B' });
    const large = await largeReport(t, a.secret, 200, 'kill');
    const first = await startWorker();
    await startWorker();
    // Both processes hold items of A's report; then one dies without a word.
    await eventually(async () => (await itemCounts(t, large)).pending < 401 - 12, 60_000, 50);
    first.child.kill('SIGKILL');
    await first.exited;

    const small = await smallReport(t, b.secret, 'after-kill');
    const started = Date.now();
    await eventually(() => runsTerminal(t, b.secret, small.reportId, small.runIds), 60_000, 100);
    const backlog = await itemCounts(t, large);
    ctx.diagnostic(`B terminal ${((Date.now() - started) / 1000).toFixed(1)} s after the kill; A has ${backlog.pending} of ${backlog.total} pending`);
    assert.ok(backlog.pending > backlog.total / 3, `A's backlog must be far from drained (pending ${backlog.pending})`);

    // Everything drains on the surviving process, the dead one's items after their lease.
    await eventually(
      async () =>
        (
          await sql<{ n: number }>`
      select count(*)::int as n from scan_items where report_id = ${large} and status in ('pending', 'running')`.execute(t.runtime.db)
        ).rows[0].n === 0,
      120_000,
      250,
    );
    const items = await t.runtime.db.selectFrom('scan_items').select(['id', 'status', 'attempts']).where('report_id', '=', large).execute();
    assert.equal(items.length, 401);
    assert.ok(
      items.every((i) => i.status === 'succeeded'),
      'every item succeeded',
    );
    const retried = items.filter((i) => i.attempts > 1).length;
    ctx.diagnostic(`${retried} item(s) were claimed again after the kill`);
    assert.ok(retried >= 1, 'the killed process held items that were claimed again');
    const analyses = await t.runtime.db.selectFrom('profile_analyses').select('profile_id').where('report_id', '=', large).execute();
    assert.equal(analyses.length, 200, 'one analysis per person');
    const evidence = await sql<{ n: number }>`
      select count(*)::int as n from (select item_id, section from evidence_images where report_id = ${large}
      group by item_id, section having count(*) > 1) d`.execute(t.runtime.db);
    assert.equal(evidence.rows[0].n, 0, 'no evidence stored twice');
    // The roll-ups follow a fold after the last item (the killed process's last deltas: the survivor's sweep).
    await eventually(
      async () => (await t.runtime.db.selectFrom('rollup_deltas').select('id').where('report_id', '=', large).execute()).length === 0,
      15_000,
      100,
    );
    const runs = await t.runtime.db.selectFrom('scan_runs').select(['status', 'completed', 'requested']).where('report_id', '=', large).execute();
    for (const run of runs) {
      assert.equal(run.status, 'completed');
      assert.equal(run.completed, run.requested);
    }
    await assertTotalsMatchRebuild(t, large);
  });
});
