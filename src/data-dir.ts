/**
 * Where the service keeps its data by default (DATA_DIR unset), and the one
 * rule of "can the postgres user reach this directory" that `npm start` and
 * `npm test` share (docs/operations.md, "Running as root").
 *
 * As root, the embedded PostgreSQL runs as the `postgres` user, which must
 * be able to search every directory above its data. A checkout inside a
 * private directory (`/root/app`, `mktemp -d`) fails that. Then the default
 * DATA_DIR is not `./data` but a durable directory of this checkout's own
 * under /var/lib/profile-scan (its name keeps the checkout's name and a hash
 * of its path), so a later start from the same checkout finds the same
 * data. A DATA_DIR the operator set is never moved.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Where data goes for root in a private checkout. */
export const ROOT_DATA_PARENT = '/var/lib/profile-scan';

/** The first directory above `dir` (excluded) that other users cannot search, or null. Only meaningful for root. */
export function privateAncestor(dir: string): string | null {
  for (let current = path.dirname(path.resolve(dir)); ; current = path.dirname(current)) {
    try {
      if ((fs.statSync(current).mode & 0o001) === 0) return current;
    } catch {
      return null; // Not created yet above here: nothing blocks.
    }
    if (path.dirname(current) === current) return null;
  }
}

/** A short, stable name for the checkout at `cwd`: its base name and a hash of its path. */
export function checkoutKey(cwd: string): string {
  const base =
    path
      .basename(cwd)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'checkout';
  return `${base}-${createHash('sha256').update(path.resolve(cwd)).digest('hex').slice(0, 12)}`;
}

export interface DefaultDataDir {
  dir: string;
  /** Why it is not ./data (said at start), or null. */
  reason: string | null;
}

/** The DATA_DIR used when none is set. */
export function defaultDataDir(cwd: string, isRoot = process.getuid?.() === 0): DefaultDataDir {
  const local = path.resolve(cwd, 'data');
  if (!isRoot) return { dir: local, reason: null };
  // Data already there (an earlier start that could use it) stays where it is.
  if (fs.existsSync(path.join(local, 'postgres', 'PG_VERSION'))) return { dir: local, reason: null };
  const blocking = privateAncestor(local);
  if (blocking === null) return { dir: local, reason: null };
  const dir = path.join(ROOT_DATA_PARENT, checkoutKey(cwd));
  return {
    dir,
    reason:
      `running as root in ${cwd}, which the "postgres" user of the embedded PostgreSQL cannot reach (${blocking} is private): ` +
      `data is kept in ${dir} (set DATA_DIR to choose another place)`,
  };
}
