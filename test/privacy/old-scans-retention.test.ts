/**
 * HISTORY_RETENTION_MONTHS bounds the scans themselves: maintenance deletes
 * a superseded scan older than the window (its scan items, their evidence
 * rows and, through the durable blob deletion, the blobs in S3 no other
 * evidence uses), and keeps each person's and the company page's latest
 * scan, whatever its age: every read of the report answers the same before
 * and after. A report whose scans are within the window is untouched. The
 * service clock is moved instead of waiting; superseded evidence is kept by
 * its own window (RETENTION_OBSOLETE_MEDIA, long here) so that this task is
 * the one that deletes it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { MaintenanceRunner } from '../../src/maintenance.js';
import { S3MediaStore } from '../../src/scanning/media/s3-media-store.js';
import { reportBody, scansFinished, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { startS3, type TestS3 } from '../support/s3.js';

const MONTH = 30 * 86_400_000;

describe('retention of scans older than HISTORY_RETENTION_MONTHS', () => {
  const clock = new ManualClock(new Date('2026-01-10T12:00:00Z'));
  let s3: TestS3;
  let t: TestApp;
  let media: S3MediaStore;
  let owner: Tenant;
  let other: Tenant;
  let oldReport: string;
  let recentReport: string;
  /** When the old report's second scan was requested: its items created before are the superseded scan. */
  let refreshedAt: Date;

  async function createAndScanTwice(tenant: Tenant, slug: string): Promise<{ reportId: string; refreshedAt: Date }> {
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': randomUUID() },
      body: reportBody({ profiles: [{ pronet_url: `https://pronet.example/in/${slug}-a` }, { pronet_url: `https://pronet.example/in/${slug}-b` }] }),
    });
    assert.equal(created.status, 201, created.text);
    const reportId = created.body.data.report.id as string;
    const worker = await t.startWorker(2);
    await scansFinished(t, tenant.secret, reportId, 2);
    clock.advance(60_000);
    const at = clock.now();
    const refreshed = await t.request('POST', `/api/v1/reports/${reportId}/refreshes`, { key: tenant.secret, headers: { 'idempotency-key': randomUUID() } });
    assert.equal(refreshed.status, 201, refreshed.text);
    clock.advance(60_000);
    await scansFinished(t, tenant.secret, reportId, 2);
    await worker.stop();
    return { reportId, refreshedAt: at };
  }

  /** Every read of the report an API key makes, without the read time. */
  async function reads(tenant: Tenant, reportId: string): Promise<unknown> {
    const paths = [
      `/api/v1/reports/${reportId}`,
      `/api/v1/reports/${reportId}/profiles?limit=25`,
      `/api/v1/reports/${reportId}/analysis`,
      `/api/v1/reports/${reportId}/analysis/profiles?limit=25`,
      `/api/v1/reports/${reportId}/analysis/activity?limit=25`,
    ];
    const out: Record<string, unknown> = {};
    for (const p of paths) {
      const res = await t.request('GET', p, { key: tenant.secret });
      assert.equal(res.status, 200, `${p}: ${res.text}`);
      out[p] = JSON.parse(res.text.replace(/"(evaluated_at|request_id)":"[^"]*"/g, '"$1":""'));
    }
    const runs = (await t.runtime.db.selectFrom('scan_runs').select('id').where('report_id', '=', reportId).orderBy('id').execute()).map((r) => r.id);
    for (const run of runs) {
      const res = await t.request('GET', `/api/v1/reports/${reportId}/scans/${run}`, { key: tenant.secret });
      assert.equal(res.status, 200, res.text);
      out[run] = JSON.parse(res.text.replace(/"request_id":"[^"]*"/g, '"request_id":""'));
    }
    return out;
  }

  const rowsOf = async (reportId: string) => ({
    items: (await t.runtime.db.selectFrom('scan_items').select('id').where('report_id', '=', reportId).orderBy('id').execute()).map((r) => r.id),
    evidence: (await t.runtime.db.selectFrom('evidence_images').select('id').where('report_id', '=', reportId).orderBy('id').execute()).map((r) => r.id),
    history: (await t.runtime.db.selectFrom('person_scan_history').select('item_id').where('report_id', '=', reportId).orderBy('item_id').execute()).map(
      (r) => r.item_id,
    ),
    runs: (await t.runtime.db.selectFrom('scan_runs').select('id').where('report_id', '=', reportId).orderBy('id').execute()).map((r) => r.id),
  });

  before(async () => {
    s3 = await startS3();
    t = await startTestApp({ clock, env: { ...s3.env, RETENTION_OBSOLETE_MEDIA: '3650d', HISTORY_RETENTION_MONTHS: '24' } });
    const settings = t.config.media;
    assert.equal(settings.kind, 's3');
    media = new S3MediaStore(settings);
    owner = await t.tenant();
    other = await t.tenant();
    ({ reportId: oldReport, refreshedAt } = await createAndScanTwice(owner, 'old-scans'));
    clock.advance(13 * MONTH);
    ({ reportId: recentReport } = await createAndScanTwice(other, 'recent-scans'));
  });
  after(async () => {
    await t?.close();
    await s3?.close();
  });

  test("a superseded scan's items, evidence rows and blobs go; the latest scan stays and every read answers the same", async () => {
    const superseded = await t.runtime.db
      .selectFrom('scan_items')
      .select(['id', 'kind'])
      .where('report_id', '=', oldReport)
      .where('created_at', '<', refreshedAt)
      .execute();
    assert.ok(superseded.length >= 3, 'two people and the company page were scanned before the second scan');
    const oldEvidence = await t.runtime.db
      .selectFrom('evidence_images')
      .selectAll()
      .where(
        'item_id',
        'in',
        superseded.map((i) => i.id),
      )
      .execute();
    assert.ok(oldEvidence.length > 0, 'the first scan stored evidence');
    assert.ok(
      oldEvidence.every((e) => e.obsolete),
      'the second scan superseded it',
    );
    // A blob only the superseded scan used, so that its deletion from the bucket is observable.
    const own = await media.put(randomBytes(4096));
    const template = oldEvidence[0];
    await t.runtime.db
      .insertInto('evidence_images')
      .values({ ...template, id: randomUUID(), section: 'old-scan-own-blob', original_sha256: own.sha256, preview_sha256: own.sha256 })
      .execute();

    const recentBefore = await rowsOf(recentReport);
    const readsBefore = await reads(owner, oldReport);
    const recentReadsBefore = await reads(other, recentReport);
    const oldBefore = await rowsOf(oldReport);

    // 25 months after the old report's scans, 12 after the recent one's.
    clock.advance(12 * MONTH);
    const runner = new MaintenanceRunner({
      db: t.runtime.db,
      media,
      retention: t.config.retention,
      clock,
      logger: createLogger('silent', 'test'),
      metrics: t.metrics,
    });
    const report = await runner.runOnce({ force: true });
    assert.ok(report);
    assert.equal(report.old_scans, superseded.length);

    const oldAfter = await rowsOf(oldReport);
    const gone = new Set(superseded.map((i) => i.id));
    assert.deepEqual(
      oldAfter.items,
      oldBefore.items.filter((id) => !gone.has(id)),
    );
    assert.equal(oldAfter.items.length, oldBefore.items.length - superseded.length, 'the second scan of every person and the company page stays');
    const left = await t.runtime.db
      .selectFrom('evidence_images')
      .select('id')
      .where('item_id', 'in', [...gone])
      .execute();
    assert.deepEqual(left, [], 'no evidence row of the superseded scan');
    assert.ok(oldAfter.evidence.length > 0, 'the latest evidence stays');
    assert.deepEqual(oldAfter.runs, oldBefore.runs, 'runs keep their counts');
    assert.equal(await media.get(own.sha256), null, "the superseded scan's own blob is deleted from the bucket");
    const stillUsed = await t.runtime.db.selectFrom('evidence_images').select(['original_sha256', 'preview_sha256']).execute();
    for (const e of stillUsed) assert.notEqual(await media.get(e.original_sha256), null, 'a blob other evidence uses is kept');
    assert.deepEqual(await t.runtime.db.selectFrom('blob_deletions').select('sha256').execute(), [], 'nothing left queued');

    assert.deepEqual(await reads(owner, oldReport), readsBefore, 'every read of the report answers the same');
    assert.deepEqual(await rowsOf(recentReport), recentBefore, 'the report scanned within the window is untouched');
    assert.deepEqual(await reads(other, recentReport), recentReadsBefore);
    assert.match(await t.metrics.registry.metrics(), /profile_scan_maintenance_rows_total\{[^}]*task="old_scans"[^}]*\} [1-9]/);

    const again = await runner.runOnce({ force: true });
    assert.equal(again?.old_scans, 0, 'the latest scan is never pruned, whatever its age');
  });
});
