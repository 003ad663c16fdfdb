/** The image-work gate of serve's worker thread (src/scanning/media/image-work.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { imageWork, narrowImageWork } from '../../src/scanning/media/image-work.js';

describe('image work gate', () => {
  test('issue 9 item 3: narrowed to one, image operations run one at a time, in order, each on one libvips thread', async () => {
    narrowImageWork(1);
    assert.equal(sharp.concurrency(), 1);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        imageWork(async () => {
          running++;
          most = Math.max(most, running);
          order.push(i);
          const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } })
            .png()
            .toBuffer();
          running--;
          return png.length;
        }),
      ),
    );
    assert.equal(most, 1);
    assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
    assert.ok(results.every((n) => n > 0));
  });

  test('a failed operation frees its slot', async () => {
    narrowImageWork(1);
    await assert.rejects(imageWork(() => sharp(Buffer.from('not an image')).png().toBuffer()));
    assert.equal(await imageWork(() => Promise.resolve(42)), 42);
  });
});
