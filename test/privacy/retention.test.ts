/**
 * Retention: the maintenance task with short windows, on
 * a real server, worker and media store. The service clock is moved past the
 * contract's 30 days instead of waiting.
 *
 * - Expired idempotency records are deleted; old rate counters too.
 * - An expired import receipt becomes a tombstone (contents gone) that still
 *   answers 410 receipt_expired, never 404.
 * - Obsolete evidence no finding refers to is deleted, with its blob when no
 *   other evidence uses it; evidence a stored finding still refers to, and
 *   blobs other evidence uses, are kept (and still download).
 * - One runner at a time across processes: of two runners started together,
 *   one runs and the other skips.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { MaintenanceRunner } from '../../src/maintenance.js';
import { createMediaStore } from '../../src/scanning/media/create-media-store.js';
import type { MediaStore } from '../../src/scanning/media/media-store.js';
import { eventually, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';

const DAY = 86_400_000;

describe('retention: the maintenance task with short windows', () => {
  const clock = new ManualClock(new Date());
  let t: TestApp;
  let owner: Tenant;
  let media: MediaStore;
  let reportId: string;
  let receiptId: string;
  let runner: () => MaintenanceRunner;
  /** Evidence rows prepared for the media collection, by role. */
  const rows: Record<'live' | 'referencedObsolete' | 'unreferencedOwnBlob' | 'unreferencedSharedBlob', { id: string; sha256: string }> = {} as never;

  before(async () => {
    t = await startTestApp({
      clock,
      env: {
        RETENTION_EXPIRED_IDEMPOTENCY: '0',
        RETENTION_RECEIPT_TOMBSTONE: '1h',
        RETENTION_RATE_COUNTERS: '2m',
        RETENTION_OBSOLETE_MEDIA: '1d',
        MAINTENANCE_INTERVAL: '10m',
      },
    });
    media = await createMediaStore(t.config.media);
    runner = () =>
      new MaintenanceRunner({
        db: t.runtime.db,
        media,
        retention: t.config.retention,
        clock,
        logger: createLogger('silent', 'test'),
        metrics: t.metrics,
      });
    owner = await t.tenant();
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'ret-create' },
      body: reportBody({ profiles: [{ pronet_url: 'https://pronet.example/in/jane-doe' }] }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    const imported = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
      key: owner.secret,
      headers: { 'idempotency-key': 'ret-import' },
      body: { profiles: [{ pronet_url: 'https://pronet.example/in/john-roe' }] },
    });
    assert.equal(imported.status, 201, imported.text);
    receiptId = imported.body.data.id;
    const worker = await t.startWorker(2);
    await eventually(async () => {
      const open = await t.runtime.db
        .selectFrom('scan_items')
        .select('id')
        .where('report_id', '=', reportId)
        .where('status', 'in', ['pending', 'running'])
        .execute();
      return open.length === 0;
    });
    await worker.stop();

    // Evidence for the media collection: a live image a finding refers to; the same image made
    // obsolete long ago but still referenced; an obsolete image with a blob of its own; an obsolete
    // image sharing the live image's blob.
    const live = await t.runtime.db
      .selectFrom('evidence_images')
      .selectAll()
      .where('report_id', '=', reportId)
      .where('obsolete', '=', false)
      .where('profile_id', 'is not', null)
      .orderBy('id')
      .execute();
    const referenced = await t.runtime.db.selectFrom('profile_analyses').select('findings').where('report_id', '=', reportId).execute();
    const referencedIds = new Set(referenced.flatMap((r) => (r.findings as { evidence_image_ids: string[] }[]).flatMap((f) => f.evidence_image_ids)));
    const inFindings = live.filter((e) => referencedIds.has(e.id));
    assert.ok(inFindings.length >= 2, `evidence referenced by findings: ${inFindings.length}`);
    const [keep, obsoleteButReferenced] = inFindings;
    rows.live = { id: keep.id, sha256: keep.original_sha256 };
    rows.referencedObsolete = { id: obsoleteButReferenced.id, sha256: obsoleteButReferenced.original_sha256 };
    const longAgo = new Date(clock.now().getTime() - 2 * DAY);
    await t.runtime.db.updateTable('evidence_images').set({ obsolete: true, obsolete_at: longAgo }).where('id', '=', obsoleteButReferenced.id).execute();

    const own = await media.put(randomBytes(2048));
    const insertObsolete = async (sha256: string, section: string) => {
      const id = randomUUID();
      await t.runtime.db
        .insertInto('evidence_images')
        .values({
          id,
          report_id: reportId,
          profile_id: keep.profile_id,
          item_id: keep.item_id,
          section,
          original_sha256: sha256,
          original_size: 1,
          original_type: 'image/png',
          preview_sha256: sha256,
          preview_size: 1,
          preview_type: 'image/webp',
          origin: 'rendered',
          obsolete: true,
          obsolete_at: longAgo,
          created_at: longAgo,
        })
        .execute();
      return id;
    };
    rows.unreferencedOwnBlob = { id: await insertObsolete(own.sha256, 'retention-own'), sha256: own.sha256 };
    rows.unreferencedSharedBlob = { id: await insertObsolete(keep.original_sha256, 'retention-shared'), sha256: keep.original_sha256 };
  });
  after(async () => t?.close());

  const evidenceIds = async () =>
    new Set((await t.runtime.db.selectFrom('evidence_images').select('id').where('report_id', '=', reportId).execute()).map((r) => r.id));

  test('of two runners started together, one runs and the other skips; a second run within the interval is skipped', async () => {
    const reports = await Promise.all([runner().runOnce(), runner().runOnce()]);
    assert.equal(reports.filter((r) => r !== null).length, 1, JSON.stringify(reports));
    assert.equal(await runner().runOnce(), null, 'ran less than MAINTENANCE_INTERVAL ago');
  });

  test('within their windows, nothing of the report is removed: receipt readable, records kept', async () => {
    await runner().runOnce({ force: true });
    const receipt = await t.request('GET', `/api/v1/reports/${reportId}/profile-imports/${receiptId}`, { key: owner.secret });
    assert.equal(receipt.status, 200);
    const records = await t.runtime.db.selectFrom('idempotency_records').select('key').where('workspace_id', '=', owner.workspaceId).execute();
    assert.deepEqual(records.map((r) => r.key).sort(), ['ret-create', 'ret-import']);
  });

  test('media: unreferenced obsolete evidence goes (with a blob nothing else uses); referenced evidence and shared blobs stay', async () => {
    // The runs above already collected (a run does every task); this one finds nothing more to do.
    const report = await runner().runOnce({ force: true });
    assert.ok(report);
    assert.equal(report.obsolete_media, 0);
    const ids = await evidenceIds();
    assert.ok(ids.has(rows.live.id));
    assert.ok(ids.has(rows.referencedObsolete.id), 'obsolete but a stored finding refers to it: kept');
    assert.ok(!ids.has(rows.unreferencedOwnBlob.id));
    assert.ok(!ids.has(rows.unreferencedSharedBlob.id));
    assert.equal(await media.open(rows.unreferencedOwnBlob.sha256), null, 'its own blob is deleted');
    assert.ok(await media.get(rows.unreferencedSharedBlob.sha256), 'the blob the live evidence uses is kept');
    const download = await t.request('GET', `/api/v1/reports/${reportId}/evidence/${rows.live.id}`, { key: owner.secret });
    assert.equal(download.status, 200);
    const generation = await t.runtime.db.selectFrom('maintenance_state').select('media_gc_generation').executeTakeFirstOrThrow();
    assert.ok(generation.media_gc_generation >= 1, 'a collection that deleted blobs bumps the generation');
  });

  test('31 days later: idempotency records and old rate counters are gone; the receipt is a tombstone that still answers 410', async () => {
    clock.advance(31 * DAY);
    const before = new Date(clock.now().getTime() - 2 * 60_000);
    const counters = async () => {
      // rate_counters, and request_counters where that table exists (migration 0011, hot reads).
      let n = 0;
      for (const table of ['rate_counters', 'request_counters']) {
        const { rows } = await sql<{ found: boolean }>`select to_regclass(${table}) is not null as found`.execute(t.runtime.db);
        if (!rows[0].found) continue;
        const counted = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where window_start < ${before}`.execute(t.runtime.db);
        n += counted.rows[0].n;
      }
      return n;
    };
    assert.ok((await counters()) > 0, 'requests of 31 days ago were counted');
    const expired = await t.request('GET', `/api/v1/reports/${reportId}/profile-imports/${receiptId}`, { key: owner.secret });
    assert.equal(expired.status, 410);
    assert.equal(expired.body.error.code, 'receipt_expired');

    const report = await runner().runOnce({ force: true });
    assert.ok(report);
    assert.ok((report.idempotency_records as number) >= 2);
    assert.equal(report.receipt_tombstones, 1);
    const records = await t.runtime.db.selectFrom('idempotency_records').select('key').where('workspace_id', '=', owner.workspaceId).execute();
    assert.deepEqual(records, []);
    const row = await t.runtime.db.selectFrom('import_receipts').select(['receipt', 'tombstoned_at']).where('id', '=', receiptId).executeTakeFirstOrThrow();
    assert.equal(row.receipt, null, 'the contents (people) are removed');
    assert.ok(row.tombstoned_at);
    assert.equal(await counters(), 0, 'no counter of a window older than RETENTION_RATE_COUNTERS');

    const tombstone = await t.request('GET', `/api/v1/reports/${reportId}/profile-imports/${receiptId}`, { key: owner.secret });
    assert.equal(tombstone.status, 410, tombstone.text);
    assert.equal(tombstone.body.error.code, 'receipt_expired');
    const unknown = await t.request('GET', `/api/v1/reports/${reportId}/profile-imports/${randomUUID()}`, { key: owner.secret });
    assert.equal(unknown.status, 404);
  });
});
