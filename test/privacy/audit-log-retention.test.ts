/**
 * The audit log is kept by its own retention setting (RETENTION_AUDIT_LOG):
 * maintenance deletes the entries recorded longer ago than the setting, with
 * the service clock moved instead of waiting, keeps the younger ones, and
 * /metrics counts what it deleted (docs/privacy.md).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { MaintenanceRunner } from '../../src/maintenance.js';
import { createMediaStore } from '../../src/scanning/media/create-media-store.js';
import { startTestApp, type Tenant, type TestApp } from '../support/app.js';

const DAY = 86_400_000;

describe('retention of the audit log: the maintenance task with the clock moved', () => {
  const clock = new ManualClock(new Date());
  const start = clock.now().getTime();
  let t: TestApp;
  let runner: MaintenanceRunner;
  let older: Tenant;
  let younger: Tenant;

  /** The audit entries of a workspace (the operator issuing its key records one). */
  const entriesOf = async (tenant: Tenant) =>
    (await t.runtime.db.selectFrom('audit_log').select(['action', 'object_ref']).where('workspace_ref', '=', tenant.workspaceId).execute()).map(
      (e) => `${e.action} ${e.object_ref}`,
    );

  before(async () => {
    t = await startTestApp({ clock, env: { RETENTION_AUDIT_LOG: '30d', MAINTENANCE_INTERVAL: '10m' } });
    runner = new MaintenanceRunner({
      db: t.runtime.db,
      media: await createMediaStore(t.config.media),
      retention: t.config.retention,
      clock,
      logger: createLogger('silent', 'test'),
      metrics: t.metrics,
    });
    older = await t.tenant({ name: 'Audited first' });
    clock.set(new Date(start + 20 * DAY));
    younger = await t.tenant({ name: 'Audited twenty days later' });
    assert.deepEqual(await entriesOf(older), [`issue_key ${older.keyId}`]);
    assert.deepEqual(await entriesOf(younger), [`issue_key ${younger.keyId}`]);
  });
  after(() => t?.close());

  test('no entry is deleted before it is RETENTION_AUDIT_LOG old', async () => {
    clock.set(new Date(start + 30 * DAY - 60_000));
    const report = await runner.runOnce({ force: true });
    assert.equal(report?.audit_log, 0);
    assert.equal((await entriesOf(older)).length, 1);
    assert.equal((await entriesOf(younger)).length, 1);
  });

  test('an entry older than RETENTION_AUDIT_LOG is deleted, a younger one stays, and /metrics counts it', async () => {
    clock.set(new Date(start + 30 * DAY + 60_000));
    const report = await runner.runOnce({ force: true });
    assert.equal(report?.audit_log, 1);
    assert.deepEqual(await entriesOf(older), []);
    assert.deepEqual(await entriesOf(younger), [`issue_key ${younger.keyId}`]);
    assert.match(await t.metrics.registry.metrics(), /profile_scan_maintenance_rows_total\{task="audit_log"[^}]*\} 1\n/);
  });

  test('the younger entry goes once it too is older than RETENTION_AUDIT_LOG', async () => {
    clock.set(new Date(start + 50 * DAY + 60_000));
    const report = await runner.runOnce({ force: true });
    assert.equal(report?.audit_log, 1);
    assert.deepEqual(await entriesOf(younger), []);
  });
});
