/** The evidence cards' text drawn from cached glyphs, and their shapes kept (src/scanning/evidence-cards/text-raster.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { rasterize, type Canvas } from '../../src/scanning/evidence-cards/text-raster.js';
import { aboutSvg, topCardSvg } from '../../src/scanning/evidence-cards/card-svg.js';
import type { CollectedProfile } from '../../src/domain/collected.js';

const LOOK = { observedAt: '2026-10-30T14:05:00Z' };
const canvas: Canvas = { width: 640, height: 360, scale: 0.8, fontFamily: "'DejaVu Sans', sans-serif" };

const profile = (overrides: Partial<CollectedProfile>): CollectedProfile =>
  ({
    name: 'Ada Lovelace',
    headline: 'Head of Platform Engineering at Acme · building reliable data systems',
    location: 'São Paulo, Brazil',
    connections: 1234,
    followers: 5678,
    has_banner: true,
    has_photo: true,
    about: 'I lead the platform team at Acme where we build the data infrastructure that powers reporting… Outside work I run & read.',
    featured_count: 3,
    positions: [],
    skills: [],
    ...overrides,
  }) as CollectedProfile;

async function librsvg(svg: string): Promise<Buffer> {
  return sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
}

/**
 * How far apart two rasters are where the text is: both averaged over blocks of
 * 8 x 8 pixels (a glyph a pixel to the side, or kerning, barely moves a block's
 * mean; text that is missing or elsewhere moves it a lot), then the mean
 * absolute difference per channel over the blocks where the reference has text.
 */
function textDistance(candidate: Buffer, reference: Buffer, shapes: Buffer): number {
  const block = 8;
  let sum = 0;
  let blocks = 0;
  for (let by = 0; by < 360; by += block) {
    for (let bx = 0; bx < 640; bx += block) {
      for (let c = 0; c < 3; c++) {
        let a = 0;
        let r = 0;
        let s = 0;
        for (let y = by; y < by + block; y++) {
          for (let x = bx; x < bx + block; x++) {
            const i = (y * 640 + x) * 3 + c;
            a += candidate[i];
            r += reference[i];
            s += shapes[i];
          }
        }
        if (Math.abs(r - s) < block * block * 8) continue; // no text here
        sum += Math.abs(a - r) / (block * block);
        blocks++;
      }
    }
  }
  return sum / Math.max(1, blocks);
}

describe('text raster', () => {
  test('the text drawn from cached glyphs is librsvg’s text, in the same places', async () => {
    for (const svg of [topCardSvg(profile({}), LOOK), aboutSvg(profile({}), LOOK)]) {
      const drawn = await rasterize(svg, canvas);
      assert.ok(drawn, 'Latin text is drawn glyph by glyph');
      assert.equal(drawn.length, 640 * 360 * 3);
      const reference = await librsvg(svg);
      const shapes = await librsvg(svg.replace(/<text [^>]*>[^<]*<\/text>/gu, ''));
      const distance = textDistance(drawn, reference, shapes);
      const missing = textDistance(shapes, reference, shapes);
      // Without the text at all, the blocks with text are far off; drawn from glyphs, they are close.
      assert.ok(missing > 20, `the SVG has text (${missing.toFixed(1)})`);
      assert.ok(distance < missing / 4, `drawn text follows librsvg's: ${distance.toFixed(1)} against ${missing.toFixed(1)} without text`);
    }
  });

  test('a card whose shapes were kept is drawn exactly as librsvg would draw its shapes: the kept raster is never drawn on', async () => {
    const first = aboutSvg(profile({ about: 'First card of this layout.' }), LOOK);
    const second = aboutSvg(profile({ about: 'Second card, same layout, other words.', name: 'Grace Hopper' }), LOOK);
    const shapesOf = (svg: string) => librsvg(svg.replace(/<text [^>]*>[^<]*<\/text>/gu, ''));
    assert.ok((await shapesOf(first)).equals(await shapesOf(second)), 'the two cards share their shapes');
    await rasterize(first, canvas);
    const drawn = await rasterize(second, canvas);
    // Drawn again from scratch, without the kept shapes: the same pixels.
    const fresh = await rasterize(second.replace('<svg ', '<svg data-fresh="1" '), canvas);
    assert.ok(drawn && fresh && drawn.equals(fresh));
  });

  test('the same SVG gives the same pixels, whether its glyphs were cached or not', async () => {
    const svg = aboutSvg(profile({ about: 'Zebras quickly jump over the lazy fox: 0123456789 ¿¡ ÆØÅ' }), LOOK);
    const first = await rasterize(svg, canvas);
    const second = await rasterize(svg, canvas);
    assert.ok(first && second);
    assert.ok(first.equals(second));
  });

  test('text that needs shaping (another script, right to left, combining marks) is left to librsvg: null', async () => {
    for (const name of ['محمد علي', '李小龙', 'Zoë with a combining e\u0308']) {
      assert.equal(await rasterize(topCardSvg(profile({ name }), LOOK), canvas), null, name);
    }
  });
});
