/**
 * Evidence downloads (4.12, decisions "Evidence download") through a real
 * server and a real scan: the evidence cards of the simulator's data are
 * stored by the worker, then downloaded by id with the key's access
 * rechecked each time. (Captured JPEG, PNG and WebP images, downloaded from a
 * local CDN: captured-evidence.test.ts.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { evidenceUrl } from '../../src/use-cases/present.js';
import { FileMediaStore } from '../../src/scanning/media/media-store.js';
import { eventually, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { removeFromReport, revokeKey } from '../support/operator.js';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);
const isWebp = (bytes: Buffer) => bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP';

interface EvidenceRow {
  id: string;
  profile_id: string | null;
  section: string;
  original_sha256: string;
  original_size: number;
  original_type: string;
  preview_sha256: string;
  preview_size: number;
  preview_type: string;
}

describe('evidence image download (4.12)', () => {
  let t: TestApp;
  let owner: Tenant;
  let media: FileMediaStore;
  before(async () => {
    t = await startTestApp();
    media = new FileMediaStore(path.join(t.config.dataDir, 'media'));
    await t.startWorker(2);
    owner = await t.tenant();
  });
  after(async () => t.close());

  /** A report with one ordinary person, scanned to the end; its current evidence rows. */
  async function scannedReport(person: string): Promise<{ reportId: string; profileId: string; images: EvidenceRow[] }> {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': `e-${person}-${Math.random()}` },
      body: reportBody({ profiles: [{ pronet_url: `https://pronet.example/in/${person}` }] }),
    });
    assert.equal(created.status, 201);
    const reportId: string = created.body.data.report.id;
    for (const run of created.body.data.scan_requests) {
      await eventually(async () => {
        const res = await t.request('GET', `/api/v1/reports/${reportId}/scans/${run.id}`, { key: owner.secret });
        return !['queued', 'running'].includes(res.body.data.status);
      });
    }
    const images = (await t.runtime.db
      .selectFrom('evidence_images')
      .select(['id', 'profile_id', 'section', 'original_sha256', 'original_size', 'original_type', 'preview_sha256', 'preview_size', 'preview_type'])
      .where('report_id', '=', reportId)
      .where('obsolete', '=', false)
      .execute()) as EvidenceRow[];
    assert.ok(
      images.some((i) => i.profile_id !== null),
      'the scan stored person evidence',
    );
    return { reportId, profileId: created.body.data.profiles.rows[0].profile_id, images };
  }

  async function download(url: string, key?: string) {
    const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    const bytes = Buffer.from(await res.arrayBuffer());
    let body: any = null;
    if ((res.headers.get('content-type') ?? '').startsWith('application/json')) body = JSON.parse(bytes.toString('utf8'));
    return { status: res.status, headers: res.headers, bytes, body };
  }

  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  test('4.12: original and preview are the recorded bytes, type and length, no-store', async () => {
    const { reportId, images } = await scannedReport('jane-doe');
    const types = new Set<string>();
    for (const image of images) {
      for (const variant of ['original', 'preview'] as const) {
        const res = await download(evidenceUrl(t.baseUrl, reportId, image.id, variant), owner.secret);
        assert.equal(res.status, 200, `${image.section} ${variant}`);
        const recorded =
          variant === 'original'
            ? { sha: image.original_sha256, size: image.original_size, type: image.original_type }
            : { sha: image.preview_sha256, size: image.preview_size, type: image.preview_type };
        assert.equal(sha256(res.bytes), recorded.sha);
        assert.equal(res.bytes.length, recorded.size);
        assert.equal(res.headers.get('content-length'), String(recorded.size));
        assert.equal(res.headers.get('content-type'), recorded.type);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
        const magic = recorded.type === 'image/png' ? PNG_MAGIC : recorded.type === 'image/jpeg' ? JPEG_MAGIC : null;
        if (variant === 'preview') assert.ok(recorded.type === 'image/webp' && isWebp(res.bytes), `${image.section} preview is WebP`);
        else assert.ok(magic && res.bytes.subarray(0, magic.length).equals(magic), `${recorded.type} magic bytes`);
        if (variant === 'original') types.add(recorded.type);
      }
    }
    assert.deepEqual([...types], ['image/png'], 'evidence cards are PNG');
    const explicit = await download(`${evidenceUrl(t.baseUrl, reportId, images[0].id)}?variant=original`, owner.secret);
    assert.equal(explicit.status, 200, '?variant=original is the default, stated');
    assert.equal(sha256(explicit.bytes), images[0].original_sha256);
  });

  test('decisions/evidence download: an unknown variant is 400 invalid_request', async () => {
    const { reportId, images } = await scannedReport('jane-doe');
    const res = await download(`${evidenceUrl(t.baseUrl, reportId, images[0].id)}?variant=thumbnail`, owner.secret);
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_request');
  });

  test('5.1/section 4: no key is 401; a key without analysis:read is 403 insufficient_scope', async () => {
    const { reportId, images } = await scannedReport('jane-doe');
    const url = evidenceUrl(t.baseUrl, reportId, images[0].id);
    const anonymous = await download(url);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, 'unauthorized');
    const narrow = await t.key(owner.workspaceId, { scopes: ['reports:read', 'profiles:read'] });
    const refused = await download(url, narrow.secret);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'insufficient_scope');
    const enough = await t.key(owner.workspaceId, { scopes: ['reports:read', 'analysis:read', 'profiles:read'] });
    assert.equal((await download(url, enough.secret)).status, 200, 'the three scopes of 4.12 suffice');
  });

  test('4.12/7: a foreign reference is 404 not_found, the same as an unknown one', async () => {
    const { reportId, images } = await scannedReport('jane-doe');
    const other = await t.tenant({ name: 'Other workspace' });
    const foreign = await download(evidenceUrl(t.baseUrl, reportId, images[0].id), other.secret);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'not_found');
    const unknown = await download(evidenceUrl(t.baseUrl, reportId, '00000000-0000-4000-8000-000000000000'), owner.secret);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'not_found');
    const unknownReport = await download(evidenceUrl(t.baseUrl, '00000000-0000-4000-8000-000000000000', images[0].id), owner.secret);
    assert.equal(unknownReport.status, 404);
    assert.equal(unknownReport.body.error.code, 'not_found');
    const second = await scannedReport('john-roe');
    const wrongReport = await download(evidenceUrl(t.baseUrl, second.reportId, images[0].id), owner.secret);
    assert.equal(wrongReport.status, 404, 'an image of another report of the same workspace');
    assert.equal(wrongReport.body.error.code, 'not_found');
    const notUuid = await download(`${t.baseUrl}/api/v1/reports/${reportId}/evidence/nope`, owner.secret);
    assert.equal(notUuid.status, 404);
  });

  test('4.12: an obsolete reference is 404 not_found', async () => {
    const { reportId, images } = await scannedReport('jane-doe');
    const image = images[0];
    await t.runtime.db.updateTable('evidence_images').set({ obsolete: true }).where('id', '=', image.id).execute();
    const res = await download(evidenceUrl(t.baseUrl, reportId, image.id), owner.secret);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
  });

  test("4.12: a removed attachment's evidence is 404 not_found", async () => {
    const { reportId, profileId, images } = await scannedReport('jane-doe');
    const image = images.find((i) => i.profile_id === profileId)!;
    const url = evidenceUrl(t.baseUrl, reportId, image.id);
    assert.equal((await download(url, owner.secret)).status, 200);
    await removeFromReport(t, reportId, profileId);
    const res = await download(url, owner.secret);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
    const company = images.find((i) => i.profile_id === null);
    if (company) {
      assert.equal((await download(evidenceUrl(t.baseUrl, reportId, company.id), owner.secret)).status, 200, 'company-page evidence has no attachment to lose');
    }
  });

  test('4.12/7: missing or changed media is 404 evidence_unavailable', async () => {
    // Media is content-addressed and shared: damage only blobs no other test's report uses.
    const { reportId, images } = await scannedReport('mary-major');
    const unshared = [];
    for (const image of images.filter((i) => i.profile_id !== null && i.original_sha256 !== i.preview_sha256)) {
      const users = await t.runtime.db
        .selectFrom('evidence_images')
        .select('id')
        .where((eb) => eb.or([eb('original_sha256', '=', image.original_sha256), eb('preview_sha256', '=', image.original_sha256)]))
        .execute();
      if (users.length === 1) unshared.push(image);
    }
    assert.ok(unshared.length >= 2, 'two person images with their own original blobs');
    const [deleted, overwritten] = unshared;

    await fs.unlink(media.pathOf(deleted.original_sha256));
    const missing = await download(evidenceUrl(t.baseUrl, reportId, deleted.id), owner.secret);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'evidence_unavailable');

    await fs.writeFile(media.pathOf(overwritten.original_sha256), Buffer.concat([PNG_MAGIC, Buffer.from('not the recorded image')]));
    const changed = await download(evidenceUrl(t.baseUrl, reportId, overwritten.id), owner.secret);
    assert.equal(changed.status, 404);
    assert.equal(changed.body.error.code, 'evidence_unavailable');
    assert.equal((await download(evidenceUrl(t.baseUrl, reportId, overwritten.id, 'preview'), owner.secret)).status, 200, 'the intact preview is still served');
  });

  test('5.6/4.12: downloads recheck key status; a revoked key is 401', async () => {
    const { reportId, images } = await scannedReport('jane-doe');
    const url = evidenceUrl(t.baseUrl, reportId, images[0].id);
    const key = await t.key(owner.workspaceId);
    assert.equal((await download(url, key.secret)).status, 200);
    await revokeKey(t, key.keyId);
    const res = await download(url, key.secret);
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'unauthorized');
  });

  test('evidenceUrl: the address format other code emits', () => {
    const base = 'https://api.example';
    const report = '11111111-1111-4111-8111-111111111111';
    const image = '22222222-2222-4222-8222-222222222222';
    assert.equal(evidenceUrl(base, report, image), `${base}/api/v1/reports/${report}/evidence/${image}`);
    assert.equal(evidenceUrl(base, report, image, 'preview'), `${base}/api/v1/reports/${report}/evidence/${image}?variant=preview`);
  });
});
