/**
 * Scheduled refreshes and the background lane: a due schedule runs
 * once across worker processes and not again after a restart; a schedule the
 * scan allowance stops is skipped and says so (log and report page); and its
 * work, background work, never delays a new report: the claim serves every
 * foreground item first, and is fair among workspaces inside each lane.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { claimItem } from '../../src/queue/claim.js';
import { ScanItemQueue } from '../../src/store/queue-channel.js';
import { refreshReport } from '../../src/use-cases/refresh-report.js';
import { runDueRefreshes, setRefreshSchedule } from '../../src/use-cases/refresh-schedule.js';
import { readScanAllowance, setScanAllowance } from '../../src/use-cases/scan-allowance.js';
import { eventually, people, reportBody, scansFinished, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';
import { webUser } from '../support/web.js';

describe('scheduled refreshes and the background lane', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t?.close());

  async function newReport(owner: Tenant, n: number, prefix: string) {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': `create-${prefix}` },
      body: reportBody({ profiles: people(n, prefix) }),
    });
    assert.equal(created.status, 201);
    return created.body.data.report.id as string;
  }
  const backgroundRuns = async (reportId: string) =>
    Number((await sql<{ n: string }>`select count(*) as n from scan_runs where report_id = ${reportId} and background`.execute(t.runtime.db)).rows[0].n);
  const makeDue = (reportId: string) =>
    sql`update report_refresh_schedules set next_due_at = now() - interval '1 minute' where report_id = ${reportId}`.execute(t.runtime.db);
  const schedule = async (reportId: string) =>
    await t.runtime.db.selectFrom('report_refresh_schedules').selectAll().where('report_id', '=', reportId).executeTakeFirstOrThrow();

  test('a due schedule runs once across two worker processes, and not again after both restart', async () => {
    const owner = await t.tenant();
    const reportId = await newReport(owner, 3, 'sched');
    const w = await t.startWorker(2);
    await scansFinished(t, owner.secret, reportId, 3);
    await w.stop();
    await setRefreshSchedule({ db: t.runtime.db, clock: { now: () => new Date() }, workspaceId: owner.workspaceId }, reportId, 'weekly');
    await makeDue(reportId);
    const env = { REFRESH_SCHEDULE_INTERVAL: '100ms' };
    let workers: WorkerProcess[] = [];
    try {
      workers = await Promise.all([startWorkerProcess(t, { concurrency: 1, env }), startWorkerProcess(t, { concurrency: 1, env })]);
      await eventually(async () => (await schedule(reportId)).last_outcome === 'queued');
      // Many more looks of both processes.
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(await backgroundRuns(reportId), 2, 'one full_profile and one activity run');
      const row = await schedule(reportId);
      assert.ok(row.next_due_at.getTime() > Date.now() + 6.9 * 24 * 3600 * 1000, 'due again one week later');
      const logs = workers.map((w) => w.output()).join('');
      assert.equal(logs.match(/scheduled refresh: report [0-9a-f-]+ queued 3 profile scan/g)?.length, 1);
      await stopWorkerProcesses(workers);
      workers = await Promise.all([startWorkerProcess(t, { concurrency: 1, env }), startWorkerProcess(t, { concurrency: 1, env })]);
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(await backgroundRuns(reportId), 2, 'the restart ran nothing again');
    } finally {
      await stopWorkerProcesses(workers);
    }
  });

  test('a due schedule the scan allowance stops is skipped: nothing queued, a log line, a note on the report page, due again next period', async () => {
    const owner = await t.tenant();
    const reportId = await newReport(owner, 2, 'skip');
    const clock = { now: () => new Date() };
    await setRefreshSchedule({ db: t.runtime.db, clock, workspaceId: owner.workspaceId }, reportId, 'monthly');
    await makeDue(reportId);
    const used = (await readScanAllowance(t.runtime.db, owner.workspaceId, new Date())).used;
    await setScanAllowance(t.runtime.db, owner.workspaceId, used, new Date());
    const lines: string[] = [];
    const runs = await runDueRefreshes({ db: t.runtime.db, clock, queue: new ScanItemQueue(), log: (m) => lines.push(m) });
    const mine = runs.filter((r) => r.reportId === reportId);
    assert.deepEqual(
      mine.map((r) => r.outcome),
      ['skipped_allowance'],
    );
    assert.ok(lines.some((l) => l.includes(reportId) && /skipped \(skipped_allowance\).*allowance/.test(l)));
    assert.equal(await backgroundRuns(reportId), 0);
    const row = await schedule(reportId);
    assert.equal(row.last_outcome, 'skipped_allowance');
    assert.ok(row.next_due_at.getTime() > Date.now() + 27 * 24 * 3600 * 1000);
    const member = await webUser(t, owner.workspaceId, 'member');
    const page = await member.client.get(`/reports/${reportId}`);
    assert.match(
      page.text,
      /The scheduled refresh was skipped: the workspace&#39;s scan allowance for the month was used up|The scheduled refresh was skipped: the workspace's scan allowance/,
    );
  });

  test('background work never delays a new report: the next claims of every slot take the new report, whatever the background backlog', async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const clock = { now: () => new Date() };
    const queue = new ScanItemQueue();
    // Nothing of the other tests left in the queue.
    await sql`update scan_items set status = 'cancelled', finished_at = now() where status = 'pending'`.execute(t.runtime.db);
    const big = [await newReport(a, 30, 'bga'), await newReport(b, 30, 'bgb')];
    // Their first scans out of the way: only the scheduled refreshes' work is left.
    await sql`update scan_items set status = 'cancelled', finished_at = now() where report_id = any(${big}::uuid[]) and status = 'pending'`.execute(
      t.runtime.db,
    );
    await sql`update scan_runs set status = 'cancelled' where report_id = any(${big}::uuid[])`.execute(t.runtime.db);
    await refreshReport({ db: t.runtime.db, clock, queue, workspaceId: a.workspaceId }, big[0], { target: { kind: 'report' }, background: true });
    await refreshReport({ db: t.runtime.db, clock, queue, workspaceId: b.workspaceId }, big[1], { target: { kind: 'report' }, background: true });
    // A little background work is already being done when the newcomer arrives.
    for (let i = 0; i < 4; i++) assert.ok(await claimItem(t.runtime.db, 60));
    const newcomer = await newReport(await t.tenant(), 2, 'new');
    const claimedReports: string[] = [];
    for (let i = 0; i < 5; i++) {
      const claim = await claimItem(t.runtime.db, 60);
      const { rows } = await sql<{ report_id: string }>`select report_id from scan_items where id = ${claim!.itemId}`.execute(t.runtime.db);
      claimedReports.push(rows[0].report_id);
    }
    assert.deepEqual(claimedReports, Array(5).fill(newcomer), 'two people, two modes, and the company page: all before any background item');

    // Then the background lane, fair between the two workspaces' refreshes.
    const next: string[] = [];
    for (let i = 0; i < 20; i++) {
      const claim = await claimItem(t.runtime.db, 60);
      const { rows } = await sql<{ report_id: string }>`select report_id from scan_items where id = ${claim!.itemId}`.execute(t.runtime.db);
      next.push(rows[0].report_id);
    }
    const share = next.filter((r) => r === big[0]).length;
    assert.ok(share >= 9 && share <= 11, `each workspace's refresh gets its share of the background claims (${share} of 20)`);
  });

  test('an import joins no background run: its items are foreground, claimed before the scheduled refresh of the same report', async () => {
    const owner = await t.tenant();
    const reportId = await newReport(owner, 3, 'mix');
    await sql`update scan_items set status = 'cancelled', finished_at = now() where report_id = ${reportId} and status = 'pending'`.execute(t.runtime.db);
    await sql`update scan_runs set status = 'cancelled' where report_id = ${reportId}`.execute(t.runtime.db);
    await refreshReport({ db: t.runtime.db, clock: { now: () => new Date() }, queue: new ScanItemQueue(), workspaceId: owner.workspaceId }, reportId, {
      target: { kind: 'report' },
      background: true,
    });
    const imported = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
      key: owner.secret,
      headers: { 'idempotency-key': 'mix-import' },
      body: { profiles: people(1, 'mix-new') },
    });
    assert.equal(imported.status, 201);
    assert.equal(imported.body.data.scan_requests[0].jobs_created, 1, 'a new run of its own, not the background one');
    const { rows } = await sql<{ background: boolean }>`
      select i.background from scan_items i where i.report_id = ${reportId} and i.status = 'pending'
       order by i.background, i.created_at`.execute(t.runtime.db);
    assert.equal(rows.filter((r) => !r.background).length, 3, "the newcomer's two items and its run's company page are foreground");
    const first = await claimItem(t.runtime.db, 60);
    const { rows: claimed } = await sql<{ background: boolean }>`select background from scan_items where id = ${first!.itemId}`.execute(t.runtime.db);
    assert.equal(claimed[0].background, false);
  });
});
