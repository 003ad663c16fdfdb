/**
 * API keys: issuing one (its secret is returned once, only its hash is
 * kept), the list with owner and last use as the workspace settings show it,
 * revocation (by an operator, or scoped by workspace), and the last-use stamp.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { generateSecret, hashSecret, type KeyMode, type Scope } from '../domain/keys.js';
import type { Database } from './schema.js';

export interface CreatedKey {
  id: string;
  user_id: string;
  workspace_id: string;
  secret: string;
  scopes: string[];
  mode: KeyMode;
}

/**
 * Issues a key for the workspace's user `userId`, or for its first user; one
 * statement (the user is read by the INSERT itself). null: no such user in
 * this workspace (or no such workspace).
 */
export async function insertKey(
  db: Kysely<Database>,
  input: { workspaceId: string; userId?: string; scopes: Scope[]; mode: KeyMode },
  now: Date,
): Promise<CreatedKey | null> {
  const secret = generateSecret(input.mode);
  const id = randomUUID();
  const scopes = [...new Set(input.scopes)].sort();
  const row = await db
    .insertInto('api_keys')
    .columns(['id', 'workspace_id', 'user_id', 'mode', 'scopes', 'secret_hash', 'secret_prefix', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select([
          eb.val(id).as('id'),
          eb.val(input.workspaceId).as('workspace_id'),
          'users.id as user_id',
          eb.val(input.mode).as('mode'),
          eb.val(scopes).as('scopes'),
          eb.val(hashSecret(secret)).as('secret_hash'),
          eb.val(secret.slice(0, 13)).as('secret_prefix'),
          eb.val(now).as('created_at'),
        ])
        .where('users.workspace_id', '=', input.workspaceId)
        .$if(input.userId !== undefined, (qb) => qb.where('users.id', '=', input.userId!))
        .orderBy('users.created_at')
        .limit(1),
    )
    .returning('user_id')
    .executeTakeFirst();
  if (!row) return null;
  return { id, user_id: row.user_id, workspace_id: input.workspaceId, secret, scopes, mode: input.mode };
}

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

/**
 * Revokes a key (at once: the next request with it is refused in every
 * process); with `workspaceId`, only a key of that workspace. Null when there
 * is no such key. Revoking a revoked key keeps its first revocation time.
 */
export async function revokeKey(
  db: Kysely<Database>,
  keyId: string,
  now: Date,
  scope: { workspaceId?: string } = {},
): Promise<{ id: string; revoked_at: Date } | null> {
  const row = await db
    .updateTable('api_keys')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)) }))
    .where('id', '=', keyId)
    .$if(scope.workspaceId !== undefined, (qb) => qb.where('workspace_id', '=', scope.workspaceId!))
    .returning(['id', 'revoked_at'])
    .executeTakeFirst();
  return row ? { id: row.id, revoked_at: row.revoked_at! } : null;
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

/** A key as authorization reads it (store/rate-limit-repository.ts): with its workspace's access and write limits. */
export interface AuthenticatedKey {
  key_id: string;
  user_id: string;
  workspace_id: string;
  mode: KeyMode;
  scopes: string[];
  revoked: boolean;
  api_access: boolean;
  writes_per_minute_per_key: number | null;
  writes_per_minute_per_workspace: number | null;
  submitted_profiles_per_minute_per_workspace: number | null;
}
