/**
 * A person's latest full-profile item (store/latest-item.ts: the findings
 * record's reason, the people table, the person page) is the one of their
 * newest run, whatever the items' own creation says; the item's copy of its
 * run's mode and creation, which that order reads (migration 0056), cannot
 * disagree with the run: the database refuses such a row.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ManualClock } from '../../src/clock.js';
// The subject is the SQL fragment every reader of the reason joins, and the schema's key.
import { latestFullItemJoin } from '../../src/store/latest-item.js';
import { reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { scanQueued } from '../support/handler.js';

describe("a person's latest item follows their runs", () => {
  let t: TestApp;
  let clock: ManualClock;
  let owner: Tenant;
  before(async () => {
    clock = new ManualClock(new Date('2026-11-20T12:00:00Z'));
    t = await startTestApp({ clock });
    owner = await t.tenant();
  });
  after(async () => t?.close());

  async function scannedPerson(slug: string): Promise<{ reportId: string; profileId: string }> {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': `create-${slug}` },
      body: reportBody({ profiles: [{ pronet_url: `https://pronet.example/in/${slug}`, name: `Person ${slug}` }] }),
    });
    assert.equal(created.status, 201, created.text);
    await scanQueued(t);
    return { reportId: created.body.data.report.id, profileId: created.body.data.profiles.rows[0].profile_id };
  }

  async function fullItems(profileId: string) {
    return t.runtime.db
      .selectFrom('scan_items')
      .innerJoin('scan_runs', 'scan_runs.id', 'scan_items.run_id')
      .select(['scan_items.id', 'scan_items.run_id', 'scan_items.status', 'scan_runs.created_at as run_created_at'])
      .where('scan_items.profile_id', '=', profileId)
      .where('scan_runs.mode', '=', 'full_profile')
      .orderBy('scan_runs.created_at')
      .execute();
  }

  test("a person scanned again reads the newer run's item, even when the older run's item was created later", async () => {
    const { reportId, profileId } = await scannedPerson('twice');
    clock.advance(60_000);
    const refreshed = await t.request('POST', `/api/v1/reports/${reportId}/refreshes`, { key: owner.secret, headers: { 'idempotency-key': 'refresh-twice' } });
    assert.equal(refreshed.status, 201, refreshed.text);
    const [older, newer] = await fullItems(profileId);
    assert.equal(older.status, 'succeeded');
    assert.equal(newer.status, 'pending');
    // Item creation says the opposite of run creation: only the run's order may decide.
    await sql`update scan_items set created_at = ${new Date(clock.now().getTime() + 3_600_000)} where id = ${older.id}`.execute(t.runtime.db);
    const { rows } = await sql<{ status: string | null }>`
      select li.status from report_profiles p ${sql.raw(latestFullItemJoin('p'))} where p.id = ${profileId}::uuid`.execute(t.runtime.db);
    assert.deepEqual(rows, [{ status: 'pending' }]);
  });

  test("an item whose copy of its run's mode or creation differs from the run is refused", async () => {
    const { reportId, profileId } = await scannedPerson('disagree');
    const [item] = await fullItems(profileId);
    // A row the run has no other of (one item per person per run), so only the reference can refuse it.
    const insert = (runMode: string, runCreatedAt: Date) =>
      sql`insert into scan_items (id, run_id, run_mode, run_created_at, report_id, profile_id, kind, status, created_at, ready_at)
          values (${randomUUID()}, ${item.run_id}, ${runMode}, ${runCreatedAt}, ${reportId}, null, 'company_page', 'pending', now(), now())`.execute(
        t.runtime.db,
      );
    const refused = (error: { code?: string; constraint?: string }) => {
      assert.equal(error.code, '23503');
      assert.equal(error.constraint, 'scan_items_run_fkey');
      return true;
    };
    const runCreatedAt = new Date(item.run_created_at);
    await assert.rejects(insert('full_profile', new Date(runCreatedAt.getTime() + 1)), refused);
    await assert.rejects(insert('activity', runCreatedAt), refused);
    await assert.rejects(sql`update scan_items set run_created_at = run_created_at - interval '1 day' where id = ${item.id}`.execute(t.runtime.db), refused);
    // The same row with the run's own values is accepted.
    await insert('full_profile', runCreatedAt);
  });
});
