/** Checks on the report roll-ups shared by the scan tests. */
import assert from 'node:assert/strict';
import { readAggregates, refreshReportRollup } from '../../src/store/rollup-repository.js';
import type { TestApp } from './app.js';

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
  const maintained = (await readAggregates(t.runtime.db, reportId))!.totals;
  const rebuilt = await t.runtime.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('report_aggregates').where('report_id', '=', reportId).execute();
    return refreshReportRollup(trx, reportId, 'all', new Date());
  });
  assert.deepEqual(clean(maintained), clean(rebuilt));
}
