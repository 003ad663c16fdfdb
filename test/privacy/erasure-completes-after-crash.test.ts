/**
 * A crash in the middle of an erasure: the operator's `admin erase-person`
 * commits the rows' deletion, then hangs deleting the blobs (its S3 endpoint
 * accepts connections and never answers) and is SIGKILLed there. The rows
 * are gone and the blobs are still queued in `blob_deletions`; a `serve`
 * process started afterwards (its maintenance) deletes them from the bucket,
 * and keeps the blobs other people's evidence uses.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { S3MediaStore } from '../../src/scanning/media/s3-media-store.js';
import { eventually, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { startService, type ServiceProcess } from '../support/processes.js';
import { startS3, type TestS3 } from '../support/s3.js';

const root = path.resolve(import.meta.dirname, '../..');
const ERASED = 'https://pronet.example/in/crash-erased-person';

describe('an erasure killed after its commit, before its blobs were deleted', () => {
  let s3: TestS3;
  let t: TestApp;
  let owner: Tenant;
  let media: S3MediaStore;
  let hanging: net.Server;
  let serve: ServiceProcess | null = null;
  let dataDir: string;

  before(async () => {
    s3 = await startS3();
    t = await startTestApp({ env: s3.env });
    const settings = t.config.media;
    assert.equal(settings.kind, 's3');
    media = new S3MediaStore(settings);
    owner = await t.tenant();
    hanging = net.createServer(() => {
      // Accepts and never answers: the erasure's blob deletions wait here.
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-crash-erase-'));
  });
  after(async () => {
    await serve?.kill('SIGTERM');
    hanging?.close();
    await t?.close();
    await s3?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  test('after the restart, maintenance deletes the queued blobs', async () => {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': randomUUID() },
      body: reportBody({ profiles: [{ pronet_url: ERASED }, { pronet_url: 'https://pronet.example/in/crash-kept-person' }] }),
    });
    assert.equal(created.status, 201, created.text);
    const reportId = created.body.data.report.id as string;
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
    const person = await t.runtime.db.selectFrom('report_profiles').select('id').where('pronet_url', '=', ERASED).executeTakeFirstOrThrow();
    const evidence = await t.runtime.db
      .selectFrom('evidence_images')
      .select(['original_sha256', 'preview_sha256'])
      .where('profile_id', '=', person.id)
      .execute();
    const used = new Set(
      (await t.runtime.db.selectFrom('evidence_images').select(['original_sha256', 'preview_sha256']).where('profile_id', '<>', person.id).execute()).flatMap(
        (e) => [e.original_sha256, e.preview_sha256],
      ),
    );
    const theirs = [...new Set(evidence.flatMap((e) => [e.original_sha256, e.preview_sha256]))].filter((h) => !used.has(h));
    assert.ok(theirs.length > 0, 'blobs of theirs alone');
    for (const h of theirs) assert.notEqual(await media.get(h), null);

    const port = (hanging.address() as net.AddressInfo).port;
    const child = spawn(
      process.execPath,
      [path.join(root, 'bin/profile-scan.js'), 'admin', 'erase-person', '--workspace', owner.workspaceId, '--url', ERASED, '--json'],
      {
        env: {
          ...process.env,
          DATABASE_URL: t.database.url,
          PUBLIC_BASE_URL: t.baseUrl,
          LOG_LEVEL: 'silent',
          ...s3.env,
          S3_ENDPOINT: `http://127.0.0.1:${port}`,
        },
        stdio: 'ignore',
      },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Committed: the rows are gone and the blobs queued; the command hangs on the bucket.
    await eventually(async () => {
      const left = await t.runtime.db.selectFrom('report_profiles').select('id').where('id', '=', person.id).execute();
      const queued = await t.runtime.db.selectFrom('blob_deletions').select('sha256').execute();
      return left.length === 0 && queued.length > 0;
    });
    child.kill('SIGKILL');
    await exited;
    const queued = new Set((await t.runtime.db.selectFrom('blob_deletions').select('sha256').execute()).map((r) => r.sha256));
    for (const h of theirs) {
      assert.ok(queued.has(h), `queued ${h}`);
      assert.notEqual(await media.get(h), null, 'the crash left the blob');
    }

    serve = await startService('serve', ['serve'], {
      ...s3.env,
      DATABASE_URL: t.database.url,
      DATA_DIR: dataDir,
      PORT: '0',
      WORKER_CONCURRENCY: '0',
      MAINTENANCE_INTERVAL: '1s',
    });
    await eventually(async () => (await t.runtime.db.selectFrom('blob_deletions').select('sha256').execute()).length === 0, 60_000, 200);
    for (const h of theirs) assert.equal(await media.get(h), null, `deleted ${h}`);
    for (const h of used) assert.notEqual(await media.get(h), null, `kept ${h}`);
  });
});
