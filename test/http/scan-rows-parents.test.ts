/**
 * The rows a scan writes per person (evidence, events, the analysis, the
 * activity coverage, the contribution) carry no foreign keys (migration
 * 0040): the statements that write them prove their report, person and item
 * in the same statement. The tests' check of those references
 * (assertScanRowsReferenceTheirParents) holds after real scans, and finds a
 * row whose parent is missing or belongs to another report.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { processItem } from '../../src/scanning/item-handler.js';
import { claimItem } from '../../src/store/item-repository.js';
import { people, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { handlerContext } from '../support/handler.js';
import { assertScanRowsReferenceTheirParents } from '../support/rollups.js';

describe('scan rows and their parents', () => {
  let t: TestApp;
  let owner: Tenant;

  before(async () => {
    t = await startTestApp();
    owner = await t.tenant();
  });
  after(async () => {
    await t?.close();
  });

  async function scannedReport(key: string, count: number): Promise<{ reportId: string; profileIds: string[] }> {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': key },
      body: reportBody({ profiles: people(count, key) }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    for (let claim = await claimItem(t.runtime.db, 30); claim; claim = await claimItem(t.runtime.db, 30)) {
      assert.equal(await processItem(handlerContext(t), claim), 'succeeded');
    }
    return { reportId: created.body.data.report.id, profileIds: created.body.data.profiles.rows.map((r: { profile_id: string }) => r.profile_id) };
  }

  async function countOf(table: 'evidence_images' | 'activity_events' | 'profile_analyses' | 'activity_coverage' | 'profile_contributions', reportId: string) {
    const rows = await t.runtime.db
      .selectFrom(table)
      .select(sql<number>`count(*)::int`.as('n'))
      .where('report_id', '=', reportId)
      .execute();
    return rows[0].n;
  }

  test("every row a scan writes names its report, a person of that report and that person's item", async () => {
    const { reportId } = await scannedReport('parents', 3);
    for (const table of ['evidence_images', 'activity_events', 'profile_analyses', 'activity_coverage', 'profile_contributions'] as const) {
      assert.ok((await countOf(table, reportId)) > 0, `the scans wrote ${table}`);
    }
    await assertScanRowsReferenceTheirParents(t, reportId);
  });

  test('the check finds an event whose person belongs to another report, and an image whose item does not exist', async () => {
    const first = await scannedReport('parents-a', 1);
    const second = await scannedReport('parents-b', 1);
    await assertScanRowsReferenceTheirParents(t);
    // Written as no statement of the service writes them: without foreign keys the database takes both.
    const event = await t.runtime.db
      .selectFrom('activity_events')
      .select(['id', 'profile_id'])
      .where('report_id', '=', first.reportId)
      .where('profile_id', 'is not', null)
      .executeTakeFirstOrThrow();
    await t.runtime.db.updateTable('activity_events').set({ profile_id: second.profileIds[0] }).where('id', '=', event.id).execute();
    const image = await t.runtime.db.selectFrom('evidence_images').select(['id', 'item_id']).where('report_id', '=', second.reportId).executeTakeFirstOrThrow();
    await t.runtime.db.updateTable('evidence_images').set({ item_id: randomUUID() }).where('id', '=', image.id).execute();

    await assert.rejects(assertScanRowsReferenceTheirParents(t, first.reportId), (error: Error) => {
      assert.match(error.message, new RegExp(`"activity_events","id":"${event.id}"`));
      assert.doesNotMatch(error.message, /evidence_images/, "the other report's image is not blamed on this one");
      return true;
    });
    await assert.rejects(assertScanRowsReferenceTheirParents(t, second.reportId), new RegExp(`"evidence_images","id":"${image.id}"`));

    await t.runtime.db.updateTable('activity_events').set({ profile_id: event.profile_id }).where('id', '=', event.id).execute();
    await t.runtime.db.updateTable('evidence_images').set({ item_id: image.item_id }).where('id', '=', image.id).execute();
    await assertScanRowsReferenceTheirParents(t);
  });
});
