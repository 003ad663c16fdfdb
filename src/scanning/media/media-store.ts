/**
 * Content-addressed storage of evidence media (screenshots and previews): a
 * local directory (FileMediaStore, the embedded default) or an S3-compatible
 * bucket (S3MediaStore, ./s3-media-store.ts), chosen by configuration
 * (createMediaStore).
 *
 * A blob's name is the SHA-256 of its bytes, so storing the same bytes twice
 * is a no-op, and a reader can check what it got (decisions.md, Reading: "The
 * stored media's content hash is checked on read"). This module knows nothing
 * of images, reports or the database: the database records which hashes a
 * report's evidence refers to.
 *
 * Downloads are streamed, never held whole in memory, and still verified
 * before the first byte is sent (a changed blob must be refused with a 404,
 * so the check cannot wait for the end of the stream): `open` hashes the
 * whole blob first, then hands out a stream of exactly the bytes it hashed.
 * The file store hashes and then streams one open file descriptor (a blob is
 * only ever replaced by a rename, which leaves an open descriptor on the old
 * bytes). The S3 store streams the object through the hash into an unlinked
 * temporary file, then streams that file.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/** A verified blob, ready to stream: `stream()` may be called once; `discard()` when it will not be. */
export interface VerifiedMedia {
  size: number;
  stream(): Readable;
  discard(): Promise<void>;
}

export interface MediaStore {
  /** Stores the bytes (idempotent) and returns their address. */
  put(bytes: Buffer): Promise<{ sha256: string; size: number }>;
  /** The bytes stored under `sha256` (verified), or null when there are none. For tests and small reads. */
  get(sha256: string): Promise<Buffer | null>;
  /**
   * The blob under `sha256`, hashed and found intact, or null when there is
   * none (or the name is malformed). Throws MediaIntegrityError when the
   * stored bytes no longer hash to their name; other errors mean the store
   * could not be read.
   */
  open(sha256: string): Promise<VerifiedMedia | null>;
  /** Removes the blob (no error when it is already gone). */
  delete(sha256: string): Promise<void>;
  /** Checks that the store can be used (fails with a one-line message naming what is wrong). */
  check(): Promise<void>;
  /** A short description for logs (no credentials). */
  readonly description: string;
}

/** Stored bytes that no longer hash to their name: damaged evidence is never served as genuine. */
export class MediaIntegrityError extends Error {
  constructor(sha256: string) {
    super(`media store: content of ${sha256} does not match its hash`);
    this.name = 'MediaIntegrityError';
  }
}

export const SHA256_HEX = /^[0-9a-f]{64}$/u;

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/** Hashes a readable stream of one blob (handing each chunk to `write` when given), refusing more than `maxBytes`. */
export async function hashStream(
  source: Readable,
  write?: (chunk: Buffer) => Promise<unknown>,
  maxBytes = Number.MAX_SAFE_INTEGER,
): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of source) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > maxBytes) throw new Error(`media store: blob larger than ${maxBytes} bytes`);
    hash.update(bytes);
    if (write) await write(bytes);
  }
  return { sha256: hash.digest('hex'), size };
}

/** A VerifiedMedia over an open file handle whose bytes, from offset 0, were verified. */
export function verifiedFromHandle(handle: FileHandle, size: number): VerifiedMedia {
  let taken = false;
  return {
    size,
    stream: () => {
      if (taken) throw new Error('media stream already taken');
      taken = true;
      return handle.createReadStream({ start: 0, autoClose: true });
    },
    discard: async () => {
      if (taken) return;
      taken = true;
      await handle.close();
    },
  };
}

/**
 * Files under `${root}/${hash[0..2]}/${hash}`. Writes go to a unique temporary
 * file in the same directory, are flushed, then renamed into place, so a reader
 * (or a crash) never sees a partial blob and concurrent writers of the same
 * bytes cannot corrupt each other.
 */
export class FileMediaStore implements MediaStore {
  /** The hash-prefix directories this store made or found (mkdir once per directory and process). */
  private readonly directories = new Set<string>();

  constructor(readonly root: string) {}

  get description(): string {
    return `directory ${this.root}`;
  }

  pathOf(sha256: string): string {
    return join(this.root, sha256.slice(0, 2), sha256);
  }

  async put(bytes: Buffer): Promise<{ sha256: string; size: number }> {
    const sha256 = sha256Hex(bytes);
    const path = this.pathOf(sha256);
    const result = { sha256, size: bytes.length };
    try {
      // Same name means same content; a size mismatch can only be damage, so rewrite it.
      if ((await stat(path)).size === bytes.length) return result;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const directory = join(this.root, sha256.slice(0, 2));
    if (!this.directories.has(directory)) {
      await mkdir(directory, { recursive: true });
      this.directories.add(directory);
    }
    const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
    try {
      const handle = await open(temporary, 'wx').catch(async (error: unknown) => {
        // The directory went away since this process made it (an operator's cleanup): make it again.
        if (!isNotFound(error)) throw error;
        await mkdir(directory, { recursive: true });
        return open(temporary, 'wx');
      });
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    // The new name is durable only once its directory is: the evidence row that
    // points at this blob may commit right after.
    const dir = await open(directory, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
    return result;
  }

  /**
   * null for an unknown or malformed hash. Throws when the stored bytes no
   * longer hash to their name: damaged evidence must not be served as genuine.
   */
  async get(sha256: string): Promise<Buffer | null> {
    if (!SHA256_HEX.test(sha256)) return null;
    let bytes: Buffer;
    try {
      bytes = await readFile(this.pathOf(sha256));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
    if (sha256Hex(bytes) !== sha256) throw new MediaIntegrityError(sha256);
    return bytes;
  }

  async open(sha256: string): Promise<VerifiedMedia | null> {
    if (!SHA256_HEX.test(sha256)) return null;
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(sha256), 'r');
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
    try {
      const found = await hashStream(handle.createReadStream({ start: 0, autoClose: false }));
      if (found.sha256 !== sha256) throw new MediaIntegrityError(sha256);
      return verifiedFromHandle(handle, found.size);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  async delete(sha256: string): Promise<void> {
    if (!SHA256_HEX.test(sha256)) return;
    try {
      await unlink(this.pathOf(sha256));
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  async check(): Promise<void> {
    await mkdir(this.root, { recursive: true });
  }
}
