/**
 * What evidence images may be, and their previews.
 *
 * The type is sniffed from the bytes (never taken from a header or a file
 * name). Only PNG, JPEG and WebP are evidence; at most MAX_MEDIA_BYTES and
 * MAX_MEDIA_PIXELS, so decoding a hostile image cannot exhaust memory.
 *
 * Previews are at most PREVIEW_MAX_WIDTH pixels wide, box-filtered, and keep
 * the original's format (PNG → PNG, JPEG → JPEG). Two cases return the
 * original bytes as their own preview: images already narrow enough, and WebP
 * (no encoder among our dependencies; browsers scale WebP fine).
 */
import { fileTypeFromBuffer } from 'file-type';
import jpeg from 'jpeg-js';
import pngjs from 'pngjs';
import type { MediaType } from '../collectors/collector.js';

export type { MediaType } from '../collectors/collector.js';

const { PNG } = pngjs;

export const MAX_MEDIA_BYTES = 10 * 1024 * 1024;
/** Decoded size limit: 40 megapixels (160 MB of RGBA). */
export const MAX_MEDIA_PIXELS = 40_000_000;
export const PREVIEW_MAX_WIDTH = 320;
const PREVIEW_JPEG_QUALITY = 75;

export interface ImageSize {
  width: number;
  height: number;
}

export interface Preview extends ImageSize {
  bytes: Buffer;
  media_type: MediaType;
}

/** The evidence type of the bytes, by content; null for anything else. */
export async function detectMediaType(bytes: Uint8Array): Promise<MediaType | null> {
  if (bytes.length === 0) return null;
  const detected = await fileTypeFromBuffer(bytes);
  switch (detected?.mime) {
    case 'image/png':
      return 'image/png';
    case 'image/jpeg':
      return 'image/jpeg';
    case 'image/webp':
      return 'image/webp';
    default:
      return null;
  }
}

/** Width and height from the image header, without decoding pixels; null when the header is unreadable. */
export function readImageSize(bytes: Buffer, mediaType: MediaType): ImageSize | null {
  const size = mediaType === 'image/png' ? pngSize(bytes) : mediaType === 'image/jpeg' ? jpegSize(bytes) : webpSize(bytes);
  return size !== null && size.width > 0 && size.height > 0 ? size : null;
}

function pngSize(bytes: Buffer): ImageSize | null {
  if (bytes.length < 24 || bytes.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

function jpegSize(bytes: Buffer): ImageSize | null {
  let i = 2;
  while (i + 3 < bytes.length) {
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1] as number;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {
      i += 2; // standalone marker, no length
      continue;
    }
    const isStartOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isStartOfFrame) {
      if (i + 9 > bytes.length) return null;
      return { height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
    }
    i += 2 + bytes.readUInt16BE(i + 2);
  }
  return null;
}

function webpSize(bytes: Buffer): ImageSize | null {
  if (bytes.length < 30 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP') return null;
  const chunk = bytes.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const b1 = bytes[22] as number;
    const b2 = bytes[23] as number;
    const b3 = bytes[24] as number;
    return {
      width: 1 + (((b1 & 0x3f) << 8) | (bytes[21] as number)),
      height: 1 + (((b3 & 0x0f) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)),
    };
  }
  if (chunk === 'VP8X') return { width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) };
  return null;
}

interface Rgba extends ImageSize {
  data: Uint8Array;
}

/** Box filter: each target pixel is the mean of the source pixels it covers. */
function downscale(source: Rgba, width: number): Rgba {
  const height = Math.max(1, Math.round((source.height * width) / source.width));
  const data = new Uint8Array(width * height * 4);
  for (let ty = 0; ty < height; ty++) {
    const y0 = Math.floor((ty * source.height) / height);
    const y1 = Math.max(y0 + 1, Math.floor(((ty + 1) * source.height) / height));
    for (let tx = 0; tx < width; tx++) {
      const x0 = Math.floor((tx * source.width) / width);
      const x1 = Math.max(x0 + 1, Math.floor(((tx + 1) * source.width) / width));
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let y = y0; y < y1; y++) {
        let i = (y * source.width + x0) * 4;
        for (let x = x0; x < x1; x++, i += 4) {
          r += source.data[i] as number;
          g += source.data[i + 1] as number;
          b += source.data[i + 2] as number;
          a += source.data[i + 3] as number;
        }
      }
      const n = (x1 - x0) * (y1 - y0);
      const o = (ty * width + tx) * 4;
      data[o] = Math.round(r / n);
      data[o + 1] = Math.round(g / n);
      data[o + 2] = Math.round(b / n);
      data[o + 3] = Math.round(a / n);
    }
  }
  return { width, height, data };
}

function isOpaque(rgba: Uint8Array): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}

function decode(bytes: Buffer, mediaType: 'image/png' | 'image/jpeg'): Rgba {
  if (mediaType === 'image/png') {
    const png = PNG.sync.read(bytes);
    return { width: png.width, height: png.height, data: png.data };
  }
  return jpeg.decode(bytes, {
    useTArray: true,
    formatAsRGBA: true,
    maxResolutionInMP: MAX_MEDIA_PIXELS / 1_000_000,
    maxMemoryUsageInMB: 512,
  });
}

/**
 * A preview at most PREVIEW_MAX_WIDTH wide, in the original's format. PNG and
 * JPEG are fully decoded, so a damaged image throws here, as does one over
 * MAX_MEDIA_PIXELS.
 */
export async function makePreview(bytes: Buffer, mediaType: MediaType): Promise<Preview> {
  const size = readImageSize(bytes, mediaType);
  if (size === null) throw new Error(`unreadable ${mediaType} header`);
  if (size.width * size.height > MAX_MEDIA_PIXELS) throw new Error(`image of ${size.width}x${size.height} exceeds ${MAX_MEDIA_PIXELS} pixels`);
  if (mediaType === 'image/webp') return { bytes, media_type: mediaType, ...size };

  const decoded = decode(bytes, mediaType);
  if (decoded.width <= PREVIEW_MAX_WIDTH) return { bytes, media_type: mediaType, width: decoded.width, height: decoded.height };
  const small = downscale(decoded, PREVIEW_MAX_WIDTH);
  if (mediaType === 'image/png') {
    const image = new PNG({ width: small.width, height: small.height });
    image.data = Buffer.from(small.data.buffer, small.data.byteOffset, small.data.byteLength);
    // Opaque images drop the alpha channel; the adaptive filter is cheap at preview size and compresses best.
    const colorType = isOpaque(small.data) ? 2 : 6;
    return { bytes: PNG.sync.write(image, { colorType, filterType: -1 }), media_type: 'image/png', width: small.width, height: small.height };
  }
  const encoded = jpeg.encode({ width: small.width, height: small.height, data: small.data }, PREVIEW_JPEG_QUALITY);
  return { bytes: encoded.data, media_type: 'image/jpeg', width: small.width, height: small.height };
}
