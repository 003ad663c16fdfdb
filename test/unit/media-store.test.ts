import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { EvidenceError, prepareEvidence } from '../../src/scanning/media/evidence.js';
import { FileMediaStore } from '../../src/scanning/media/media-store.js';
import { MAX_MEDIA_BYTES, PREVIEW_MAX_WIDTH, detectMediaType, makePreview, readImageSize } from '../../src/scanning/media/media-types.js';

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

const raw = (width: number, height: number) => sharp(pattern(width, height), { raw: { width, height, channels: 4 } });
const pngOf = (width: number, height: number) => raw(width, height).png().toBuffer();
const jpegOf = (width: number, height: number) => raw(width, height).jpeg({ quality: 90 }).toBuffer();
const webpOf = (width: number, height: number) => raw(width, height).webp({ quality: 90 }).toBuffer();

/** Width, height and format as sharp decodes them (the whole image, not just the header). */
async function decoded(bytes: Buffer): Promise<{ width: number; height: number; format: string }> {
  const { info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const { format } = await sharp(bytes).metadata();
  return { width: info.width, height: info.height, format };
}

function assertEvidenceError(code: string) {
  return (error: unknown) => {
    assert.ok(error instanceof EvidenceError, String(error));
    assert.equal(error.code, code);
    return true;
  };
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

  test('put makes its hash-prefix directory again when it was removed after the first put', async () => {
    const first = await store.put(Buffer.from('first of a prefix'));
    await rm(join(root, first.sha256.slice(0, 2)), { recursive: true });
    // Other bytes whose hash shares the prefix: found by trying.
    let other = Buffer.from('x');
    for (let i = 0; sha256(other).slice(0, 2) !== first.sha256.slice(0, 2); i++) other = Buffer.from(`other ${i}`);
    assert.deepEqual(await store.put(other), { sha256: sha256(other), size: other.length });
    assert.deepEqual(await store.get(sha256(other)), other);
    assert.equal(await store.get(first.sha256), null);
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
    assert.equal(await detectMediaType(await pngOf(10, 10)), 'image/png');
    assert.equal(await detectMediaType(await jpegOf(10, 10)), 'image/jpeg');
    assert.equal(await detectMediaType(WEBP), 'image/webp');
    assert.equal(await detectMediaType(GIF), null);
    assert.equal(await detectMediaType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), null);
    assert.equal(await detectMediaType(Buffer.alloc(0)), null);
  });

  test('image size is read from the header of all three types; null for garbage or another type', async () => {
    assert.deepEqual(await readImageSize(await pngOf(123, 45), 'image/png'), { width: 123, height: 45 });
    assert.deepEqual(await readImageSize(await jpegOf(123, 45), 'image/jpeg'), { width: 123, height: 45 });
    assert.deepEqual(await readImageSize(await webpOf(123, 45), 'image/webp'), { width: 123, height: 45 });
    assert.deepEqual(await readImageSize(WEBP, 'image/webp'), { width: 1, height: 1 });
    assert.equal(await readImageSize(Buffer.from('not an image'), 'image/png'), null);
    assert.equal(await readImageSize(await pngOf(123, 45), 'image/jpeg'), null, 'the decoded format must be the sniffed one');
  });

  test('the size is as displayed: a JPEG rotated by its EXIF orientation reports, and previews, upright', async () => {
    const rotated = await raw(400, 200).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    assert.equal((await sharp(rotated).metadata()).orientation, 6);
    assert.deepEqual(await readImageSize(rotated, 'image/jpeg'), { width: 200, height: 400 });
    const preview = await makePreview(rotated, 'image/jpeg');
    assert.deepEqual([preview.width, preview.height], [200, 400]);
    assert.deepEqual(await decoded(preview.bytes), { width: 200, height: 400, format: 'webp' });
  });

  for (const [type, make] of [
    ['image/png', pngOf],
    ['image/jpeg', jpegOf],
    ['image/webp', webpOf],
  ] as const) {
    test(`a ${type} preview is a smaller WebP at most ${PREVIEW_MAX_WIDTH} px wide with the aspect ratio kept`, async () => {
      const original = await make(800, 450);
      const preview = await makePreview(original, type);
      assert.equal(preview.media_type, 'image/webp');
      assert.equal(await detectMediaType(preview.bytes), 'image/webp');
      assert.deepEqual(await decoded(preview.bytes), { width: PREVIEW_MAX_WIDTH, height: 180, format: 'webp' });
      assert.deepEqual([preview.width, preview.height], [320, 180]);
      assert.ok(preview.bytes.length < original.length);
    });
  }

  test('the preview keeps colours: a uniform image stays (almost exactly) the same colour', async () => {
    const uniform = await sharp({ create: { width: 640, height: 100, channels: 3, background: { r: 10, g: 120, b: 230 } } })
      .png()
      .toBuffer();
    const { data, info } = await sharp((await makePreview(uniform, 'image/png')).bytes)
      .raw()
      .toBuffer({ resolveWithObject: true });
    assert.deepEqual([info.width, info.height], [320, 50]);
    for (const offset of [0, data.length - info.channels]) {
      const pixel = [...data.subarray(offset, offset + 3)];
      [10, 120, 230].forEach((expected, i) => assert.ok(Math.abs(pixel[i] - expected) <= 4, `${pixel} ≈ 10,120,230`));
    }
  });

  test('a narrow PNG or JPEG gets a WebP preview of its own size (never enlarged); a narrow WebP is its own preview', async () => {
    for (const [type, make] of [
      ['image/png', pngOf],
      ['image/jpeg', jpegOf],
    ] as const) {
      const preview = await makePreview(await make(200, 100), type);
      assert.equal(preview.media_type, 'image/webp');
      assert.deepEqual(await decoded(preview.bytes), { width: 200, height: 100, format: 'webp' });
    }
    const narrow = await webpOf(200, 100);
    assert.equal((await makePreview(narrow, 'image/webp')).bytes, narrow);
    assert.equal((await makePreview(WEBP, 'image/webp')).bytes, WEBP);
  });

  test('libvips itself refuses an image whose header claims more than 40 megapixels (limitInputPixels)', async () => {
    const bomb = await pngOf(800, 450);
    bomb.writeUInt32BE(100_000, 16);
    bomb.writeUInt32BE(100_000, 20);
    // The header is read (10^10 pixels, 40 GB of RGBA if it were decoded)…
    assert.deepEqual(await readImageSize(bomb, 'image/png'), { width: 100_000, height: 100_000 });
    // …and the decoding pipeline stops at it.
    await assert.rejects(makePreview(bomb, 'image/png'), /exceeds pixel limit/);
  });
});

describe('prepareEvidence', () => {
  test('stores the original and a WebP preview and describes both', async () => {
    for (const [type, make] of [
      ['image/png', pngOf],
      ['image/jpeg', jpegOf],
      ['image/webp', webpOf],
    ] as const) {
      const bytes = await make(800, 450);
      const evidence = await prepareEvidence(store, { section: 'top_card', media_type: type, bytes });
      assert.deepEqual(evidence.original, { sha256: sha256(bytes), size: bytes.length, media_type: type, width: 800, height: 450 });
      assert.equal(evidence.preview.media_type, 'image/webp');
      assert.deepEqual([evidence.preview.width, evidence.preview.height], [320, 180]);
      assert.ok(evidence.preview.size < evidence.original.size);
      assert.deepEqual(await store.get(evidence.original.sha256), bytes);
      const preview = await store.get(evidence.preview.sha256);
      assert.ok(preview !== null && preview.length === evidence.preview.size);
      assert.equal(sha256(preview), evidence.preview.sha256);
      assert.equal(await detectMediaType(preview), 'image/webp');
      assert.deepEqual(await decoded(preview), { width: 320, height: 180, format: 'webp' });
    }
  });

  test('a narrow WebP original is its own preview', async () => {
    const evidence = await prepareEvidence(store, { section: 'activity', media_type: 'image/webp', bytes: WEBP });
    assert.deepEqual(evidence.preview, evidence.original);
    assert.equal(evidence.original.media_type, 'image/webp');
  });

  test('the same screenshot twice gives the same addresses (content addressing, deterministic previews)', async () => {
    const bytes = await pngOf(800, 450);
    const first = await prepareEvidence(store, { section: 'about', media_type: 'image/png', bytes });
    const second = await prepareEvidence(store, { section: 'about', media_type: 'image/png', bytes: Buffer.from(bytes) });
    assert.deepEqual(second, first);
  });

  test('the stored type is the sniffed one, whatever the collector declared', async () => {
    const evidence = await prepareEvidence(store, { section: 'about', media_type: 'image/png', bytes: await jpegOf(400, 200) });
    assert.equal(evidence.original.media_type, 'image/jpeg');
  });

  test('unsupported content is rejected with unsupported_media_type and nothing is stored', async () => {
    const countBlobs = async () => (await readdir(root, { recursive: true })).length;
    const blobs = await countBlobs();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
    const tiff = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } })
      .tiff()
      .toBuffer();
    for (const bytes of [GIF, svg, tiff, Buffer.from('plain text'), Buffer.alloc(0)]) {
      await assert.rejects(prepareEvidence(store, { section: 'about', media_type: 'image/png', bytes }), assertEvidenceError('unsupported_media_type'));
    }
    assert.equal(await countBlobs(), blobs);
  });

  test('content over 10 MiB is rejected with media_too_large', async () => {
    const big = Buffer.concat([await pngOf(800, 450), Buffer.alloc(MAX_MEDIA_BYTES)]);
    await assert.rejects(prepareEvidence(store, { section: 'top_card', media_type: 'image/png', bytes: big }), assertEvidenceError('media_too_large'));
  });

  test('exactly 10 MiB is not rejected for its size', async () => {
    // Trailing bytes after the RIFF chunk are ignored by the decoder, so this stays a readable image of exactly the limit.
    const padded = Buffer.concat([WEBP, Buffer.alloc(MAX_MEDIA_BYTES - WEBP.length)]);
    assert.equal(padded.length, MAX_MEDIA_BYTES);
    const evidence = await prepareEvidence(store, { section: 'top_card', media_type: 'image/webp', bytes: padded });
    assert.equal(evidence.original.size, MAX_MEDIA_BYTES);
    const over = Buffer.concat([padded, Buffer.alloc(1)]);
    await assert.rejects(prepareEvidence(store, { section: 'top_card', media_type: 'image/webp', bytes: over }), /limit is 10485760/);
  });

  test('an image whose header claims more than 40 megapixels is rejected as image_too_large without decoding, nothing stored', async () => {
    const countBlobs = async () => (await readdir(root, { recursive: true })).length;
    const blobs = await countBlobs();
    const bomb = await pngOf(800, 450);
    bomb.writeUInt32BE(100_000, 16);
    bomb.writeUInt32BE(100_000, 20);
    const jpegBomb = await jpegOf(64, 64);
    // The JPEG start-of-frame header: height then width, 16 bits each.
    const sof = jpegBomb.indexOf(Buffer.from([0xff, 0xc0]));
    assert.ok(sof > 0);
    jpegBomb.writeUInt16BE(60_000, sof + 5);
    jpegBomb.writeUInt16BE(60_000, sof + 7);
    for (const [bytes, type] of [
      [bomb, 'image/png'],
      [jpegBomb, 'image/jpeg'],
    ] as const) {
      const cpu = process.cpuUsage();
      await assert.rejects(prepareEvidence(store, { section: 'top_card', media_type: type, bytes }), (error: unknown) => {
        assertEvidenceError('image_too_large')(error);
        assert.match((error as Error).message, /is (100000x100000|60000x60000); the limit is 40000000 pixels/);
        return true;
      });
      const used = process.cpuUsage(cpu);
      // Decoding 3.6 or 10 gigapixels would take minutes; reading a header takes microseconds.
      assert.ok(used.user + used.system < 2_000_000, `${type}: ${used.user + used.system} µs of CPU`);
    }
    assert.equal(await countBlobs(), blobs);
  });

  test('truncated or corrupt bytes are rejected as image_unreadable, nothing stored', async () => {
    const countBlobs = async () => (await readdir(root, { recursive: true })).length;
    const blobs = await countBlobs();
    const png = await pngOf(800, 450);
    const jpg = await jpegOf(800, 450);
    const webp = await webpOf(800, 450);
    const corruptPng = Buffer.from(png);
    corruptPng.fill(0x5a, 2_000, 3_000); // inside the image data: the chunk CRC no longer matches
    const corruptJpeg = Buffer.from(jpg);
    corruptJpeg.fill(0xff, 1_000, 1_400); // a run of marker bytes in the entropy-coded data
    const cases: Array<[string, Buffer, 'image/png' | 'image/jpeg' | 'image/webp']> = [
      ['PNG cut after its header', Buffer.from(png.subarray(0, 200)), 'image/png'],
      ['PNG without its end', Buffer.from(png.subarray(0, png.length - 40)), 'image/png'],
      ['PNG with damaged data', corruptPng, 'image/png'],
      ['PNG signature and garbage', Buffer.concat([png.subarray(0, 8), Buffer.alloc(100, 7)]), 'image/png'],
      ['JPEG cut in half', Buffer.from(jpg.subarray(0, jpg.length >> 1)), 'image/jpeg'],
      ['JPEG with damaged data', corruptJpeg, 'image/jpeg'],
      ['WebP cut in half', Buffer.from(webp.subarray(0, webp.length >> 1)), 'image/webp'],
    ];
    for (const [name, bytes, type] of cases) {
      assert.equal(await detectMediaType(bytes), type, `${name} still sniffs as ${type}`);
      await assert.rejects(prepareEvidence(store, { section: 'top_card', media_type: type, bytes }), assertEvidenceError('image_unreadable'), name);
    }
    assert.equal(await countBlobs(), blobs);
  });
});
