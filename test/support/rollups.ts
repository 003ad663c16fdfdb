/** Checks on the report roll-ups shared by the scan tests. */
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { lockReport } from '../../src/store/locks.js';
import { settlePendingRollups, settleStaleRollups } from '../../src/store/rollup-folds.js';
import { readAggregates, refreshReportRollup } from '../../src/store/rollup-repository.js';
import type { TestApp } from './app.js';

/** The folds this test process's transitions asked for, run now instead of at the end of their window. */
export async function foldsSettled(t: Pick<TestApp, 'runtime'>): Promise<void> {
  await settlePendingRollups(t.runtime.db);
  if (t.runtime.scanDb) await settlePendingRollups(t.runtime.scanDb);
  // A fold that found the report held by another transition left its deltas to the workers' sweep
  // (rollup-folds.ts); with no worker running, the sweep's pass is made here.
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

/**
 * Every row a scan writes per person names a report that exists, a person of that report and,
 * where it has one, an item of that report and person: what the statements that write them prove
 * in place of foreign keys (migration 0040), and more than those checked (each column alone).
 * `reportId` limits the check to one report.
 */
export async function assertScanRowsReferenceTheirParents(t: Pick<TestApp, 'runtime'>, reportId?: string) {
  const inScope = (column: string) => sql`(${reportId ?? null}::uuid is null or ${sql.ref(column)} = ${reportId ?? null}::uuid)`;
  const { rows } = await sql<{ table: string; id: string }>`
    select 'evidence_images' as table, e.id::text as id from evidence_images e
     where ${inScope('e.report_id')} and (not exists (select 1 from reports r where r.id = e.report_id)
        or (e.profile_id is not null and not exists (select 1 from report_profiles p where p.id = e.profile_id and p.report_id = e.report_id))
        or not exists (select 1 from scan_items i where i.id = e.item_id and i.report_id = e.report_id and i.profile_id is not distinct from e.profile_id))
    union all
    select 'activity_events', a.id::text from activity_events a
     where ${inScope('a.report_id')} and (not exists (select 1 from reports r where r.id = a.report_id)
        or (a.profile_id is not null and not exists (select 1 from report_profiles p where p.id = a.profile_id and p.report_id = a.report_id)))
    union all
    select 'profile_analyses', a.profile_id::text from profile_analyses a
     where ${inScope('a.report_id')} and (not exists (select 1 from report_profiles p where p.id = a.profile_id and p.report_id = a.report_id)
        or not exists (select 1 from scan_items i where i.id = a.item_id and i.report_id = a.report_id and i.profile_id = a.profile_id))
    union all
    select 'activity_coverage', c.profile_id::text from activity_coverage c
     where ${inScope('c.report_id')} and (not exists (select 1 from report_profiles p where p.id = c.profile_id and p.report_id = c.report_id)
        or not exists (select 1 from scan_items i where i.id = c.item_id and i.report_id = c.report_id and i.profile_id = c.profile_id))
    union all
    select 'profile_contributions', c.profile_id::text from profile_contributions c
     where ${inScope('c.report_id')} and not exists (select 1 from report_profiles p where p.id = c.profile_id and p.report_id = c.report_id)`.execute(
    t.runtime.db,
  );
  assert.deepEqual(rows, [], `scan rows whose report, person or item is missing or of another report: ${JSON.stringify(rows)}`);
}
