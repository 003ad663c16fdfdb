/**
 * A history row belongs to its round of scans: when a refresh's activity
 * item ends before the same round's full-profile item, what it changes of the
 * person's analysis lands in a row of that round (keyed by the round's
 * full-profile item, which then updates it), never in the previous round's
 * row, which keeps what was shown then. Items are driven by hand to choose
 * the order they end in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Collector, CollectRequest, CollectResult } from '../../src/scanning/collectors/collector.js';
import { SimulatorCollector } from '../../src/scanning/collectors/simulator/index.js';
import { processItem } from '../../src/scanning/item-handler.js';
import { claimItem } from '../../src/queue/claim.js';
import type { Claim } from '../../src/queue/item.js';
import { people, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { handlerContext, scanQueued } from '../support/handler.js';

/** The simulator, except that while `quiet` is set a person's activity is observed empty (no posts: a gap). */
class QuietThenPostingCollector implements Collector {
  readonly name = 'simulator';
  quiet = true;
  private readonly simulator = new SimulatorCollector({ delayMs: 0 });
  async collect(request: CollectRequest): Promise<CollectResult> {
    const result = await this.simulator.collect(request);
    if (!this.quiet || request.kind !== 'person' || request.mode !== 'activity' || result.outcome !== 'ok') return result;
    return { ...result, activity: [] };
  }
}

describe("a round's history row", () => {
  let t: TestApp;
  let owner: Tenant;

  before(async () => {
    t = await startTestApp();
    owner = await t.tenant();
  });
  after(async () => {
    await t?.close();
  });

  const historyOf = async (profileId: string) =>
    (
      await sql<{ item_id: string; outcomes: Record<string, string>; updated_at: Date }>`
        select item_id, outcomes, updated_at from person_scan_history where profile_id = ${profileId} order by seq`.execute(t.runtime.db)
    ).rows;

  const fullItemsOf = async (profileId: string) =>
    (
      await t.runtime.db
        .selectFrom('scan_items as i')
        .innerJoin('scan_runs as r', 'r.id', 'i.run_id')
        .select(['i.id', 'r.mode'])
        .where('i.profile_id', '=', profileId)
        .where('r.mode', '=', 'full_profile')
        .orderBy('i.created_at')
        .execute()
    ).map((i) => i.id);

  test("an activity item that ends before its round's full-profile item writes its own round's row, not the previous one", async () => {
    const collector = new QuietThenPostingCollector();
    const ctx = handlerContext(t, collector);
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'history-round' },
      body: reportBody({ profiles: people(1, 'history-round') }),
    });
    assert.equal(created.status, 201, created.text);
    const reportId: string = created.body.data.report.id;
    const profileId: string = created.body.data.profiles.rows[0].profile_id;
    await scanQueued(t, ctx);
    const first = await historyOf(profileId);
    assert.equal(first.length, 1);
    assert.equal(first[0].outcomes['activity.posted_recently'], 'optimize', 'no posts observed in the first round');

    // The second round: the person posts now, and its activity item ends first.
    collector.quiet = false;
    const refreshed = await t.request('POST', `/api/v1/reports/${reportId}/refreshes`, {
      key: owner.secret,
      headers: { 'idempotency-key': 'history-round-refresh' },
    });
    assert.equal(refreshed.status, 201, refreshed.text);
    const [firstFull, secondFull] = await fullItemsOf(profileId);
    assert.ok(secondFull, 'the refresh queued a full-profile item');
    const claims: Claim[] = [];
    for (let claim = await claimItem(t.runtime.db, 30); claim; claim = await claimItem(t.runtime.db, 30)) claims.push(claim);
    for (const claim of claims.filter((c) => c.itemId !== secondFull)) assert.equal(await processItem(ctx, claim), 'succeeded');

    const afterActivity = await historyOf(profileId);
    assert.deepEqual(
      afterActivity.map((r) => r.item_id),
      [firstFull, secondFull],
      "the activity wrote the second round's row",
    );
    assert.deepEqual(afterActivity[0], first[0], "the first round's row is as it was shown then");
    assert.equal(afterActivity[1].outcomes['activity.posted_recently'], 'good');

    // The round's full-profile item ends: it updates its round's row, adding none.
    assert.equal(
      await processItem(
        ctx,
        claims.find((c) => c.itemId === secondFull)!,
      ),
      'succeeded',
    );
    const last = await historyOf(profileId);
    assert.deepEqual(
      last.map((r) => r.item_id),
      [firstFull, secondFull],
    );
    assert.deepEqual(last[0], first[0]);
    assert.equal(last[1].outcomes['activity.posted_recently'], 'good');
  });
});
