/**
 * A media collection that runs while an item is between storing its evidence
 * blobs and recording them (store/maintenance-repository.ts): the finishing
 * transaction takes the collections' lock first, reads the collection
 * generation after it, sees that it moved, and the item stores its blobs
 * again before recording them (scanning/item-handler.ts), so no recorded
 * evidence lacks its bytes. The collection is made to run at that moment by
 * the media store: right after the first blob is written, every blob is
 * deleted and the generation moves, as a collection that deleted blobs leaves
 * them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { FileMediaStore, type MediaStore } from '../../src/scanning/media/media-store.js';
import { reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { handlerContext, scanQueued } from '../support/handler.js';

describe('a media collection between an item storing its blobs and recording its evidence', () => {
  let t: TestApp;
  let owner: Tenant;
  let mediaDir = '';

  before(async () => {
    t = await startTestApp();
    owner = await t.tenant();
    mediaDir = path.join(t.config.dataDir, 'media');
  });
  after(async () => {
    await t?.close();
  });

  test('the item notices the collection and stores its blobs again: every recorded evidence image has its bytes', async () => {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'media-race' },
      body: reportBody({ profiles: [{ pronet_url: 'https://pronet.example/in/jane-doe' }] }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const files = new FileMediaStore(mediaDir);
    let collections = 0;
    const media: MediaStore = {
      description: files.description,
      check: () => files.check(),
      get: (sha256) => files.get(sha256),
      open: (sha256) => files.open(sha256),
      delete: (sha256) => files.delete(sha256),
      put: async (bytes) => {
        const stored = await files.put(bytes);
        if (collections === 0) {
          collections++;
          await fs.rm(mediaDir, { recursive: true, force: true });
          await sql`update maintenance_state set media_gc_generation = media_gc_generation + 1`.execute(t.runtime.db);
        }
        return stored;
      },
    };
    const logged: string[] = [];
    const ctx = { ...handlerContext(t), media, log: (m: string) => logged.push(m) };
    const items = await scanQueued(t, ctx);
    assert.equal(items, 3, 'the company page and the person in both modes');
    assert.equal(collections, 1);
    assert.ok(
      logged.some((m) => m.includes('a media collection ran while this item stored its evidence; storing it again')),
      `the finish noticed the collection: ${JSON.stringify(logged)}`,
    );
    const images = await t.runtime.db.selectFrom('evidence_images').select(['original_sha256', 'preview_sha256']).execute();
    assert.ok(images.length > 0);
    for (const image of images) {
      assert.notEqual(await files.get(image.original_sha256), null, `original ${image.original_sha256}`);
      assert.notEqual(await files.get(image.preview_sha256), null, `preview ${image.preview_sha256}`);
    }
  });
});
