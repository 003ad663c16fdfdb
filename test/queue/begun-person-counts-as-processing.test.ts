/**
 * A person's item begins in one statement (queue/begin.ts,
 * beginItem): its run starts and the fold recomputes the person's
 * contribution, so the analysis counts the person as processing while the
 * item collects (readers count a person whom a pending delta names as they
 * stand, before any fold). When another transaction holds the person at
 * the fold, the fold asks for them again, and the totals stay exact either
 * way (equal to a rebuild from the stored rows).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { processItem } from '../../src/scanning/item-handler.js';
// Claims and begins by hand stage a person between their begin and their fold.
import { beginItem } from '../../src/queue/begin.js';
import { claimItem } from '../../src/queue/claim.js';
import { type Claim } from '../../src/queue/item.js';
import { settleStaleRollups } from '../../src/queue/settle.js';
import { reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { handlerContext } from '../support/handler.js';
import { assertTotalsMatchRebuild, foldsSettled } from '../support/rollups.js';

describe('a begun item in the roll-ups', () => {
  let t: TestApp;
  let owner: Tenant;

  before(async () => {
    t = await startTestApp();
    owner = await t.tenant();
  });
  after(async () => {
    await t?.close();
  });

  /** A one-person report (its items queued). */
  async function onePersonReport(slug: string): Promise<{ reportId: string; profileId: string }> {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': `begun-${slug}` },
      body: reportBody({ profiles: [{ pronet_url: `https://pronet.example/in/${slug}` }] }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return { reportId: created.body.data.report.id, profileId: created.body.data.profiles.rows[0].profile_id };
  }

  /** A one-person report; the company page's item processed; the person's first item claimed, not begun. */
  async function personClaimed(slug: string): Promise<{ reportId: string; profileId: string; claim: Claim }> {
    const { reportId, profileId } = await onePersonReport(slug);
    for (;;) {
      const claim = (await claimItem(t.runtime.db, 30))!;
      const item = await t.runtime.db.selectFrom('scan_items').select(['report_id', 'profile_id']).where('id', '=', claim.itemId).executeTakeFirstOrThrow();
      assert.equal(item.report_id, reportId);
      if (item.profile_id !== null) return { reportId, profileId, claim };
      assert.equal(await processItem(handlerContext(t), claim), 'succeeded');
    }
  }

  const work = async (reportId: string) => {
    const res = await t.request('GET', `/api/v1/reports/${reportId}/analysis`, { key: owner.secret });
    assert.equal(res.status, 200);
    return res.body.data.work.counts as { queued: number; processing: number; succeeded: number };
  };

  /** Every item processed (`claim` first) and folded: nobody queued or processing, and the totals equal a rebuild. */
  async function finishedExactly(reportId: string, claim: Claim): Promise<void> {
    for (let next: Claim | null = claim; next; next = await claimItem(t.runtime.db, 30)) {
      assert.equal(await processItem(handlerContext(t), next), 'succeeded');
    }
    await settleStaleRollups(t.runtime.db, t.clock.now(), 0);
    const counts = await work(reportId);
    assert.equal(counts.queued, 0);
    assert.equal(counts.processing, 0);
    await assertTotalsMatchRebuild(t, reportId);
  }

  test('once begun, the person counts as processing before their fold, and the run as running after it', async () => {
    const { reportId, claim } = await personClaimed('ada-begun');
    // Another transaction holds the report: the fold cannot take it, and the begin's delta waits.
    const holder = new pg.Client({ connectionString: t.config.databaseUrl! });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from reports where id = $1 for no key update', [reportId]);
      assert.notEqual(await beginItem(t.runtime.db, claim, t.clock.now()), null);
      await foldsSettled(t);
      // Not folded: readers count the person that the pending delta names as they stand.
      assert.notEqual(await t.runtime.db.selectFrom('rollup_deltas').select('id').where('report_id', '=', reportId).executeTakeFirst(), undefined);
      assert.equal((await work(reportId)).processing, 1);
    } finally {
      await holder.query('commit');
      await holder.end();
    }
    await settleStaleRollups(t.runtime.db, t.clock.now(), 0);
    const run = await t.runtime.db
      .selectFrom('scan_items as i')
      .innerJoin('scan_runs as r', 'r.id', 'i.run_id')
      .select('r.status')
      .where('i.id', '=', claim.itemId)
      .executeTakeFirstOrThrow();
    assert.equal(run.status, 'running');
    assert.equal((await work(reportId)).processing, 1);
    await assertTotalsMatchRebuild(t, reportId);
    await finishedExactly(reportId, claim);
  });

  test('a person held by another transaction at the fold is asked for again: readers count them as processing, and a later fold recomputes them exactly', async () => {
    const { reportId, profileId, claim } = await personClaimed('grace-held');
    const holder = new pg.Client({ connectionString: t.config.databaseUrl! });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from report_profiles where id = $1 for no key update', [profileId]);
      const begun = await beginItem(t.runtime.db, claim, t.clock.now());
      assert.notEqual(begun, null);
      await foldsSettled(t);
      // The fold ran (the run started), left the held person as they were, and asked for them again.
      const left = await t.runtime.db.selectFrom('rollup_deltas').select(['recompute_profile_id', 'run_id']).where('report_id', '=', reportId).execute();
      assert.deepEqual(left, [{ recompute_profile_id: profileId, run_id: null }]);
      assert.equal((await work(reportId)).processing, 1);
    } finally {
      await holder.query('commit');
      await holder.end();
    }
    await settleStaleRollups(t.runtime.db, t.clock.now(), 0);
    assert.equal(await t.runtime.db.selectFrom('rollup_deltas').select('id').where('report_id', '=', reportId).executeTakeFirst(), undefined);
    await assertTotalsMatchRebuild(t, reportId);
    await finishedExactly(reportId, claim);
  });

  test("a worker's claim begins a person's item and the company page's in the claim's own statement, and readers count both as processing before any fold", async () => {
    const { reportId, profileId } = await onePersonReport('claim-begins');
    const begin = { now: t.clock.now(), maxAttempts: 3 };
    const seen = { person: 0, company: 0 };
    // The report is held: no fold takes the deltas the claims append, so they can be counted.
    const holder = new pg.Client({ connectionString: t.config.databaseUrl! });
    await holder.connect();
    const claims: Claim[] = [];
    try {
      await holder.query('begin');
      await holder.query('select 1 from reports where id = $1 for no key update', [reportId]);
      for (let claim = await claimItem(t.runtime.db, 30, undefined, begin); claim; claim = await claimItem(t.runtime.db, 30, undefined, begin)) {
        const item = await t.runtime.db
          .selectFrom('scan_items')
          .select(['profile_id', 'status', 'claim_id'])
          .where('id', '=', claim.itemId)
          .executeTakeFirstOrThrow();
        assert.deepEqual({ status: item.status, claim_id: item.claim_id }, { status: 'running', claim_id: claim.claimId });
        if (item.profile_id === null) {
          seen.company++;
          assert.equal(claim.begun?.id, claim.itemId);
          assert.equal(claim.begun?.kind, 'company_page');
          assert.equal(claim.begun?.inputs.companyUrl, reportBody().company.pronet_company_url);
        } else {
          seen.person++;
          assert.equal(claim.begun?.id, claim.itemId);
          assert.equal(claim.begun?.claim_id, claim.claimId);
          assert.equal(claim.begun?.profile_id, profileId);
          assert.equal(claim.begun?.inputs.profileUrl, 'https://pronet.example/in/claim-begins');
        }
        claims.push(claim);
      }
      const deltas = await t.runtime.db
        .selectFrom('rollup_deltas')
        .select(['recompute_profile_id', 'recompute_company', 'started'])
        .where('report_id', '=', reportId)
        .orderBy('id')
        .execute();
      // One begin per item: the person's two (full profile and activity) name the person, the company page's asks for the company page.
      assert.deepEqual(seen, { person: 2, company: 1 });
      assert.deepEqual(
        [...deltas].sort((a, b) => Number(a.recompute_company) - Number(b.recompute_company)),
        [
          { recompute_profile_id: profileId, recompute_company: false, started: true },
          { recompute_profile_id: profileId, recompute_company: false, started: true },
          { recompute_profile_id: null, recompute_company: true, started: true },
        ],
      );
      // Readers count the begun person's two items and the company page's as processing before any fold.
      assert.equal((await work(reportId)).processing, 3);
    } finally {
      await holder.query('commit');
      await holder.end();
    }
    for (const claim of claims) assert.equal(await processItem(handlerContext(t), claim), 'succeeded');
    await settleStaleRollups(t.runtime.db, t.clock.now(), 0);
    const counts = await work(reportId);
    assert.deepEqual([counts.queued, counts.processing, counts.succeeded], [0, 0, 3]);
    await assertTotalsMatchRebuild(t, reportId);
  });

  test('a claim past its attempts is not begun by its statement', async () => {
    const { reportId } = await onePersonReport('claim-past-attempts');
    const claims: Claim[] = [];
    for (let claim = await claimItem(t.runtime.db, 30, undefined, { now: t.clock.now(), maxAttempts: 0 }); claim;) {
      assert.equal(claim.begun, undefined);
      claims.push(claim);
      claim = await claimItem(t.runtime.db, 30, undefined, { now: t.clock.now(), maxAttempts: 0 });
    }
    assert.equal(claims.length, 3);
    assert.equal(await t.runtime.db.selectFrom('rollup_deltas').select('id').where('report_id', '=', reportId).executeTakeFirst(), undefined);
    for (const claim of claims) assert.equal(await processItem(handlerContext(t), claim), 'succeeded');
    await assertTotalsMatchRebuild(t, reportId);
  });
});
