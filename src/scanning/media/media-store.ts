/**
 * Content-addressed storage of evidence media (screenshots and previews).
 *
 * A blob's name is the SHA-256 of its bytes, so storing the same bytes twice
 * is a no-op, and a reader can check what it got (decisions.md, Reading: "The
 * stored media's content hash is checked on read"). This module knows nothing
 * of images, reports or the database: the database records which hashes a
 * report's evidence refers to.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export interface MediaStore {
  /** Stores the bytes (idempotent) and returns their address. */
  put(bytes: Buffer): Promise<{ sha256: string; size: number }>;
  /** The bytes stored under `sha256`, or null when there are none. */
  get(sha256: string): Promise<Buffer | null>;
}

const SHA256_HEX = /^[0-9a-f]{64}$/u;

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/**
 * Files under `${root}/${hash[0..2]}/${hash}`. Writes go to a unique temporary
 * file in the same directory, are flushed, then renamed into place, so a reader
 * (or a crash) never sees a partial blob and concurrent writers of the same
 * bytes cannot corrupt each other.
 */
export class FileMediaStore implements MediaStore {
  constructor(readonly root: string) {}

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
    await mkdir(join(this.root, sha256.slice(0, 2)), { recursive: true });
    const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
    try {
      const handle = await open(temporary, 'wx');
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
    if (sha256Hex(bytes) !== sha256) throw new Error(`media store: content of ${sha256} does not match its hash`);
    return bytes;
  }
}
