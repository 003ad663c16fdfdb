/**
 * Rasterizing the evidence cards' SVGs cheaply: every collected item gets its
 * cards, so their cost is paid per item by every worker.
 *
 * librsvg lays out and rasterizes every glyph of every card anew: most of a
 * text-heavy section's cost. Here the
 * SVG's shapes (everything but its `<text>` elements) are still rasterized by
 * sharp (librsvg), and each text element is drawn from glyph bitmaps that
 * librsvg rendered once per process for each (character, size, weight,
 * style): an alpha mask and an advance width, blended in the section's colour.
 * A text-heavy section then costs a fraction of what librsvg alone costs.
 *
 * The shapes themselves cost librsvg its set-up and a 640 x 360 raster per
 * card however few they are, and card-svg.ts draws shapes that depend on
 * a card's layout only (how many positions, events or posts), never on its
 * values: a few dozen layouts in all. So the shapes' raster is kept per
 * distinct shapes SVG (at most SHAPE_RASTERS, the most recently used, one
 * raw raster each) and copied for the next card of that layout. Trade: that
 * memory, for most of a card's rendering time.
 *
 * The glyphs are librsvg's own, so the text looks the same; what differs is
 * layout: no kerning, and each glyph lands on a whole pixel. Text with
 * characters that need shaping (other scripts, combining marks, right to
 * left) is not drawn glyph by glyph: such an SVG is rasterized whole by
 * librsvg, as before (`rasterize` returns null). Deterministic: a glyph's
 * bitmap does not depend on when it was first needed.
 *
 * The `<text>` elements parsed here are the ones card-svg.ts writes
 * (attributes x, y, font-size, fill, font-weight, font-style, text-anchor in
 * that form; XML-escaped content), not arbitrary SVG.
 */
import sharp from 'sharp';
import { imageWork, NO_SHARE, type ImageShare } from '../media/image-work.js';
import { escapeXml, unescapeXml } from './xml.js';

export interface Canvas {
  /** Pixels of the raster. */
  width: number;
  height: number;
  /** Raster pixels per SVG user unit (the viewBox is scaled to the raster). */
  scale: number;
  fontFamily: string;
}

interface Glyph {
  /** Alpha coverage, `width` x `height`, trimmed to the ink. */
  mask: Uint8Array;
  width: number;
  height: number;
  /** Pen position relative to the mask's top-left corner. */
  originX: number;
  originY: number;
  /** Advance to the next glyph, in raster pixels (fractional). */
  advance: number;
}

interface TextStyle {
  /** Font size in raster pixels. */
  size: number;
  bold: boolean;
  italic: boolean;
}

/**
 * Characters drawn glyph by glyph: Latin (with Latin-1 and Extended-A/B
 * letters), general punctuation and the symbols the sections use. Anything
 * else sends the whole SVG to librsvg.
 */
const SIMPLE_TEXT = /^[\u0020-\u007E\u00A0-\u024F\u2010-\u2027\u2030-\u205E\u20AC\u2122]*$/u;

const TEXT_ELEMENT = /<text ([^>]*)>([^<]*)<\/text>/gu;
function attribute(attributes: string, name: string): string | undefined {
  return new RegExp(`(?:^| )${name}="([^"]*)"`, 'u').exec(attributes)?.[1];
}

function rgb(hex: string): [number, number, number] {
  const value = /^#([0-9a-f]{6})$/iu.exec(hex)?.[1] ?? '1f1f1f';
  return [parseInt(value.slice(0, 2), 16), parseInt(value.slice(2, 4), 16), parseInt(value.slice(4, 6), 16)];
}

// ---------------------------------------------------------------- glyphs

/** Glyphs of this process, by font, style and character; a promise while the first render runs. */
const glyphs = new Map<string, Promise<Glyph>>();
/** A cap on the cache: Latin text uses a few hundred glyphs per style; arbitrary names could add more. */
const MAX_GLYPHS = 20_000;

async function alphaOf(svg: string, width: number, height: number): Promise<Uint8Array> {
  const data = await imageWork(() => sharp(Buffer.from(svg, 'utf8')).ensureAlpha().extractChannel(3).raw().toBuffer());
  return new Uint8Array(data.buffer, data.byteOffset, width * height);
}

function textSvg(content: string, width: number, height: number, x: number, y: number, style: TextStyle, fontFamily: string): string {
  const weight = style.bold ? ' font-weight="bold"' : '';
  const slant = style.italic ? ' font-style="italic"' : '';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" text-rendering="optimizeLegibility">` +
    `<text x="${x}" y="${y}" font-family="${escapeXml(fontFamily)}" font-size="${style.size}"${weight}${slant}>${escapeXml(content)}</text></svg>`
  );
}

/** Left edges of the runs of ink across the columns of a mask (the bars of "|x|"). */
function inkRuns(mask: Uint8Array, width: number, height: number): number[] {
  const edges: number[] = [];
  let inside = false;
  for (let x = 0; x < width; x++) {
    let ink = false;
    for (let y = 0; y < height && !ink; y++) ink = mask[y * width + x] !== 0;
    if (ink && !inside) edges.push(x);
    inside = ink;
  }
  return edges;
}

/** The pen advance of `content` between two bars, measured at 4x and scaled back: "|c|" minus "||". */
async function barSpan(content: string, style: TextStyle, fontFamily: string): Promise<number> {
  const big = { ...style, size: style.size * 4 };
  const width = Math.ceil(big.size * (2 + 1.5 * Array.from(content).length)) + 20;
  const height = Math.ceil(big.size * 1.6) + 10;
  const edges = inkRuns(await alphaOf(textSvg(`|${content}|`, width, height, 10, Math.ceil(big.size * 1.2), big, fontFamily), width, height), width, height);
  if (edges.length < 2) throw new Error(`could not measure the advance of ${JSON.stringify(content)}`);
  return (edges[edges.length - 1] - edges[0]) / 4;
}

/** "||" per style: what barSpan measures besides the character. */
const referenceSpans = new Map<string, Promise<number>>();

function referenceSpan(style: TextStyle, fontFamily: string): Promise<number> {
  const key = `${fontFamily}|${style.size}|${style.bold ? 'b' : ''}${style.italic ? 'i' : ''}`;
  let span = referenceSpans.get(key);
  if (!span) {
    span = barSpan('', style, fontFamily);
    span.catch(() => referenceSpans.delete(key));
    referenceSpans.set(key, span);
  }
  return span;
}

async function renderGlyph(char: string, style: TextStyle, fontFamily: string): Promise<Glyph> {
  const width = Math.ceil(style.size * 3) + 8;
  const height = Math.ceil(style.size * 2) + 8;
  const originX = 4;
  const originY = Math.ceil(style.size * 1.4) + 4;
  const full = await alphaOf(textSvg(char, width, height, originX, originY, style, fontFamily), width, height);
  const advance = (await barSpan(char, style, fontFamily)) - (await referenceSpan(style, fontFamily));
  // Trimmed to the ink, so blending skips the empty margins.
  let left = width;
  let right = -1;
  let top = height;
  let bottom = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (full[y * width + x] === 0) continue;
      left = Math.min(left, x);
      right = Math.max(right, x);
      top = Math.min(top, y);
      bottom = Math.max(bottom, y);
    }
  }
  if (right < 0) return { mask: new Uint8Array(0), width: 0, height: 0, originX: 0, originY: 0, advance };
  const trimmedWidth = right - left + 1;
  const trimmedHeight = bottom - top + 1;
  const mask = new Uint8Array(trimmedWidth * trimmedHeight);
  for (let y = 0; y < trimmedHeight; y++) mask.set(full.subarray((top + y) * width + left, (top + y) * width + right + 1), y * trimmedWidth);
  return { mask, width: trimmedWidth, height: trimmedHeight, originX: originX - left, originY: originY - top, advance };
}

function glyph(char: string, style: TextStyle, fontFamily: string): Promise<Glyph> {
  const key = `${fontFamily}|${style.size}|${style.bold ? 'b' : ''}${style.italic ? 'i' : ''}|${char}`;
  let found = glyphs.get(key);
  if (!found) {
    if (glyphs.size >= MAX_GLYPHS) glyphs.clear();
    found = renderGlyph(char, style, fontFamily);
    // A failed render is not kept: the next card tries again.
    found.catch(() => glyphs.delete(key));
    glyphs.set(key, found);
  }
  return found;
}

// ---------------------------------------------------------------- shapes

/** Rasters of the shapes SVGs seen last, by their SVG; a promise while the first render runs. Map order is recency. */
const shapeRasters = new Map<string, Promise<Buffer>>();
/** One raw 640 x 360 raster each. Card layouts are a few dozen; more only evict the oldest. */
const SHAPE_RASTERS = 32;

/** A fresh copy (the caller draws text on it) of the raster of `shapes`, rendered by librsvg once while it stays among the recent ones. */
async function shapesRaster(shapes: string, share: ImageShare): Promise<Buffer> {
  let raster = shapeRasters.get(shapes);
  if (raster) {
    shapeRasters.delete(shapes);
  } else {
    raster = imageWork(() => sharp(Buffer.from(shapes, 'utf8')).removeAlpha().raw().toBuffer(), share);
    // A failed render is not kept: the next card tries again.
    raster.catch(() => shapeRasters.delete(shapes));
    if (shapeRasters.size >= SHAPE_RASTERS) shapeRasters.delete(shapeRasters.keys().next().value!);
  }
  shapeRasters.set(shapes, raster);
  return Buffer.from(await raster);
}

// ---------------------------------------------------------------- drawing

interface TextRun {
  x: number;
  y: number;
  content: string;
  style: TextStyle;
  colour: [number, number, number];
  anchor: string;
}

function blend(pixels: Buffer, canvas: Canvas, g: Glyph, penX: number, baseline: number, [r, gr, b]: [number, number, number]): void {
  const left = Math.round(penX) - g.originX;
  const top = Math.round(baseline) - g.originY;
  for (let y = 0; y < g.height; y++) {
    const row = top + y;
    if (row < 0 || row >= canvas.height) continue;
    for (let x = 0; x < g.width; x++) {
      const alpha = g.mask[y * g.width + x];
      const column = left + x;
      if (alpha === 0 || column < 0 || column >= canvas.width) continue;
      const i = (row * canvas.width + column) * 3;
      pixels[i] += ((r - pixels[i]) * alpha) / 255;
      pixels[i + 1] += ((gr - pixels[i + 1]) * alpha) / 255;
      pixels[i + 2] += ((b - pixels[i + 2]) * alpha) / 255;
    }
  }
}

/**
 * The SVG (written by card-svg.ts) as raw RGB pixels with its text drawn
 * from cached glyphs; null when some text needs librsvg's shaping.
 */
export async function rasterize(svg: string, canvas: Canvas, share: ImageShare = NO_SHARE): Promise<Buffer | null> {
  const runs: TextRun[] = [];
  let simple = true;
  const shapes = svg.replace(TEXT_ELEMENT, (_element, attributes: string, body: string) => {
    const content = unescapeXml(body);
    if (!SIMPLE_TEXT.test(content)) simple = false;
    runs.push({
      x: Number(attribute(attributes, 'x')) * canvas.scale,
      y: Number(attribute(attributes, 'y')) * canvas.scale,
      content,
      style: {
        size: Number(attribute(attributes, 'font-size') ?? 14) * canvas.scale,
        bold: attribute(attributes, 'font-weight') === 'bold',
        italic: attribute(attributes, 'font-style') === 'italic',
      },
      colour: rgb(attribute(attributes, 'fill') ?? '#1f1f1f'),
      anchor: attribute(attributes, 'text-anchor') ?? 'start',
    });
    return '';
  });
  if (!simple) return null;
  const laidOut = await Promise.all(
    runs.map(async (run) => ({ run, glyphs: await Promise.all(Array.from(run.content, (c) => glyph(c, run.style, canvas.fontFamily))) })),
  );
  const pixels = await shapesRaster(shapes, share);
  for (const { run, glyphs: line } of laidOut) {
    const width = line.reduce((sum, g) => sum + g.advance, 0);
    let pen = run.anchor === 'end' ? run.x - width : run.anchor === 'middle' ? run.x - width / 2 : run.x;
    for (const g of line) {
      blend(pixels, canvas, g, pen, run.y, run.colour);
      pen += g.advance;
    }
  }
  return pixels;
}
