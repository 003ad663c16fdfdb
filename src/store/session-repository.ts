/**
 * Web sessions in PostgreSQL (migration 0020). Looked up by the SHA-256 of
 * the cookie's token; a session of a removed user is never found.
 */
import type { Kysely } from 'kysely';
import type { Role } from '../domain/web-tokens.js';
import type { Database } from './schema.js';

export interface SessionUser {
  /** The membership in the session's current workspace. */
  userId: string;
  accountId: string;
  workspaceId: string;
  workspaceName: string;
  name: string;
  email: string | null;
  role: Role;
  lastSeenAt: Date;
}

export async function insertSession(
  db: Kysely<Database>,
  input: { tokenHash: Buffer; userId: string; workspaceId: string; expiresAt: Date },
  now: Date,
): Promise<void> {
  await db
    .insertInto('web_sessions')
    .values({
      token_hash: input.tokenHash,
      user_id: input.userId,
      workspace_id: input.workspaceId,
      created_at: now,
      last_seen_at: now,
      expires_at: input.expiresAt,
    })
    .execute();
}

/** The session's user when the session exists, has not expired or idled out, and the user is active. */
export async function findSessionUser(db: Kysely<Database>, tokenHash: Buffer, now: Date, idleSince: Date): Promise<SessionUser | undefined> {
  const row = await db
    .selectFrom('web_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('workspaces as w', 'w.id', 's.workspace_id')
    .innerJoin('accounts as a', 'a.id', 'u.account_id')
    .select(['s.user_id', 's.workspace_id', 's.last_seen_at', 'u.name', 'a.email', 'u.role', 'u.account_id', 'w.name as workspace_name'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', now)
    .where('s.last_seen_at', '>', idleSince)
    .where('u.removed_at', 'is', null)
    .whereRef('u.workspace_id', '=', 's.workspace_id')
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    userId: row.user_id,
    accountId: row.account_id,
    workspaceId: row.workspace_id,
    workspaceName: row.workspace_name,
    name: row.name,
    email: row.email,
    role: row.role,
    lastSeenAt: row.last_seen_at,
  };
}

export async function touchSession(db: Kysely<Database>, tokenHash: Buffer, now: Date): Promise<void> {
  await db.updateTable('web_sessions').set({ last_seen_at: now }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(db: Kysely<Database>, tokenHash: Buffer): Promise<void> {
  await db.deleteFrom('web_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Moves a session to another workspace: `userId` is the account's membership there. */
export async function switchSessionWorkspace(db: Kysely<Database>, tokenHash: Buffer, userId: string, workspaceId: string): Promise<void> {
  await db.updateTable('web_sessions').set({ user_id: userId, workspace_id: workspaceId }).where('token_hash', '=', tokenHash).execute();
}

/** Every session of an account, whichever workspace it is in (a password change or reset). */
export async function deleteAccountSessions(db: Kysely<Database>, accountId: string): Promise<void> {
  await db
    .deleteFrom('web_sessions')
    .where('user_id', 'in', (eb) => eb.selectFrom('users').select('id').where('account_id', '=', accountId))
    .execute();
}

export async function deleteUserSessions(db: Kysely<Database>, userId: string): Promise<number> {
  const result = await db.deleteFrom('web_sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function pruneSessions(db: Kysely<Database>, now: Date, idleSince: Date): Promise<number> {
  const result = await db
    .deleteFrom('web_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleSince)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
