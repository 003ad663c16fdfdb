/**
 * Fused reads (src/store/fused-read.ts) give the same result whichever path
 * runs them: inside the authorization statement, or on their own. Real
 * PostgreSQL, the repository functions the routes call.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { minuteWindow } from '../../src/domain/rate-limits.js';
// The two paths of one read are repository functions: no request chooses between them.
import { authorizeAndTake } from '../../src/store/rate-limit-repository.js';
import { findReport, reportFusedCall } from '../../src/store/report-repository.js';
import { readSummaryText, summaryFusedCall } from '../../src/store/analysis-read-repository.js';
import type { FusedCall, Prefetched } from '../../src/store/fused-read.js';
import { reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';

describe('fused reads', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let reportId: string;
  let otherReportId: string;
  const clock = new ManualClock(new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000));

  before(async () => {
    t = await startTestApp({ clock });
    tenant = await t.tenant();
    other = await t.tenant();
    const create = async (key: string) =>
      (await t.request('POST', '/api/v1/reports', { key, headers: { 'idempotency-key': 'fused' }, body: reportBody() })).body.data.report.id as string;
    reportId = await create(tenant.secret);
    otherReportId = await create(other.secret);
  });
  after(() => t?.close());

  /** What the authorization statement read for `call`, as a read request of `tenant` (the minute's counters exist by then). */
  async function prefetch(call: FusedCall): Promise<Prefetched> {
    const input = {
      secret: tenant.secret,
      windowStart: minuteWindow(clock.now()).start,
      kind: 'read' as const,
      readLimits: [1000, 1000] as [number, number],
      writeDefaults: [60, 600] as [number, number],
    };
    await authorizeAndTake(t.runtime.db, input); // creates the minute's counter rows, so the next take is the one-statement path
    const found = await authorizeAndTake(t.runtime.db, input, call);
    assert.ok(found?.fused, 'the authorization statement ran the fused read');
    return found.fused;
  }

  test('the report read through the authorization statement equals the report read alone', async () => {
    const fused = await findReport(t.runtime.db, { workspaceId: tenant.workspaceId, reportId }, { prefetched: await prefetch(reportFusedCall(reportId)) });
    const alone = await findReport(t.runtime.db, { workspaceId: tenant.workspaceId, reportId });
    assert.equal(fused?.id, reportId);
    assert.deepEqual(fused, alone);
    assert.ok(fused.created_at instanceof Date, 'timestamps decode to dates on both paths');
  });

  test("another workspace's report is not found on either path", async () => {
    const key = { workspaceId: tenant.workspaceId, reportId: otherReportId };
    assert.equal(await findReport(t.runtime.db, key, { prefetched: await prefetch(reportFusedCall(otherReportId)) }), undefined);
    assert.equal(await findReport(t.runtime.db, key), undefined);
  });

  test('the summary text through the authorization statement equals the summary text read alone', async () => {
    const fused = await readSummaryText(t.runtime.db, tenant.workspaceId, reportId, await prefetch(summaryFusedCall(reportId)));
    const alone = await readSummaryText(t.runtime.db, tenant.workspaceId, reportId);
    assert.ok(fused !== null && JSON.parse(fused).report.id === reportId);
    assert.equal(fused, alone);
  });

  test('a prefetched result of another read is not taken for this one: the read runs on its own', async () => {
    const summary = await prefetch(summaryFusedCall(reportId));
    const report = await findReport(t.runtime.db, { workspaceId: tenant.workspaceId, reportId }, { prefetched: summary });
    assert.equal(report?.id, reportId);
    assert.equal(report?.name, reportBody().name);
  });
});
