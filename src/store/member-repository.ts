/**
 * Users of a workspace as people who sign in (migration 0020) and their
 * one-time links. Every query that takes a workspace id is scoped by it.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Role } from '../domain/web-tokens.js';
import type { AccessLinksTable, Database, UsersTable } from './schema.js';

export type UserRow = Selectable<UsersTable>;
export type AccessLinkRow = Selectable<AccessLinksTable>;

/**
 * Which user to find: in a workspace (the members pages), by sign-in email
 * (case-insensitive; emails are unique across workspaces), or by id alone (a
 * signed-in session or a one-time link names the user it belongs to).
 */
export type UserKey = { workspaceId: string; userId: string } | { email: string } | { anyWorkspace: true; userId: string };

/** The one way to read a user: active (not removed) users only; undefined when there is none for `key`. */
export async function findUser(db: Kysely<Database>, key: UserKey, options: { forUpdate?: boolean } = {}): Promise<UserRow | undefined> {
  let query = db.selectFrom('users').selectAll().where('removed_at', 'is', null);
  if ('email' in key) {
    query = query.where(sql<boolean>`lower(email) = ${key.email.toLowerCase()}`);
  } else {
    query = query.where('id', '=', key.userId);
    if ('workspaceId' in key) query = query.where('workspace_id', '=', key.workspaceId);
  }
  return query.$if(options.forUpdate === true, (qb) => qb.forUpdate()).executeTakeFirst();
}

export async function listMembers(db: Kysely<Database>, workspaceId: string): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('removed_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Owners of the workspace, locked: role changes and removals serialize on them. */
export async function lockOwners(db: Kysely<Database>, workspaceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .where('removed_at', 'is', null)
    .forUpdate()
    .execute();
  return rows.map((r) => r.id);
}

export async function insertUser(
  db: Kysely<Database>,
  input: { workspaceId: string; name: string; email: string | null; role: Role; passwordHash: string | null },
  now: Date,
): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({
      id: randomUUID(),
      workspace_id: input.workspaceId,
      name: input.name,
      role: input.role,
      email: input.email,
      password_hash: input.passwordHash,
      password_changed_at: input.passwordHash ? now : null,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function setCredentials(
  db: Kysely<Database>,
  userId: string,
  changes: { name?: string; email?: string; passwordHash: string },
  now: Date,
): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.email !== undefined ? { email: changes.email } : {}),
      password_hash: changes.passwordHash,
      password_changed_at: now,
    })
    .where('id', '=', userId)
    .where('removed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function setRole(db: Kysely<Database>, workspaceId: string, userId: string, role: Role): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({ role })
    .where('id', '=', userId)
    .where('workspace_id', '=', workspaceId)
    .where('removed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function markRemoved(db: Kysely<Database>, workspaceId: string, userId: string, now: Date): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({ removed_at: now })
    .where('id', '=', userId)
    .where('workspace_id', '=', workspaceId)
    .where('removed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function insertLink(
  db: Kysely<Database>,
  input: {
    tokenHash: Buffer;
    workspaceId: string;
    purpose: 'sign_in' | 'invitation';
    userId: string | null;
    role: Role | null;
    label: string | null;
    createdBy: string | null;
    expiresAt: Date;
  },
  now: Date,
): Promise<AccessLinkRow> {
  return db
    .insertInto('access_links')
    .values({
      id: randomUUID(),
      token_hash: input.tokenHash,
      workspace_id: input.workspaceId,
      purpose: input.purpose,
      user_id: input.userId,
      role: input.role,
      label: input.label,
      created_by: input.createdBy,
      created_at: now,
      expires_at: input.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A link that can still be redeemed (unused, not revoked, not expired), with its workspace's name. */
export async function findUsableLink(db: Kysely<Database>, tokenHash: Buffer, now: Date, options: { forUpdate?: boolean } = {}) {
  return db
    .selectFrom('access_links as l')
    .innerJoin('workspaces as w', 'w.id', 'l.workspace_id')
    .selectAll('l')
    .select('w.name as workspace_name')
    .where('l.token_hash', '=', tokenHash)
    .where('l.used_at', 'is', null)
    .where('l.revoked_at', 'is', null)
    .where('l.expires_at', '>', now)
    .$if(options.forUpdate === true, (qb) => qb.forUpdate('l'))
    .executeTakeFirst();
}

export async function markLinkUsed(db: Kysely<Database>, linkId: string, now: Date): Promise<boolean> {
  const result = await db.updateTable('access_links').set({ used_at: now }).where('id', '=', linkId).where('used_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function listPendingInvitations(db: Kysely<Database>, workspaceId: string, now: Date): Promise<AccessLinkRow[]> {
  return db
    .selectFrom('access_links')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('purpose', '=', 'invitation')
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();
}

export async function revokeLink(db: Kysely<Database>, workspaceId: string, linkId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('access_links')
    .set({ revoked_at: now })
    .where('id', '=', linkId)
    .where('workspace_id', '=', workspaceId)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Unused links of a user (sign-in links), revoked when the user is removed. */
export async function revokeUserLinks(db: Kysely<Database>, userId: string, now: Date): Promise<void> {
  await db
    .updateTable('access_links')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .execute();
}
