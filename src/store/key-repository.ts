/**
 * API keys as the workspace settings show them: the list with owner and last
 * use, revocation scoped by workspace, and the last-use stamp.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface KeyListRow {
  id: string;
  user_id: string;
  user_name: string;
  mode: 'test' | 'live';
  scopes: string[];
  secret_prefix: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export async function listWorkspaceKeys(db: Kysely<Database>, workspaceId: string): Promise<KeyListRow[]> {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .select(['k.id', 'k.user_id', 'u.name as user_name', 'k.mode', 'k.scopes', 'k.secret_prefix', 'k.created_at', 'k.revoked_at', 'k.last_used_at'])
    .where('k.workspace_id', '=', workspaceId)
    .orderBy('k.revoked_at', (ob) => ob.desc().nullsFirst())
    .orderBy('k.created_at', 'desc')
    .orderBy('k.id')
    .execute();
}

/** Revokes a key of this workspace; null when the workspace has no such key. */
export async function revokeWorkspaceKey(db: Kysely<Database>, workspaceId: string, keyId: string, now: Date) {
  return (
    (await db
      .updateTable('api_keys')
      .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)) }))
      .where('id', '=', keyId)
      .where('workspace_id', '=', workspaceId)
      .returning(['id', 'revoked_at'])
      .executeTakeFirst()) ?? null
  );
}

export async function revokeUserKeys(db: Kysely<Database>, userId: string, now: Date): Promise<number> {
  const result = await db.updateTable('api_keys').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function recordKeyUse(db: Kysely<Database>, keyIds: string[], now: Date): Promise<void> {
  if (keyIds.length === 0) return;
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', 'in', keyIds)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now)]))
    .execute();
}
