/**
 * Turns one collected screenshot into stored evidence: validates it, makes its
 * preview, and puts both in the media store. The caller records the returned
 * addresses against the finding / scan item; this module touches no database.
 *
 * The stored media type is the one sniffed from the bytes. A collector that
 * declares another supported type is trusted for nothing but the section.
 * Decoding and encoding happen in sharp (media-types.ts), off the event loop.
 */
import type { PreparedEvidence, Screenshot } from '../../domain/collected.js';
import type { MediaStore } from './media-store.js';
import { MAX_MEDIA_BYTES, MAX_MEDIA_PIXELS, detectMediaType, makePreview, readImageSize } from './media-types.js';
import { NO_SHARE, type ImageShare } from './image-work.js';

export type { PreparedEvidence } from '../../domain/collected.js';

export type EvidenceErrorCode = 'media_too_large' | 'unsupported_media_type' | 'image_unreadable' | 'image_too_large';

/** Evidence that cannot be stored. Retrying does not help: the bytes are what they are. */
export class EvidenceError extends Error {
  readonly code: EvidenceErrorCode;
  constructor(code: EvidenceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EvidenceError';
    this.code = code;
  }
}

/** `share`: whose turn its image work waits for (the item's workspace and report, image-work.ts). */
export async function prepareEvidence(store: MediaStore, screenshot: Screenshot, share: ImageShare = NO_SHARE): Promise<PreparedEvidence> {
  const { bytes, section } = screenshot;
  if (bytes.length > MAX_MEDIA_BYTES) {
    throw new EvidenceError('media_too_large', `screenshot '${section}' has ${bytes.length} bytes; the limit is ${MAX_MEDIA_BYTES}`);
  }
  const mediaType = await detectMediaType(bytes);
  if (mediaType === null) {
    throw new EvidenceError('unsupported_media_type', `screenshot '${section}' is not a PNG, JPEG or WebP image`);
  }
  const size = await readImageSize(bytes, mediaType, share);
  if (size === null) throw new EvidenceError('image_unreadable', `screenshot '${section}' has an unreadable ${mediaType} header`);
  if (size.width * size.height > MAX_MEDIA_PIXELS) {
    throw new EvidenceError('image_too_large', `screenshot '${section}' is ${size.width}x${size.height}; the limit is ${MAX_MEDIA_PIXELS} pixels`);
  }
  let preview;
  try {
    preview = await makePreview(bytes, mediaType, size, share);
  } catch (error) {
    throw new EvidenceError('image_unreadable', `screenshot '${section}' could not be decoded as ${mediaType}`, { cause: error });
  }
  const storedOriginal = await store.put(bytes);
  const storedPreview = preview.bytes === bytes ? storedOriginal : await store.put(preview.bytes);
  return {
    original: { ...storedOriginal, media_type: mediaType, ...size },
    preview: { ...storedPreview, media_type: preview.media_type, width: preview.width, height: preview.height },
  };
}
