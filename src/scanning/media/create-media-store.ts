/**
 * The media store of the configuration: files under DATA_DIR/media, or an
 * S3-compatible bucket. The S3 client is loaded only when it is configured.
 */
import type { MediaSettings } from '../../config.js';
import { FileMediaStore, type MediaStore } from './media-store.js';

export async function createMediaStore(settings: MediaSettings): Promise<MediaStore> {
  if (settings.kind === 'file') return new FileMediaStore(settings.dir);
  const { S3MediaStore } = await import('./s3-media-store.js');
  return new S3MediaStore(settings);
}
