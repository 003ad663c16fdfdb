/**
 * What evidence images may be, and their previews.
 *
 * The type is sniffed from the bytes (never taken from a header or a file
 * name): only PNG, JPEG and WebP are evidence, so no other decoder (SVG, TIFF,
 * PDF, …) ever sees collected bytes. The image is then read by `sharp`
 * (libvips), whose decoded format must agree with the sniffed one. At most
 * MAX_MEDIA_BYTES and MAX_MEDIA_PIXELS: the pixel count comes from the image
 * header, and every decoding pipeline is also opened with `limitInputPixels`,
 * so a hostile image is refused before any pixel is decoded.
 *
 * Previews are WebP, at most PREVIEW_MAX_WIDTH pixels wide with the aspect
 * ratio kept (never enlarged). A WebP original that is already narrow enough
 * is its own preview. All decoding, scaling and encoding runs in libvips on
 * the libuv thread pool, not on the JavaScript event loop.
 */
import { fileTypeFromBuffer } from 'file-type';
import sharp, { type Metadata, type SharpOptions } from 'sharp';
import type { MediaType } from '../../domain/collected.js';
import { imageWork, NO_SHARE, type ImageShare } from './image-work.js';

export type { MediaType } from '../../domain/collected.js';

export const MAX_MEDIA_BYTES = 10 * 1024 * 1024;
/** Decoded size limit: 40 megapixels (160 MB of RGBA). */
export const MAX_MEDIA_PIXELS = 40_000_000;
export const PREVIEW_MAX_WIDTH = 320;
export const PREVIEW_MEDIA_TYPE = 'image/webp' satisfies MediaType;
const PREVIEW_WEBP_QUALITY = 80;
/** libwebp effort 0–6: 2 costs markedly less CPU than the default 4, for slightly larger previews. */
const PREVIEW_WEBP_EFFORT = 2;

/** Options of every decoding pipeline: refuse oversized inputs from their header; fail on damaged data. */
const DECODE_OPTIONS: SharpOptions = { limitInputPixels: MAX_MEDIA_PIXELS, failOn: 'warning' };

const SHARP_FORMAT: Record<MediaType, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };

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

/**
 * Width and height as displayed (EXIF orientation applied), from the image
 * header through sharp, without decoding pixels. null when the header is
 * unreadable or is not of `mediaType`. Deliberately not bounded by
 * MAX_MEDIA_PIXELS, so the caller can report the size it refuses.
 */
export async function readImageSize(bytes: Buffer, mediaType: MediaType, share: ImageShare = NO_SHARE): Promise<ImageSize | null> {
  let metadata: Metadata;
  try {
    metadata = await imageWork(() => sharp(bytes, { limitInputPixels: false }).metadata(), share);
  } catch {
    return null;
  }
  if (metadata.format !== SHARP_FORMAT[mediaType]) return null;
  const { width, height } = metadata.autoOrient ?? metadata;
  return Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0 ? { width, height } : null;
}

/**
 * A WebP preview at most PREVIEW_MAX_WIDTH wide. The whole image is decoded,
 * so damaged data throws here, as does an image over MAX_MEDIA_PIXELS (refused
 * by libvips from its header). A narrow WebP original is decoded only to check
 * it, and returned as its own preview. `knownSize` (from readImageSize) saves
 * reading the header twice.
 */
export async function makePreview(bytes: Buffer, mediaType: MediaType, knownSize?: ImageSize, share: ImageShare = NO_SHARE): Promise<Preview> {
  const size = knownSize ?? (await readImageSize(bytes, mediaType, share));
  if (size === null) throw new Error(`unreadable ${mediaType} header`);
  if (mediaType === 'image/webp' && size.width <= PREVIEW_MAX_WIDTH) {
    await imageWork(() => sharp(bytes, DECODE_OPTIONS).stats(), share);
    return { bytes, media_type: mediaType, ...size };
  }
  const { data, info } = await imageWork(
    () =>
      sharp(bytes, DECODE_OPTIONS)
        .autoOrient()
        .resize({ width: PREVIEW_MAX_WIDTH, withoutEnlargement: true })
        .webp({ quality: PREVIEW_WEBP_QUALITY, effort: PREVIEW_WEBP_EFFORT })
        .toBuffer({ resolveWithObject: true }),
    share,
  );
  return { bytes: data, media_type: PREVIEW_MEDIA_TYPE, width: info.width, height: info.height };
}
