/**
 * Instance-wide settings shared by every process (e.g. the cursor secret).
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Returns the stored value of `key`, creating it with `create()` on first use (race-safe). */
export async function getOrCreateSetting(db: Kysely<Database>, key: string, create: () => string): Promise<string> {
  await db
    .insertInto('settings')
    .values({ key, value: create() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}

export async function cursorSecret(db: Kysely<Database>, configured: string | null): Promise<string> {
  if (configured) return configured;
  return getOrCreateSetting(db, 'cursor_secret', () => randomBytes(32).toString('base64url'));
}
