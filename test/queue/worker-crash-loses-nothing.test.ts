/**
 * A worker process killed mid-item loses nothing (decisions "Retries"): the
 * items it held stay `running` until their lease (ITEM_LEASE_SECONDS, no
 * heartbeat extends it any more) runs out; another, live worker process then
 * claims them again (the fair queue takes expired leases first). Every item
 * ends succeeded exactly once and no stored row is duplicated.
 *
 * Real processes: `node bin/profile-scan.js worker` children against the
 * test database, killed with SIGKILL (no drain, no cleanup).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { eventually, people, reportBody, startTestApp, type TestApp } from '../support/app.js';
import { startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';

const LEASE_SECONDS = 5;
const PEOPLE = 6;

describe('worker process killed mid-item', () => {
  let t: TestApp;
  let secret: string;
  const children: WorkerProcess[] = [];
  let reportId: string;
  let runIds: { full: string; activity: string };
  /** Items that were `running` on the killed worker when it died. */
  let killedItemIds: string[] = [];
  let killedAt = 0;
  let recoveredAt = 0;

  const startWorker = async (env: Record<string, string>) => {
    const worker = await startWorkerProcess(t, { concurrency: 2, env });
    children.push(worker);
    return worker;
  };

  async function runStatus(runId: string) {
    const res = await t.request('GET', `/api/v1/reports/${reportId}/scans/${runId}`, { key: secret });
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  }

  before(async () => {
    t = await startTestApp({ env: { ITEM_LEASE_SECONDS: String(LEASE_SECONDS) } });
    secret = (await t.tenant()).secret;

    // Worker A collects slowly, so its items are mid-collection when it is killed.
    const a = await startWorker({ SIMULATOR_DELAY_MS: '3000' });
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'crash-1' },
      body: reportBody({ profiles: people(PEOPLE, 'crash') }),
    });
    assert.equal(res.status, 201, res.text);
    reportId = res.body.data.report.id;
    const runs: Array<{ id: string; mode: string }> = res.body.data.scan_requests;
    runIds = { full: runs.find((r) => r.mode === 'full_profile')!.id, activity: runs.find((r) => r.mode === 'activity')!.id };

    await eventually(
      async () => {
        const running = await t.runtime.db.selectFrom('scan_items').select('id').where('report_id', '=', reportId).where('status', '=', 'running').execute();
        return running.length === 2;
      },
      60_000,
      50,
    );
    a.child.kill('SIGKILL');
    await a.exited;
    killedAt = Date.now();
    const held = await t.runtime.db.selectFrom('scan_items').select('id').where('report_id', '=', reportId).where('status', '=', 'running').execute();
    killedItemIds = held.map((r) => r.id);

    // Worker B collects at once; it must also pick up the killed worker's items.
    const b = await startWorker({ SIMULATOR_DELAY_MS: '0' });
    try {
      await eventually(
        async () => {
          const statuses = [(await runStatus(runIds.full)).status, (await runStatus(runIds.activity)).status];
          return statuses.every((s) => !['queued', 'running'].includes(s));
        },
        90_000,
        200,
      );
    } catch (error) {
      throw new Error(`runs not terminal; worker B said:\n${b.output()}`, { cause: error });
    }
    recoveredAt = Date.now();
  });

  after(async () => {
    await stopWorkerProcesses(children);
    await t?.close();
  });

  test('the killed worker held items mid-collection, and they stayed running until recovered', () => {
    assert.equal(killedItemIds.length, 2, "both of the killed worker's loops were mid-item");
  });

  test('both runs complete after the crash: counts.completed equals requested', async () => {
    const full = await runStatus(runIds.full);
    const activity = await runStatus(runIds.activity);
    assert.equal(full.status, 'completed');
    assert.equal(full.counts.requested, PEOPLE);
    assert.equal(full.counts.completed, PEOPLE);
    assert.equal(full.counts.failed, 0);
    assert.equal(activity.status, 'completed');
    assert.equal(activity.counts.requested, PEOPLE + 1);
    assert.equal(activity.counts.completed, PEOPLE + 1);
    assert.equal(activity.counts.failed, 0);
  });

  test('the killed items were retried by the live worker (attempts >= 2) soon after their lease ran out', async (ctx) => {
    const items = await t.runtime.db.selectFrom('scan_items').select(['id', 'status', 'attempts']).where('report_id', '=', reportId).execute();
    assert.equal(items.length, PEOPLE * 2 + 1);
    for (const item of items) {
      assert.equal(item.status, 'succeeded');
      if (killedItemIds.includes(item.id)) assert.ok(item.attempts >= 2, `killed item ${item.id} has ${item.attempts} attempt(s)`);
      else assert.equal(item.attempts, 1);
    }
    // Lease (5 s) + worker B's start-up, a poll interval (1 s) and the work itself, with a margin for a loaded machine.
    const seconds = (recoveredAt - killedAt) / 1000;
    ctx.diagnostic(`runs terminal ${seconds.toFixed(1)} s after the kill`);
    assert.ok(seconds < LEASE_SECONDS + 25, `recovery took ${seconds} s`);
  });

  test('every item succeeded exactly once: one analysis per person, no duplicated activity or evidence', async () => {
    const db = t.runtime.db;
    const analyses = await db
      .selectFrom('profile_analyses as a')
      .innerJoin('scan_items as i', 'i.id', 'a.item_id')
      .select(['a.profile_id', 'i.run_id'])
      .where('a.report_id', '=', reportId)
      .execute();
    assert.equal(analyses.length, PEOPLE);
    assert.equal(new Set(analyses.map((a) => a.profile_id)).size, PEOPLE);
    assert.ok(analyses.every((a) => a.run_id === runIds.full));

    // Activity: one coverage row per person, whose count matches the events stored for that person.
    const coverage = await db.selectFrom('activity_coverage').select(['profile_id', 'event_count']).where('report_id', '=', reportId).execute();
    assert.equal(coverage.length, PEOPLE);
    const events = await db
      .selectFrom('activity_events')
      .select(['profile_id', sql<number>`count(*)::int`.as('n'), sql<number>`count(distinct external_id)::int`.as('distinct_ids')])
      .where('report_id', '=', reportId)
      .groupBy('profile_id')
      .execute();
    for (const c of coverage) {
      const stored = events.find((e) => e.profile_id === c.profile_id);
      assert.equal(stored?.n ?? 0, c.event_count, `events of ${c.profile_id}`);
      assert.equal(stored?.distinct_ids ?? 0, c.event_count);
    }

    // Evidence: one image per (item, section), and every item left evidence.
    const evidence = await db
      .selectFrom('evidence_images')
      .select(['item_id', 'section', sql<number>`count(*)::int`.as('n')])
      .where('report_id', '=', reportId)
      .groupBy(['item_id', 'section'])
      .execute();
    assert.ok(evidence.every((e) => e.n === 1));
    assert.equal(new Set(evidence.map((e) => e.item_id)).size, PEOPLE * 2 + 1);
    const company = await db.selectFrom('company_context').select('item_id').where('report_id', '=', reportId).execute();
    assert.equal(company.length, 1);
  });
});
