/**
 * What the service itself keeps in the store: the secret its cursors are
 * signed with (configured, or made once and kept so every process signs
 * alike) and whether migrations are pending (readiness, http/ops.ts).
 */
import type { Db } from '../store/database.js';
import { pendingMigrations } from '../store/health-repository.js';
import { cursorSecret } from '../store/settings-repository.js';

/** The cursor signing secret: the configured one, else the one kept in the store (made on first use). */
export async function signingSecret(db: Db, configured: string | null): Promise<string> {
  return cursorSecret(db, configured);
}

/** How many migrations the code has that the database has not applied. */
export async function migrationsPending(db: Db): Promise<number> {
  return pendingMigrations(db);
}
