/** Checks on the report roll-ups shared by the scan tests. */
import assert from 'node:assert/strict';
import { readAggregates, refreshReportRollup } from '../../src/store/rollup-repository.js';
import type { TestApp } from './app.js';

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
