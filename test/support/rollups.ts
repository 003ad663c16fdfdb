/** Checks on the report roll-ups shared by the scan tests. */
import assert from 'node:assert/strict';
import { lockReport } from '../../src/store/locks.js';
import { settlePendingRollups, settleStaleRollups } from '../../src/queue/settle.js';
import { readAggregates, refreshReportRollup } from '../../src/store/rollup-repository.js';
import type { TestApp } from './app.js';

/** The folds this test process's transitions asked for, run now instead of at the end of their window. */
export async function foldsSettled(t: Pick<TestApp, 'runtime'>): Promise<void> {
  await settlePendingRollups(t.runtime.db);
  if (t.runtime.scanDb) await settlePendingRollups(t.runtime.scanDb);
  // A fold that found the report held by another transition left its deltas to the workers' sweep
  // (queue/settle.ts); with no worker running, the sweep's pass is made here.
  await settleStaleRollups(t.runtime.db, new Date(), 0);
}

/** A run's counts, maintained by each transition, must equal a recount of its items. */
export async function assertRunCountsMatchItems(
  t: TestApp,
  run: { id: string; requested: number; unfinished: number; completed: number; warnings: number; failed: number },
) {
  const items = await t.runtime.db.selectFrom('scan_items').select(['status', 'warning']).where('run_id', '=', run.id).execute();
  assert.equal(run.requested, items.length);
  assert.equal(run.unfinished, items.filter((i) => i.status === 'pending' || i.status === 'running').length);
  assert.equal(run.completed, items.filter((i) => i.status === 'succeeded').length);
  assert.equal(run.warnings, items.filter((i) => i.status === 'succeeded' && i.warning).length);
  assert.equal(run.failed, items.filter((i) => i.status === 'failed' || i.status === 'inaccessible').length);
}

/** Totals maintained by differences must equal totals rebuilt from the stored rows. */
export async function assertTotalsMatchRebuild(t: TestApp, reportId: string) {
  const clean = (totals: any) => ({
    ...totals,
    checks: Object.fromEntries(Object.entries(totals.checks).filter(([, c]: any) => c.good || c.optimize || c.unknown)),
  });
  await foldsSettled(t);
  const maintained = (await readAggregates(t.runtime.db, reportId))!.totals;
  const rebuilt = await t.runtime.db.transaction().execute(async (trx) => {
    await lockReport(trx, reportId);
    await trx.deleteFrom('report_aggregates').where('report_id', '=', reportId).execute();
    return refreshReportRollup(trx, reportId, 'all', new Date());
  });
  assert.deepEqual(clean(maintained), clean(rebuilt));
}
