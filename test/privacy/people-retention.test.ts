/**
 * Retention of people (RETENTION_REMOVED_PEOPLE, RETENTION_ARCHIVED_REPORTS):
 * maintenance erases each at the right age, with the service clock moved
 * instead of waiting, and nothing before it or beside it; /metrics counts
 * what it erased, and the audit log records it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { MaintenanceRunner } from '../../src/maintenance.js';
import { createMediaStore } from '../../src/scanning/media/create-media-store.js';
import { removePerson, setReportArchived } from '../../src/use-cases/manage-report.js';
import { reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { scanQueued } from '../support/handler.js';
import { foldsSettled } from '../support/rollups.js';

const DAY = 86_400_000;

describe('retention of people: the maintenance task with the clock moved', () => {
  const clock = new ManualClock(new Date());
  let t: TestApp;
  let owner: Tenant;
  let runner: MaintenanceRunner;
  let active: string;
  let archived: string;
  const ids: Record<'removed' | 'kept' | 'archivedPerson', string> = {} as never;

  async function report(profiles: string[]): Promise<string> {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': randomUUID() },
      body: reportBody({ profiles: profiles.map((p) => ({ pronet_url: `https://pronet.example/in/${p}` })) }),
    });
    assert.equal(created.status, 201, created.text);
    return created.body.data.report.id;
  }
  const exists = async (id: string) => (await t.runtime.db.selectFrom('report_profiles').select('id').where('id', '=', id).execute()).length === 1;
  const evidenceOf = async (id: string) => (await t.runtime.db.selectFrom('evidence_images').select('id').where('profile_id', '=', id).execute()).length;

  before(async () => {
    t = await startTestApp({ clock, env: { RETENTION_REMOVED_PEOPLE: '30d', RETENTION_ARCHIVED_REPORTS: '90d', MAINTENANCE_INTERVAL: '10m' } });
    runner = new MaintenanceRunner({
      db: t.runtime.db,
      media: await createMediaStore(t.config.media),
      retention: t.config.retention,
      clock,
      logger: createLogger('silent', 'test'),
      metrics: t.metrics,
    });
    owner = await t.tenant();
    active = await report(['retention-removed', 'retention-kept']);
    archived = await report(['retention-archived']);
    await scanQueued(t);
    await foldsSettled(t);
    const people = await t.runtime.db.selectFrom('report_profiles').select(['id', 'pronet_url']).execute();
    const idOf = (handle: string) => people.find((p) => p.pronet_url.endsWith(handle))!.id;
    ids.removed = idOf('retention-removed');
    ids.kept = idOf('retention-kept');
    ids.archivedPerson = idOf('retention-archived');
    assert.ok((await evidenceOf(ids.removed)) > 0);
    const scope = { db: t.runtime.db, workspaceId: owner.workspaceId, now: clock.now() };
    assert.ok(await removePerson(scope, active, ids.removed));
    assert.ok(await setReportArchived(scope, archived, true));
  });
  after(() => t?.close());

  test('nothing is erased before its age', async () => {
    clock.set(new Date(clock.now().getTime() + 29 * DAY));
    const report = await runner.runOnce({ force: true });
    assert.equal(report?.removed_people, 0);
    assert.equal(report?.archived_reports, 0);
    assert.ok((await exists(ids.removed)) && (await exists(ids.kept)) && (await exists(ids.archivedPerson)));
  });

  test('a person removed longer ago than RETENTION_REMOVED_PEOPLE is erased, the others stay', async () => {
    clock.set(new Date(clock.now().getTime() + 2 * DAY));
    const report = await runner.runOnce({ force: true });
    assert.equal(report?.removed_people, 1);
    assert.equal(report?.archived_reports, 0);
    assert.equal(await exists(ids.removed), false);
    assert.equal(await evidenceOf(ids.removed), 0);
    assert.ok((await exists(ids.kept)) && (await evidenceOf(ids.kept)) > 0);
    assert.ok(await exists(ids.archivedPerson));
    // A later import adds them afresh.
    const again = await t.request('POST', `/api/v1/reports/${active}/profile-imports`, {
      key: owner.secret,
      headers: { 'idempotency-key': randomUUID() },
      body: { profiles: [{ pronet_url: 'https://pronet.example/in/retention-removed' }] },
    });
    assert.equal(again.body.data.rows[0].status, 'added');
  });

  test('the people of a report archived longer ago than RETENTION_ARCHIVED_REPORTS are erased; the report stays', async () => {
    clock.set(new Date(clock.now().getTime() + 60 * DAY));
    const report = await runner.runOnce({ force: true });
    assert.equal(report?.archived_reports, 1);
    assert.equal(await exists(ids.archivedPerson), false);
    assert.equal((await t.runtime.db.selectFrom('reports').select('id').where('id', '=', archived).execute()).length, 1);
    assert.ok(await exists(ids.kept));
    const metrics = await t.metrics.registry.metrics();
    assert.match(metrics, /profile_scan_maintenance_rows_total\{task="removed_people"[^}]*\} 1\n/);
    assert.match(metrics, /profile_scan_maintenance_rows_total\{task="archived_reports"[^}]*\} 1\n/);
    const audit = await t.runtime.db
      .selectFrom('audit_log')
      .select(['action', 'actor_kind', 'count'])
      .where('actor_kind', '=', 'maintenance')
      .orderBy('id')
      .execute();
    assert.deepEqual(audit, [
      { action: 'erase_removed_people', actor_kind: 'maintenance', count: 1 },
      { action: 'erase_archived_report_people', actor_kind: 'maintenance', count: 1 },
    ]);
  });
});
