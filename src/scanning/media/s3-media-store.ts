/**
 * Evidence media in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, R2,
 * …) through the AWS SDK v3 S3 client. Same content addressing as the file
 * store: the object key is `${S3_PREFIX}${hash[0..2]}/${hash}`.
 *
 * - put: HEAD first; an object of the same size is already the same bytes
 *   (a wrong size can only be damage, so it is written again).
 * - open: the object is streamed through SHA-256 into a temporary file that
 *   is unlinked as soon as it is open (nothing is left behind, whatever
 *   happens to the process), at most MAX_MEDIA_BYTES; only when the hash
 *   matches is a stream of that file handed out. The whole object is never in
 *   memory, and a changed object is refused before any byte is sent.
 *
 * Checksums of the SDK (CRC32 on every request since 3.729) are asked for only
 * when S3 requires them: several S3-compatible servers reject them, and
 * integrity is checked end to end by the content hash anyway.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { MediaSettings } from '../../config.js';
import { MAX_MEDIA_BYTES } from './media-types.js';
import { hashStream, MediaIntegrityError, SHA256_HEX, sha256Hex, verifiedFromHandle, type MediaStore, type VerifiedMedia } from './media-store.js';

type S3Settings = Extract<MediaSettings, { kind: 's3' }>;

function isMissing(error: unknown): boolean {
  if (error instanceof S3ServiceException) {
    return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata?.httpStatusCode === 404;
  }
  return false;
}

export class S3MediaStore implements MediaStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly description: string;
  #tmpDir: Promise<string> | null = null;

  constructor(settings: S3Settings) {
    // The pinned SDK release supports Node 20; its notice about later releases is for whoever upgrades it.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    this.#client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      // A copy: the configuration is frozen, and the SDK marks the credentials object it is given.
      ...(settings.credentials ? { credentials: { ...settings.credentials } } : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    });
    this.#bucket = settings.bucket;
    this.#prefix = settings.prefix;
    this.description = `s3 bucket ${settings.bucket}${settings.endpoint ? ` at ${settings.endpoint}` : ` (${settings.region})`}`;
  }

  keyOf(sha256: string): string {
    return `${this.#prefix}${sha256.slice(0, 2)}/${sha256}`;
  }

  async put(bytes: Buffer): Promise<{ sha256: string; size: number }> {
    const sha256 = sha256Hex(bytes);
    const result = { sha256, size: bytes.length };
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.keyOf(sha256) }));
      if (head.ContentLength === bytes.length) return result;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: this.keyOf(sha256),
        Body: bytes,
        ContentLength: bytes.length,
        ContentType: 'application/octet-stream',
        Metadata: { sha256 },
      }),
    );
    return result;
  }

  async get(sha256: string): Promise<Buffer | null> {
    const media = await this.open(sha256);
    if (!media) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of media.stream()) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async open(sha256: string): Promise<VerifiedMedia | null> {
    if (!SHA256_HEX.test(sha256)) return null;
    let body: Readable;
    try {
      const object = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.keyOf(sha256) }));
      body = object.Body as Readable;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    const dir = await this.#temporaryDir();
    const file = path.join(dir, `${sha256}.${process.pid}.${randomUUID()}`);
    const handle = await open(file, 'wx+', 0o600);
    try {
      await rm(file, { force: true });
      let position = 0;
      const found = await hashStream(
        body,
        async (chunk) => {
          await handle.write(chunk, 0, chunk.length, position);
          position += chunk.length;
        },
        MAX_MEDIA_BYTES * 2,
      );
      if (found.sha256 !== sha256) throw new MediaIntegrityError(sha256);
      return verifiedFromHandle(handle, found.size);
    } catch (error) {
      body.destroy();
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  async delete(sha256: string): Promise<void> {
    if (!SHA256_HEX.test(sha256)) return;
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.keyOf(sha256) }));
  }

  async check(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }));
    } catch (error) {
      const reason =
        error instanceof S3ServiceException
          ? `${error.name} (HTTP ${error.$metadata?.httpStatusCode ?? '?'})`
          : error instanceof Error
            ? error.message
            : String(error);
      throw new Error(`evidence storage: cannot reach S3 bucket ${this.#bucket}: ${reason}; check S3_ENDPOINT, S3_BUCKET, S3_REGION and the credentials`);
    }
  }

  /** Closes the client's connections. */
  destroy(): void {
    this.#client.destroy();
  }

  #temporaryDir(): Promise<string> {
    this.#tmpDir ??= (async () => {
      const base = path.join(os.tmpdir(), 'profile-scan-media');
      await mkdir(base, { recursive: true, mode: 0o700 });
      return base;
    })();
    return this.#tmpDir;
  }
}
