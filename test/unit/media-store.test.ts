import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import jpeg from 'jpeg-js';
import pngjs from 'pngjs';
import { EvidenceError, prepareEvidence } from '../../src/scanning/media/evidence.js';
import { FileMediaStore } from '../../src/scanning/media/media-store.js';
import { MAX_MEDIA_BYTES, PREVIEW_MAX_WIDTH, detectMediaType, makePreview, readImageSize } from '../../src/scanning/media/media-types.js';

const { PNG } = pngjs;

/**
 * A deterministic 800x450 test picture with texture like a real screenshot
 * (a pure gradient would compress to almost nothing at any size).
 */
function pattern(width = 800, height = 450): Buffer {
  const data = Buffer.alloc(width * height * 4);
  let seed = 12345;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const noise = (seed >>> 24) & 0x3f;
      const i = (y * width + x) * 4;
      data[i] = ((x * 255) / width + noise) & 0xff;
      data[i + 1] = y < 60 ? 40 : ((y * 255) / height) & 0xff;
      data[i + 2] = (x >> 5) % 2 === (y >> 5) % 2 ? 200 : 60 + noise;
      data[i + 3] = 255;
    }
  }
  return data;
}

function pngOf(width: number, height: number): Buffer {
  const image = new PNG({ width, height });
  image.data = pattern(width, height);
  return PNG.sync.write(image);
}

function jpegOf(width: number, height: number): Buffer {
  return jpeg.encode({ width, height, data: pattern(width, height) }, 90).data;
}

/** A 1x1 lossless WebP. */
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
const GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

let root: string;
let store: FileMediaStore;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'profile-scan-media-'));
  store = new FileMediaStore(root);
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('FileMediaStore', () => {
  test('put stores bytes under root/<first two hex>/<sha256> and returns the hash and size', async () => {
    const bytes = Buffer.from('evidence bytes');
    const stored = await store.put(bytes);
    assert.deepEqual(stored, { sha256: sha256(bytes), size: bytes.length });
    assert.deepEqual(await readFile(join(root, stored.sha256.slice(0, 2), stored.sha256)), bytes);
    assert.deepEqual(await store.get(stored.sha256), bytes);
  });

  test('put is idempotent: the same bytes twice, or concurrently, leave one file and no temporary files', async () => {
    const bytes = Buffer.from('same content');
    const first = await store.put(bytes);
    const path = store.pathOf(first.sha256);
    const before = (await stat(path)).mtimeMs;
    const again = await Promise.all([store.put(bytes), store.put(Buffer.from(bytes)), store.put(bytes)]);
    for (const r of again) assert.deepEqual(r, first);
    assert.equal((await stat(path)).mtimeMs, before, 'an existing blob is not rewritten');
    assert.deepEqual(await readdir(join(root, first.sha256.slice(0, 2))), [first.sha256]);
  });

  test('concurrent first puts of the same bytes all succeed and leave exactly the blob', async () => {
    const bytes = Buffer.from('raced content');
    const results = await Promise.all(Array.from({ length: 8 }, () => store.put(bytes)));
    assert.ok(results.every((r) => r.sha256 === sha256(bytes)));
    assert.deepEqual(await readdir(join(root, sha256(bytes).slice(0, 2))), [sha256(bytes)]);
    assert.deepEqual(await store.get(sha256(bytes)), bytes);
  });

  test('different bytes get different addresses', async () => {
    const a = await store.put(Buffer.from('a'));
    const b = await store.put(Buffer.from('b'));
    assert.notEqual(a.sha256, b.sha256);
    assert.deepEqual(await store.get(a.sha256), Buffer.from('a'));
    assert.deepEqual(await store.get(b.sha256), Buffer.from('b'));
  });

  test('get of a missing or malformed hash is null (no path traversal)', async () => {
    assert.equal(await store.get(sha256(Buffer.from('never stored'))), null);
    assert.equal(await store.get('../../etc/passwd'), null);
    assert.equal(await store.get(''), null);
    assert.equal(await store.get(sha256(Buffer.from('a')).toUpperCase()), null);
  });

  test('get refuses bytes that no longer match their hash', async () => {
    const stored = await store.put(Buffer.from('to be damaged'));
    await writeFile(store.pathOf(stored.sha256), 'damaged');
    await assert.rejects(store.get(stored.sha256), /does not match its hash/);
  });

  test('put repairs a damaged blob of the wrong size', async () => {
    const bytes = Buffer.from('to be repaired');
    const stored = await store.put(bytes);
    await writeFile(store.pathOf(stored.sha256), 'x');
    await store.put(bytes);
    assert.deepEqual(await store.get(stored.sha256), bytes);
  });
});

describe('media types', () => {
  test('types are detected from content: PNG, JPEG, WebP; anything else is null', async () => {
    assert.equal(await detectMediaType(pngOf(10, 10)), 'image/png');
    assert.equal(await detectMediaType(jpegOf(10, 10)), 'image/jpeg');
    assert.equal(await detectMediaType(WEBP), 'image/webp');
    assert.equal(await detectMediaType(GIF), null);
    assert.equal(await detectMediaType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), null);
    assert.equal(await detectMediaType(Buffer.alloc(0)), null);
  });

  test('image size is read from headers of all three types', () => {
    assert.deepEqual(readImageSize(pngOf(123, 45), 'image/png'), { width: 123, height: 45 });
    assert.deepEqual(readImageSize(jpegOf(123, 45), 'image/jpeg'), { width: 123, height: 45 });
    assert.deepEqual(readImageSize(WEBP, 'image/webp'), { width: 1, height: 1 });
    assert.equal(readImageSize(Buffer.from('not an image'), 'image/png'), null);
  });

  test('a PNG preview is a smaller PNG at most 320 px wide with the aspect ratio kept', async () => {
    const original = pngOf(800, 450);
    const preview = await makePreview(original, 'image/png');
    assert.equal(preview.media_type, 'image/png');
    assert.equal(await detectMediaType(preview.bytes), 'image/png');
    const decoded = PNG.sync.read(preview.bytes);
    assert.deepEqual([decoded.width, decoded.height, preview.width, preview.height], [PREVIEW_MAX_WIDTH, 180, 320, 180]);
    assert.ok(preview.bytes.length < original.length);
  });

  test('a JPEG preview is a smaller JPEG at most 320 px wide', async () => {
    const original = jpegOf(800, 450);
    const preview = await makePreview(original, 'image/jpeg');
    assert.equal(preview.media_type, 'image/jpeg');
    assert.equal(await detectMediaType(preview.bytes), 'image/jpeg');
    const decoded = jpeg.decode(preview.bytes);
    assert.deepEqual([decoded.width, decoded.height], [320, 180]);
    assert.ok(preview.bytes.length < original.length);
  });

  test('the preview box-filters: a uniform image stays the same colour', async () => {
    const image = new PNG({ width: 640, height: 100 });
    image.data = Buffer.alloc(640 * 100 * 4);
    for (let i = 0; i < image.data.length; i += 4) image.data.set([10, 120, 230, 255], i);
    const preview = PNG.sync.read((await makePreview(PNG.sync.write(image), 'image/png')).bytes);
    assert.deepEqual([...preview.data.subarray(0, 4)], [10, 120, 230, 255]);
    assert.deepEqual([...preview.data.subarray(preview.data.length - 4)], [10, 120, 230, 255]);
  });

  test('narrow images and WebP are their own preview', async () => {
    const narrow = pngOf(200, 100);
    assert.equal((await makePreview(narrow, 'image/png')).bytes, narrow);
    assert.equal((await makePreview(WEBP, 'image/webp')).bytes, WEBP);
  });
});

describe('prepareEvidence', () => {
  test('stores the original and its preview and describes both', async () => {
    for (const [bytes, type] of [
      [pngOf(800, 450), 'image/png'],
      [jpegOf(800, 450), 'image/jpeg'],
    ] as const) {
      const evidence = await prepareEvidence(store, { section: 'top_card', media_type: type, bytes });
      assert.deepEqual(evidence.original, { sha256: sha256(bytes), size: bytes.length, media_type: type, width: 800, height: 450 });
      assert.equal(evidence.preview.media_type, type);
      assert.deepEqual([evidence.preview.width, evidence.preview.height], [320, 180]);
      assert.ok(evidence.preview.size < evidence.original.size);
      assert.deepEqual(await store.get(evidence.original.sha256), bytes);
      const preview = await store.get(evidence.preview.sha256);
      assert.ok(preview !== null && preview.length === evidence.preview.size);
      assert.equal(await detectMediaType(preview), type);
    }
  });

  test('a WebP original is its own preview', async () => {
    const evidence = await prepareEvidence(store, { section: 'activity', media_type: 'image/webp', bytes: WEBP });
    assert.deepEqual(evidence.preview, evidence.original);
    assert.equal(evidence.original.media_type, 'image/webp');
  });

  test('the stored type is the sniffed one, whatever the collector declared', async () => {
    const evidence = await prepareEvidence(store, { section: 'about', media_type: 'image/png', bytes: jpegOf(400, 200) });
    assert.equal(evidence.original.media_type, 'image/jpeg');
  });

  test('unsupported content is rejected with unsupported_media_type and nothing is stored', async () => {
    const countBlobs = async () => (await readdir(root, { recursive: true })).length;
    const blobs = await countBlobs();
    for (const bytes of [GIF, Buffer.from('plain text'), Buffer.alloc(0)]) {
      await assert.rejects(prepareEvidence(store, { section: 'about', media_type: 'image/png', bytes }), (error: unknown) => {
        assert.ok(error instanceof EvidenceError);
        assert.equal(error.code, 'unsupported_media_type');
        return true;
      });
    }
    assert.equal(await countBlobs(), blobs);
  });

  test('content over 10 MiB is rejected with media_too_large', async () => {
    const big = Buffer.concat([pngOf(800, 450), Buffer.alloc(MAX_MEDIA_BYTES)]);
    await assert.rejects(prepareEvidence(store, { section: 'top_card', media_type: 'image/png', bytes: big }), (error: unknown) => {
      assert.ok(error instanceof EvidenceError);
      assert.equal(error.code, 'media_too_large');
      return true;
    });
  });

  test('exactly 10 MiB is not rejected for its size', async () => {
    // WebP is not decoded, so trailing padding keeps it a readable image of exactly the limit.
    const padded = Buffer.concat([WEBP, Buffer.alloc(MAX_MEDIA_BYTES - WEBP.length)]);
    assert.equal(padded.length, MAX_MEDIA_BYTES);
    const evidence = await prepareEvidence(store, { section: 'top_card', media_type: 'image/webp', bytes: padded });
    assert.equal(evidence.original.size, MAX_MEDIA_BYTES);
    const over = Buffer.concat([padded, Buffer.alloc(1)]);
    await assert.rejects(prepareEvidence(store, { section: 'top_card', media_type: 'image/webp', bytes: over }), /limit is 10485760/);
  });

  test('an image whose header claims more than 40 megapixels is rejected before decoding', async () => {
    const bomb = pngOf(800, 450);
    bomb.writeUInt32BE(100_000, 16);
    bomb.writeUInt32BE(100_000, 20);
    await assert.rejects(prepareEvidence(store, { section: 'top_card', media_type: 'image/png', bytes: bomb }), (error: unknown) => {
      assert.ok(error instanceof EvidenceError);
      assert.equal(error.code, 'image_too_large');
      return true;
    });
  });

  test('a truncated image is rejected as unreadable', async () => {
    const truncated = pngOf(800, 450).subarray(0, 200);
    await assert.rejects(prepareEvidence(store, { section: 'top_card', media_type: 'image/png', bytes: Buffer.from(truncated) }), (error: unknown) => {
      assert.ok(error instanceof EvidenceError);
      assert.equal(error.code, 'image_unreadable');
      return true;
    });
  });
});
