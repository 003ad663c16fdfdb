/**
 * Password hashing: argon2id through @node-rs/argon2 (prebuilt per-platform
 * npm packages, no install script, runs off the event loop on libuv's pool).
 * Parameters are OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane); the
 * PHC string carries them, so raising them later still verifies old hashes.
 */
import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` (a const enum, which isolatedModules cannot read). */
const ARGON2ID = 2;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

let dummy: Promise<string> | null = null;

/**
 * Verifies `password` against `stored`; with no stored hash (unknown email,
 * no password yet) it verifies against a dummy hash, so both answers take
 * the same time.
 */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    dummy ??= hash('not a password of anyone', OPTIONS);
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
