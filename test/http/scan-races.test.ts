/**
 * Races between workers finishing items of the same run and report. No
 * background worker runs here: the test drives processItem itself, many at
 * once, over real database connections.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { processItem, type HandlerContext } from '../../src/scanning/item-handler.js';
import { SimulatorCollector } from '../../src/scanning/collectors/simulator.js';
import { FileMediaStore } from '../../src/scanning/media/media-store.js';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';

describe('scan races', () => {
  let t: TestApp;
  let ctx: HandlerContext;
  before(async () => {
    t = await startTestApp();
    const simulator = new SimulatorCollector({ delayMs: 0 });
    ctx = {
      db: t.runtime.db,
      clock: t.clock,
      media: new FileMediaStore(path.join(t.config.dataDir, 'media')),
      collectorFor: () => simulator,
      timeoutMs: 10_000,
      log: () => {},
    };
  });
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
      // Every item of both runs at once: the same run and report rows are contended.
      const outcomes = await Promise.all(items.map((i) => processItem(ctx, i.id, { number: 1, isLast: true })));
      assert.ok(outcomes.every((o) => o === 'succeeded'));

      const runs = await t.runtime.db.selectFrom('scan_runs').selectAll().where('report_id', '=', reportId).execute();
      for (const run of runs) {
        assert.equal(run.status, 'completed', `round ${round}: run ${run.mode} is ${run.status}`);
        assert.equal(run.completed, run.requested);
      }
      const report = await t.request('GET', `/api/v1/reports/${reportId}`, { key: secret });
      assert.equal(report.body.data.analysis_state, 'available');
      assert.equal(report.body.data.analyzed_profile_count, 6);
    }
  });
});
