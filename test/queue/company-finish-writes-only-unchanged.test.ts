/**
 * The company page's finishing item reads what is stored of the company page
 * first, on its own, then ends in one statement that writes only if no other
 * company page item of the report ended since the read (the version of the
 * company page's observation on the report row) and the claim still holds
 * the item (queue/finish.ts, endCompanyItem; migration 0037). Its
 * roll-up is a delta the fold recomputes the company page from.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { processItem } from '../../src/scanning/item-handler.js';
// The finish's read and its end statement, called by hand to change the company page between them.
import { readCompanyFinish } from '../../src/store/analysis-repository.js';
import { claimItem } from '../../src/queue/claim.js';
import { endCompanyItem } from '../../src/queue/finish.js';
import { type BegunItem, type Claim } from '../../src/queue/item.js';
import { gateHolds } from '../../src/store/one-statement.js';
import { providerUsageWrite } from '../../src/store/provider-usage-repository.js';
import { people, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { untilAnotherSessionWaitsOnALock } from '../support/db.js';
import { handlerContext } from '../support/handler.js';
import { assertTotalsMatchRebuild, foldsSettled } from '../support/rollups.js';

describe("the company page's end in one statement", () => {
  let t: TestApp;
  let owner: Tenant;

  before(async () => {
    t = await startTestApp();
    owner = await t.tenant();
  });
  after(async () => {
    await t?.close();
  });

  /** A one-person report, every item claimed and begun by its claim; the company page's item, and every claim. */
  async function companyClaimed(key: string): Promise<{ reportId: string; item: BegunItem; claims: Claim[] }> {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': key },
      body: reportBody({ profiles: people(1, key) }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const reportId: string = created.body.data.report.id;
    const claims: Claim[] = [];
    const begin = { now: new Date(), maxAttempts: 3 };
    for (let claim = await claimItem(t.runtime.db, 30, undefined, begin); claim; claim = await claimItem(t.runtime.db, 30, undefined, begin))
      claims.push(claim);
    const item = claims.map((c) => c.begun).find((b) => b && b.report_id === reportId && b.profile_id === null);
    assert.ok(item, "the company page's item was claimed and begun");
    await foldsSettled(t);
    return { reportId, item, claims };
  }

  async function itemRow(id: string) {
    return t.runtime.db.selectFrom('scan_items').select(['status', 'claim_id']).where('id', '=', id).executeTakeFirstOrThrow();
  }

  async function usageOf(provider: string): Promise<number> {
    const rows = await t.runtime.db.selectFrom('provider_usage').select('records').where('provider', '=', provider).execute();
    return rows.reduce((sum, r) => sum + r.records, 0);
  }

  async function deltasOf(reportId: string): Promise<number> {
    return (await t.runtime.db.selectFrom('rollup_deltas').select('id').where('report_id', '=', reportId).execute()).length;
  }

  /** What the finish hands to its statement, from a read now, with one write of its own (a billed record under `provider`). */
  async function endOf(item: BegunItem, provider: string) {
    const read = await readCompanyFinish(t.runtime.db, { reportId: item.report_id, observedEventIds: [] });
    assert.ok(read);
    return { companyVersion: read.companyVersion, writes: [providerUsageWrite({ workspaceId: item.workspace_id, provider, records: 1 }, gateHolds)] };
  }

  const inaccessible = { status: 'inaccessible' as const, warning: false as const, reason: 'test' };

  test('another company page item of the report ended after the read: the statement writes nothing and says stale; read again, it ends once and every count stays exact', async () => {
    const { reportId, item, claims } = await companyClaimed('company-stale');
    const given = await endOf(item, 'company-stale');
    // What the end of another company page item of the report does to the report row.
    await sql`update reports set company_version = company_version + 1 where id = ${reportId}`.execute(t.runtime.db);
    assert.equal(await endCompanyItem(t.runtime.db, item, inaccessible, new Date(), given), 'stale');
    assert.deepEqual(await itemRow(item.id), { status: 'running', claim_id: item.claim_id }, 'the item did not end');
    assert.equal(await usageOf('company-stale'), 0, "the item's own writes were undone");
    assert.equal(await deltasOf(reportId), 0, 'no delta was recorded');
    assert.equal(await endCompanyItem(t.runtime.db, item, inaccessible, new Date(), await endOf(item, 'company-stale')), 'ended');
    assert.equal((await itemRow(item.id)).status, 'inaccessible');
    assert.equal(await usageOf('company-stale'), 1);
    for (const claim of claims.filter((c) => c.itemId !== item.id)) assert.equal(await processItem(handlerContext(t), claim), 'succeeded');
    await foldsSettled(t);
    const run = await t.runtime.db.selectFrom('scan_runs').select(['status', 'failed', 'inaccessible']).where('id', '=', item.run_id).executeTakeFirstOrThrow();
    assert.deepEqual(run, { status: 'partial', failed: 1, inaccessible: 1 });
    await assertTotalsMatchRebuild(t, reportId);
  });

  test('a claim lost after the read: the statement writes nothing and says lost', async () => {
    const { reportId, item } = await companyClaimed('company-lost');
    const given = await endOf(item, 'company-lost');
    const other = { ...item, claim_id: '00000000-0000-4000-8000-000000000000' };
    assert.equal(await endCompanyItem(t.runtime.db, other, inaccessible, new Date(), given), 'lost');
    assert.equal((await itemRow(item.id)).status, 'running');
    assert.equal(await usageOf('company-lost'), 0);
    assert.equal(await deltasOf(reportId), 0);
    const version = await t.runtime.db.selectFrom('reports').select('company_version').where('id', '=', reportId).executeTakeFirstOrThrow();
    assert.equal(version.company_version, given.companyVersion, "the version's bump was undone with the rest");
  });

  test("the company page's end waits for a holder of the report, then ends once, and readers count it as it stands, folded or not", async () => {
    const { reportId, item, claims } = await companyClaimed('company-waits');
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    let finishing: Promise<string> | undefined;
    try {
      await holder.query('begin');
      await holder.query('select 1 from reports where id = $1 for no key update', [reportId]);
      finishing = processItem(
        handlerContext(t),
        claims.find((c) => c.itemId === item.id)!,
      );
      // Its statement waits for the report.
      await untilAnotherSessionWaitsOnALock(holder, "the company page's statement waited for the report");
      assert.equal((await itemRow(item.id)).status, 'running', 'nothing ended while the report was held');
    } finally {
      await holder.query('commit');
      await holder.end();
    }
    assert.equal(await finishing, 'succeeded');
    // Right after the end, whether or not its fold has run: the company page counts as succeeded.
    const analysis = await t.request('GET', `/api/v1/reports/${reportId}/analysis`, { key: owner.secret });
    assert.equal(analysis.status, 200);
    assert.equal(analysis.body.data.work.counts.succeeded, 1);
    assert.equal(analysis.body.data.work.counts.processing, 2);
    for (const claim of claims.filter((c) => c.itemId !== item.id)) assert.equal(await processItem(handlerContext(t), claim), 'succeeded');
    await foldsSettled(t);
    await assertTotalsMatchRebuild(t, reportId);
  });
});
