/**
 * Races between workers finishing items of the same run and report. No
 * background worker runs here: the test drives processItem itself, many at
 * once, over real database connections.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { processItem, type HandlerContext } from '../../src/scanning/item-handler.js';
import { SimulatorCollector } from '../../src/scanning/collectors/simulator/index.js';
import type { Collector, CollectRequest } from '../../src/scanning/collectors/collector.js';
import type { CollectResult } from '../../src/domain/collected.js';
// Claims collected by hand, then finished all at once: the race under test.
import { claimItem } from '../../src/queue/claim.js';
import { type Claim } from '../../src/queue/item.js';
import { settlePendingRollups, settleStaleRollups } from '../../src/queue/settle.js';
import pg from 'pg';
import { setReportArchived } from '../../src/use-cases/manage-report.js';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';
import { handlerContext } from '../support/handler.js';
import { assertRunCountsMatchItems, assertTotalsMatchRebuild, foldsSettled } from '../support/rollups.js';

describe('scan races', () => {
  let t: TestApp;
  let ctx: HandlerContext;
  before(async () => {
    t = await startTestApp();
    ctx = handlerContext(t);
  });

  /** Claims every ready item through the queue, as workers would. */
  async function claimAll(): Promise<Claim[]> {
    const claims: Claim[] = [];
    for (let claim = await claimItem(t.runtime.db, 30); claim; claim = await claimItem(t.runtime.db, 30)) claims.push(claim);
    return claims;
  }
  after(async () => t.close());

  test('decisions/run status: items of one run finished concurrently leave the run and report counts exact', async () => {
    const { secret } = await t.tenant();
    const people = Array.from({ length: 6 }, (_, i) => ({ pronet_url: `https://pronet.example/in/racer-${i}` }));
    for (let round = 0; round < 5; round++) {
      const res = await t.request('POST', '/api/v1/reports', {
        key: secret,
        headers: { 'idempotency-key': `race-${round}` },
        body: reportBody({ profiles: people }),
      });
      assert.equal(res.status, 201);
      const reportId = res.body.data.report.id;
      const items = await t.runtime.db.selectFrom('scan_items').select('id').where('report_id', '=', reportId).execute();
      assert.equal(items.length, 6 + 6 + 1);
      const claims = await claimAll();
      assert.deepEqual(new Set(claims.map((c) => c.itemId)), new Set(items.map((i) => i.id)));
      // Every item of both runs at once: the same run and report rows are contended.
      const outcomes = await Promise.all(claims.map((claim) => processItem(ctx, claim)));
      assert.ok(outcomes.every((o) => o === 'succeeded'));
      await foldsSettled(t);

      const runs = await t.runtime.db.selectFrom('scan_runs').selectAll().where('report_id', '=', reportId).execute();
      for (const run of runs) {
        assert.equal(run.status, 'completed', `round ${round}: run ${run.mode} is ${run.status}`);
        assert.equal(run.completed, run.requested);
        await assertRunCountsMatchItems(t, run);
      }
      const report = await t.request('GET', `/api/v1/reports/${reportId}`, { key: secret });
      assert.equal(report.body.data.analysis_state, 'available');
      assert.equal(report.body.data.analyzed_profile_count, 6);
      await assertTotalsMatchRebuild(t, reportId);
    }
  });

  test('items of one report finish while another transaction holds its report and run rows; the sweep then folds their deltas and every count is exact', async () => {
    const { secret } = await t.tenant();
    const people = Array.from({ length: 8 }, (_, i) => ({ pronet_url: `https://pronet.example/in/unblocked-${i}` }));
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'unblocked' },
      body: reportBody({ profiles: people }),
    });
    assert.equal(res.status, 201);
    const reportId = res.body.data.report.id;
    const claims = await claimAll();
    const itemsOf = await t.runtime.db.selectFrom('scan_items').select(['id', 'kind']).where('report_id', '=', reportId).execute();
    const personItems = new Set(itemsOf.filter((i) => i.kind === 'person').map((i) => i.id));
    assert.equal(personItems.size, 16);
    let revisionsWhilePending: { profiles_revision: string } | undefined;

    // Another writer holds the report row and both run rows (as a roll-up or an import would).
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from reports where id = $1 for no key update', [reportId]);
      await holder.query('select 1 from scan_runs where report_id = $1 for no key update', [reportId]);
      const people = claims.filter((c) => personItems.has(c.itemId));
      const blocked = new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 20_000).unref());
      const outcomes = await Promise.race([Promise.all(people.map((claim) => processItem(ctx, claim))), blocked]);
      assert.notEqual(outcomes, 'blocked', 'person items waited on the report or run row');
      assert.ok((outcomes as string[]).every((o) => o === 'succeeded'));
      const pending = await t.runtime.db.selectFrom('rollup_deltas').select('id').where('report_id', '=', reportId).execute();
      assert.ok(pending.length >= 16, `the roll-up waits as deltas (${pending.length}) until the report row is free`);
      // Readers add the deltas not folded yet: the summary already counts what the stored rows show.
      const during = await t.request('GET', `/api/v1/reports/${reportId}/analysis`, { key: secret });
      assert.equal(during.status, 200);
      revisionsWhilePending = during.body.data.collections;
      // The folds those finishes asked for found the report held; none may still be in flight (a busy
      // fold tries again a few ms later) when the holder lets go, or it would fold the deltas.
      await settlePendingRollups(t.runtime.db);
    } finally {
      await holder.query('commit');
      await holder.end();
    }
    // Nobody folded them (their folds found the report held and left them): a worker's sweep does, within seconds.
    const pendingOf = async () => (await t.runtime.db.selectFrom('rollup_deltas').select('id').where('report_id', '=', reportId).execute()).length;
    assert.ok((await pendingOf()) >= 16);
    const worker = await t.startWorker(1);
    try {
      const deadline = Date.now() + 15_000;
      while ((await pendingOf()) > 0) {
        assert.ok(Date.now() < deadline, 'the sweep folded the deltas left behind');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await worker.stop();
    }
    // The company page's item rolls up under the report lock.
    for (const claim of claims.filter((c) => !personItems.has(c.itemId))) assert.equal(await processItem(ctx, claim), 'succeeded');
    await settleStaleRollups(t.runtime.db, t.clock.now(), 0);
    assert.equal(await pendingOf(), 0);
    // The people's records did not change since: the profiles revision read with the deltas pending is the folded one.
    const folded = await t.request('GET', `/api/v1/reports/${reportId}/analysis`, { key: secret });
    assert.equal(typeof folded.body.data.collections.profiles_revision, 'string');
    assert.equal(revisionsWhilePending?.profiles_revision, folded.body.data.collections.profiles_revision);

    const runs = await t.runtime.db.selectFrom('scan_runs').selectAll().where('report_id', '=', reportId).execute();
    for (const run of runs) {
      assert.equal(run.status, 'completed');
      assert.ok(run.started_at !== null && run.completed_at !== null);
      assert.equal(run.unfinished, 0);
      await assertRunCountsMatchItems(t, run);
    }
    const report = await t.request('GET', `/api/v1/reports/${reportId}`, { key: secret });
    assert.equal(report.body.data.analysis_state, 'available');
    assert.equal(report.body.data.analyzed_profile_count, 8);
    await assertTotalsMatchRebuild(t, reportId);
  });

  test('decisions/scans: archiving a report with roll-up deltas not folded yet counts every item once (recount and deltas do not add up twice)', async () => {
    const { secret } = await t.tenant();
    const people = Array.from({ length: 6 }, (_, i) => ({ pronet_url: `https://pronet.example/in/archived-${i}` }));
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'archived-pending' },
      body: reportBody({ profiles: people }),
    });
    const reportId = res.body.data.report.id;
    const claims = await claimAll();
    const persons = await t.runtime.db.selectFrom('scan_items').select('id').where('report_id', '=', reportId).where('kind', '=', 'person').execute();
    const finishing = claims.filter((c) => persons.some((p) => p.id === c.itemId)).slice(0, 7);
    // Seven items finish while the report row is held: their deltas stay pending.
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from reports where id = $1 for no key update', [reportId]);
      assert.ok((await Promise.all(finishing.map((claim) => processItem(ctx, claim)))).every((o) => o === 'succeeded'));
      // The folds those finishes asked for found the report held; none may still be in flight (a busy
      // fold tries again a few ms later) when the holder lets go, or it would fold the deltas.
      await settlePendingRollups(t.runtime.db);
    } finally {
      await holder.query('commit');
      await holder.end();
    }
    assert.ok((await t.runtime.db.selectFrom('rollup_deltas').select('id').where('report_id', '=', reportId).execute()).length >= 7);
    // Archiving cancels the other items and recounts the runs, with those deltas pending.
    assert.ok(await setReportArchived({ db: t.runtime.db, workspaceId: null, now: t.clock.now() }, reportId, true));
    await settleStaleRollups(t.runtime.db, t.clock.now(), 0);
    const runs = await t.runtime.db.selectFrom('scan_runs').selectAll().where('report_id', '=', reportId).execute();
    for (const run of runs) {
      const recount = await t.runtime.db.selectFrom('scan_items').select(['status', 'warning']).where('run_id', '=', run.id).execute();
      assert.equal(run.requested, recount.length);
      assert.equal(run.unfinished, 0);
      assert.equal(run.completed, recount.filter((i) => i.status === 'succeeded').length, `run ${run.mode}: completed`);
      assert.equal(run.cancelled, recount.filter((i) => i.status === 'cancelled').length, `run ${run.mode}: cancelled`);
      assert.equal(run.warnings, recount.filter((i) => i.status === 'succeeded' && i.warning).length);
    }
    assert.equal(
      runs.reduce((n, r) => n + r.completed, 0),
      7,
    );
    await assertTotalsMatchRebuild(t, reportId);
  });

  test('2.9 activity: one source event seen through two people is two records, each counted once', async () => {
    const { secret } = await t.tenant();
    const simulator = new SimulatorCollector({ delayMs: 0 });
    // Both people's activity shows the same source event (same external id).
    const sharing: Collector = {
      name: 'sharing-simulator',
      async collect(request: CollectRequest): Promise<CollectResult> {
        const result = await simulator.collect(request);
        if (result.outcome !== 'ok' || request.kind !== 'person' || !result.activity) return result;
        return { ...result, activity: result.activity.map((e, i) => (i === 0 ? { ...e, external_id: 'shared-event-1' } : e)) };
      },
    };
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'shared-event' },
      body: reportBody({
        profiles: [{ pronet_url: 'https://pronet.example/in/ada-one' }, { pronet_url: 'https://pronet.example/in/bo-two' }],
      }),
    });
    const reportId = res.body.data.report.id;
    const items = await t.runtime.db.selectFrom('scan_items').select('id').where('report_id', '=', reportId).execute();
    const claims = await claimAll();
    assert.equal(claims.length, items.length);
    for (const claim of claims) await processItem({ ...ctx, collectorFor: () => sharing }, claim);
    const shared = await t.runtime.db
      .selectFrom('activity_events')
      .select(['profile_id'])
      .where('report_id', '=', reportId)
      .where('external_id', '=', 'shared-event-1')
      .execute();
    assert.equal(new Set(shared.map((e) => e.profile_id)).size, 2);
    const page = await t.request('GET', `/api/v1/reports/${reportId}/analysis/activity?limit=100`, { key: secret });
    const all = await t.runtime.db.selectFrom('activity_events').select('id').where('report_id', '=', reportId).execute();
    assert.equal(page.body.data.length, all.length);
    await assertTotalsMatchRebuild(t, reportId);
  });
});
