/**
 * A person's finishing item reads the person first, on its own, then ends
 * in one statement that writes only if the person is still as it read them
 * (queue/finish.ts, endPersonItem; migration 0035). The statement
 * writes nothing when the claim is lost or someone changed the person since
 * the read; the finish then reads and decides again, and every count stays
 * exact.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { processItem } from '../../src/scanning/item-handler.js';
// The finish's read and its end statement, called by hand to change the person between them.
import { readFinishFacts } from '../../src/store/analysis-repository.js';
import { beginItem } from '../../src/queue/begin.js';
import { claimItem } from '../../src/queue/claim.js';
import { endPersonItem } from '../../src/queue/finish.js';
import { type BegunItem, type Claim } from '../../src/queue/item.js';
import { lockAttachments } from '../../src/store/locks.js';
import { gateHolds } from '../../src/store/one-statement.js';
import { providerUsageWrite } from '../../src/store/provider-usage-repository.js';
import { people, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { untilAnotherSessionWaitsOnALock } from '../support/db.js';
import { handlerContext } from '../support/handler.js';
import { assertTotalsMatchRebuild, foldsSettled } from '../support/rollups.js';

describe("a person's finish in one statement", () => {
  let t: TestApp;
  let owner: Tenant;

  before(async () => {
    t = await startTestApp();
    owner = await t.tenant();
  });
  after(async () => {
    await t?.close();
  });

  async function createReport(key: string): Promise<string> {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': key },
      body: reportBody({ profiles: people(1, key) }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.data.report.id;
  }

  /** Claims and begins the report's items; the person's full-profile item, begun, and every claim. */
  async function claimReport(reportId: string): Promise<{ item: BegunItem; claims: Claim[] }> {
    const claims: Claim[] = [];
    const now = new Date();
    for (let claim = await claimItem(t.runtime.db, 30, undefined, { now, maxAttempts: 3 }); claim;) {
      // The company page's item is begun on its own (under its report's lock), as a worker would.
      if (!claim.begun) assert.ok(await beginItem(t.runtime.db, claim, now));
      claims.push(claim);
      claim = await claimItem(t.runtime.db, 30, undefined, { now, maxAttempts: 3 });
    }
    const item = claims.map((c) => c.begun).find((b) => b && b.report_id === reportId && b.profile_id !== null && b.mode === 'full_profile');
    assert.ok(item, 'the person item was claimed and begun');
    // The begins' folds (which recompute the people, bumping their versions) are done: nothing else changes the person.
    await foldsSettled(t);
    return { item, claims };
  }

  async function itemRow(id: string) {
    return t.runtime.db.selectFrom('scan_items').select(['status', 'claim_id']).where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** Deltas not folded yet (the folds after the claims are settled, and a statement that wrote nothing asks for none). */
  async function deltasOf(reportId: string): Promise<number> {
    const rows = await t.runtime.db.selectFrom('rollup_deltas').select('id').where('report_id', '=', reportId).execute();
    return rows.length;
  }

  async function usageOf(provider: string): Promise<number> {
    const rows = await t.runtime.db.selectFrom('provider_usage').select('records').where('provider', '=', provider).execute();
    return rows.reduce((sum, r) => sum + r.records, 0);
  }

  /** What the finish hands to its statement, from a read now, with one write of its own (a billed record under `provider`). */
  async function endOf(item: BegunItem, provider: string) {
    const read = await readFinishFacts(t.runtime.db, {
      reportId: item.report_id,
      profileId: item.profile_id!,
      observedEventIds: [],
      ended: { id: item.id, status: 'inaccessible', warning: false },
    });
    assert.ok(read.factsVersion !== null);
    return {
      factsVersion: read.factsVersion,
      person: read.person,
      writes: [providerUsageWrite({ workspaceId: item.workspace_id, provider, records: 1 }, gateHolds)],
      analysisAvailable: false,
    };
  }

  const inaccessible = { status: 'inaccessible' as const, warning: false as const, reason: 'test' };

  test('a person changed by a holder of their attachment after the read: the statement writes nothing and says stale', async () => {
    const reportId = await createReport('stale');
    const { item } = await claimReport(reportId);
    const given = await endOf(item, 'stale-test');
    // A roll-up (or another item of the person) takes the attachment and commits: its version moves on.
    await t.runtime.db.transaction().execute((trx) => lockAttachments(trx, [item.profile_id!]));
    assert.equal(await endPersonItem(t.runtime.db, item, inaccessible, new Date(), given), 'stale');
    const row = await itemRow(item.id);
    assert.equal(row.status, 'running', 'the item did not end');
    assert.equal(row.claim_id, item.claim_id);
    assert.equal(await usageOf('stale-test'), 0, "the item's own writes were undone");
    assert.equal(await deltasOf(reportId), 0, 'no delta was recorded');
    // Read again, it ends, and is counted once.
    assert.equal(await endPersonItem(t.runtime.db, item, inaccessible, new Date(), await endOf(item, 'stale-test')), 'ended');
    assert.equal((await itemRow(item.id)).status, 'inaccessible');
    assert.equal(await usageOf('stale-test'), 1);
    await foldsSettled(t);
    await assertTotalsMatchRebuild(t, reportId);
  });

  test('a claim lost after the read: the statement writes nothing and says lost', async () => {
    const reportId = await createReport('lost');
    const { item } = await claimReport(reportId);
    const given = await endOf(item, 'lost-test');
    const other = { ...item, claim_id: '00000000-0000-4000-8000-000000000000' };
    assert.equal(await endPersonItem(t.runtime.db, other, inaccessible, new Date(), given), 'lost');
    assert.equal((await itemRow(item.id)).status, 'running');
    assert.equal(await usageOf('lost-test'), 0);
    assert.equal(await deltasOf(reportId), 0);
  });

  test('a finish waiting for the holder of its attachment reads the person again once the holder commits, ends the item once, and every count stays exact', async () => {
    const reportId = await createReport('waits');
    const claims: Claim[] = [];
    for (let claim = await claimItem(t.runtime.db, 30); claim; claim = await claimItem(t.runtime.db, 30)) claims.push(claim);
    const ctx = handlerContext(t);
    // The company page and the activity item first: the person item's finish is the one held up.
    const ids = await t.runtime.db
      .selectFrom('scan_items as i')
      .innerJoin('scan_runs as r', 'r.id', 'i.run_id')
      .select(['i.id', 'i.profile_id', 'r.mode'])
      .where('i.report_id', '=', reportId)
      .execute();
    const full = ids.find((i) => i.profile_id !== null && i.mode === 'full_profile')!;
    for (const claim of claims.filter((c) => c.itemId !== full.id)) assert.equal(await processItem(ctx, claim), 'succeeded');
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    let finishing: Promise<string> | undefined;
    try {
      await holder.query('begin');
      await holder.query('update report_profiles set facts_version = facts_version + 1 where id = $1', [full.profile_id]);
      finishing = processItem(
        ctx,
        claims.find((c) => c.itemId === full.id)!,
      );
      // Its statement waits for the attachment.
      await untilAnotherSessionWaitsOnALock(holder, "the finish's statement waited for the attachment");
    } finally {
      await holder.query('commit');
      await holder.end();
    }
    assert.equal(await finishing, 'succeeded');
    assert.equal((await itemRow(full.id)).status, 'succeeded');
    await foldsSettled(t);
    await assertTotalsMatchRebuild(t, reportId);
  });
});
