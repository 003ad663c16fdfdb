/**
 * Evidence media in S3-compatible storage, against a real
 * S3-protocol server on 127.0.0.1 (s3rver, test/support/s3.ts), through the
 * AWS SDK client the service uses: no mock of the client.
 *
 * - The store: content addressing, idempotent puts, missing → null, a changed
 *   object refused (MediaIntegrityError) before any byte is handed out,
 *   deletes, the bucket check.
 * - End to end: a scan stores its screenshots in the bucket (nothing under
 *   DATA_DIR/media), the API streams them back with the hash checked, and a
 *   missing or overwritten object is 404 evidence_unavailable.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DeleteObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { loadConfig } from '../../src/config.js';
import { MediaIntegrityError } from '../../src/scanning/media/media-store.js';
import { S3MediaStore } from '../../src/scanning/media/s3-media-store.js';
import { eventually, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { startS3, type TestS3 } from '../support/s3.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function storeOf(s3: TestS3, extra: Record<string, string> = {}): S3MediaStore {
  const media = loadConfig({ ...s3.env, ...extra }).media;
  assert.equal(media.kind, 's3');
  return new S3MediaStore(media);
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('S3MediaStore against a local S3 server', () => {
  let s3: TestS3;
  let store: S3MediaStore;
  before(async () => {
    s3 = await startS3();
    store = storeOf(s3, { S3_PREFIX: 'media' });
  });
  after(async () => {
    store?.destroy();
    await s3?.close();
  });

  test('put stores the bytes under prefix/<first two hex>/<sha256>; open streams exactly them back', async () => {
    const bytes = Buffer.from('an evidence image, more or less');
    const stored = await store.put(bytes);
    assert.deepEqual(stored, { sha256: sha256(bytes), size: bytes.length });
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: `media/${stored.sha256.slice(0, 2)}/${stored.sha256}` }));
    assert.equal(head.ContentLength, bytes.length);
    const opened = await store.open(stored.sha256);
    assert.ok(opened);
    assert.equal(opened.size, bytes.length);
    assert.deepEqual(await readAll(opened.stream()), bytes);
    assert.deepEqual(await store.get(stored.sha256), bytes);
  });

  test('a blob larger than a stream chunk round-trips intact', async () => {
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) % 251;
    const stored = await store.put(bytes);
    const opened = await store.open(stored.sha256);
    assert.ok(opened);
    const back = await readAll(opened.stream());
    assert.equal(back.length, bytes.length);
    assert.equal(sha256(back), stored.sha256);
  });

  test('put is idempotent, and repairs an object of the wrong size', async () => {
    const bytes = Buffer.from('stored twice');
    const first = await store.put(bytes);
    assert.deepEqual(await store.put(Buffer.from(bytes)), first);
    const key = `media/${first.sha256.slice(0, 2)}/${first.sha256}`;
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: Buffer.from('short') }));
    await store.put(bytes);
    assert.deepEqual(await store.get(first.sha256), bytes);
  });

  test('open of a missing or malformed hash is null', async () => {
    assert.equal(await store.open(sha256(Buffer.from('never stored'))), null);
    assert.equal(await store.open('../../etc/passwd'), null);
    assert.equal(await store.open(sha256(Buffer.from('x')).toUpperCase()), null);
  });

  test('an object changed in the bucket is refused before any byte is handed out', async () => {
    const stored = await store.put(Buffer.from('the genuine bytes'));
    const key = `media/${stored.sha256.slice(0, 2)}/${stored.sha256}`;
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: Buffer.from('the forged bytes!') }));
    await assert.rejects(store.open(stored.sha256), MediaIntegrityError);
    await assert.rejects(store.get(stored.sha256), /does not match its hash/);
  });

  test('delete removes the object, and deleting it again is no error', async () => {
    const stored = await store.put(Buffer.from('to be deleted'));
    await store.delete(stored.sha256);
    assert.equal(await store.open(stored.sha256), null);
    await store.delete(stored.sha256);
  });

  test('check passes on the bucket, and fails with one line naming the bucket and the settings when it is missing', async () => {
    await store.check();
    const wrong = storeOf(s3, { S3_BUCKET: 'no-such-bucket' });
    try {
      await assert.rejects(wrong.check(), (error: Error) => {
        assert.match(error.message, /cannot reach S3 bucket no-such-bucket/);
        assert.match(error.message, /S3_ENDPOINT, S3_BUCKET/);
        assert.equal(error.message.includes('\n'), false);
        assert.equal(error.message.includes('S3RVER'), false, 'no credentials in the message');
        return true;
      });
    } finally {
      wrong.destroy();
    }
  });
});

describe('evidence stored in S3 end to end: scan, download, missing and changed media', () => {
  let s3: TestS3;
  let t: TestApp;
  let owner: Tenant;
  let reportId: string;
  let images: { id: string; original_sha256: string; original_type: string; preview_sha256: string }[];

  before(async () => {
    s3 = await startS3();
    t = await startTestApp({ env: s3.env });
    await t.startWorker(2);
    owner = await t.tenant();
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 's3-1' },
      body: reportBody({
        profiles: [{ pronet_url: 'https://pronet.example/in/jane-doe' }, { pronet_url: 'https://pronet.example/in/john-roe' }],
      }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    for (const run of created.body.data.scan_requests) {
      await eventually(async () => {
        const res = await t.request('GET', `/api/v1/reports/${reportId}/scans/${run.id}`, { key: owner.secret });
        return !['queued', 'running'].includes(res.body.data.status);
      }, 60_000);
    }
    images = await t.runtime.db
      .selectFrom('evidence_images')
      .select(['id', 'original_sha256', 'original_type', 'preview_sha256'])
      .where('report_id', '=', reportId)
      .where('obsolete', '=', false)
      .execute();
  });
  after(async () => {
    await t?.close();
    await s3?.close();
  });

  test('the worker stored every screenshot and preview in the bucket, nothing in DATA_DIR/media', async () => {
    assert.ok(images.length >= 2, `evidence rows: ${images.length}`);
    for (const image of images) {
      for (const hash of [image.original_sha256, image.preview_sha256]) {
        const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: `${hash.slice(0, 2)}/${hash}` }));
        assert.ok((head.ContentLength ?? 0) > 0);
      }
    }
    await assert.rejects(fs.access(path.join(t.config.dataDir, 'media')), /ENOENT/);
  });

  test('downloads stream the stored bytes (original and preview), which hash to their recorded SHA-256', async () => {
    for (const image of images) {
      const original = await fetch(`${t.baseUrl}/api/v1/reports/${reportId}/evidence/${image.id}`, {
        headers: { authorization: `Bearer ${owner.secret}` },
      });
      assert.equal(original.status, 200);
      assert.equal(original.headers.get('content-type'), image.original_type);
      const bytes = Buffer.from(await original.arrayBuffer());
      assert.equal(Number(original.headers.get('content-length')), bytes.length);
      assert.equal(sha256(bytes), image.original_sha256);
      const preview = await fetch(`${t.baseUrl}/api/v1/reports/${reportId}/evidence/${image.id}?variant=preview`, {
        headers: { authorization: `Bearer ${owner.secret}` },
      });
      assert.equal(preview.status, 200);
      assert.equal(sha256(Buffer.from(await preview.arrayBuffer())), image.preview_sha256);
    }
  });

  test('a deleted or overwritten object is 404 evidence_unavailable, never the wrong bytes', async () => {
    const [deleted, overwritten] = images;
    await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `${deleted.original_sha256.slice(0, 2)}/${deleted.original_sha256}` }));
    await s3.client.send(
      new PutObjectCommand({
        Bucket: s3.bucket,
        Key: `${overwritten.original_sha256.slice(0, 2)}/${overwritten.original_sha256}`,
        Body: Buffer.from('not the recorded image'),
      }),
    );
    for (const image of [deleted, overwritten]) {
      const res = await t.request('GET', `/api/v1/reports/${reportId}/evidence/${image.id}`, { key: owner.secret });
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.code, 'evidence_unavailable');
      assert.equal(res.body.error.retryable, false);
    }
  });
});
