/** The image-work gate (src/scanning/media/image-work.ts): how many at once, and whose turn. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { imageWork, narrowImageWork, type ImageShare } from '../../src/scanning/media/image-work.js';

describe('image work gate', () => {
  test('narrowed to one, image operations run one at a time, in order, each on one libvips thread', async () => {
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

  test('queued image work is served by workspace, then by report, in turn, not first come first served', async () => {
    narrowImageWork(1);
    const a1: ImageShare = { workspaceId: 'A', reportId: 'a1' };
    const a2: ImageShare = { workspaceId: 'A', reportId: 'a2' };
    const b: ImageShare = { workspaceId: 'B', reportId: 'b' };
    let release!: () => void;
    const held = imageWork(() => new Promise<void>((resolve) => (release = resolve)), a1);
    const order: string[] = [];
    const queued: Promise<void>[] = [];
    const queue = (share: ImageShare, name: string) => queued.push(imageWork(async () => void order.push(name), share));
    // A large report's backlog first (two reports of workspace A), then a small report of workspace B.
    for (let i = 0; i < 3; i++) queue(a1, `a1-${i}`);
    for (let i = 0; i < 3; i++) queue(a2, `a2-${i}`);
    for (let i = 0; i < 2; i++) queue(b, `b-${i}`);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, [], 'all wait while the gate is held');
    release();
    await held;
    await Promise.all(queued);
    assert.deepEqual(order, ['a1-0', 'b-0', 'a2-0', 'b-1', 'a1-1', 'a2-1', 'a1-2', 'a2-2']);
  });
});
