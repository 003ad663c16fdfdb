/**
 * Accounts (who signs in: an email and a password, migration 0049), their
 * memberships (`users`: one account in one workspace, with a role) and their
 * one-time links. Every query that takes a workspace id is scoped by it.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Role } from '../domain/web-tokens.js';
import type { AccessLinksTable, AccountsTable, Database, UsersTable } from './schema.js';

export type AccountRow = Selectable<AccountsTable>;
/** A membership with its account's sign-in email and password hash. */
export type UserRow = Selectable<UsersTable> & Pick<AccountRow, 'email' | 'password_hash' | 'password_changed_at'>;
export type AccessLinkRow = Selectable<AccessLinksTable>;

/**
 * Which membership to find: in a workspace (the members pages), or by id
 * alone (a signed-in session or a one-time link names the membership it
 * belongs to).
 */
export type UserKey = { workspaceId: string; userId: string } | { anyWorkspace: true; userId: string };

function users(db: Kysely<Database>) {
  return db
    .selectFrom('users as u')
    .innerJoin('accounts as a', 'a.id', 'u.account_id')
    .selectAll('u')
    .select(['a.email', 'a.password_hash', 'a.password_changed_at'])
    .where('u.removed_at', 'is', null);
}

/** The one way to read a membership: active (not removed) ones only; undefined when there is none for `key`. */
export async function findUser(db: Kysely<Database>, key: UserKey, options: { forUpdate?: boolean } = {}): Promise<UserRow | undefined> {
  return users(db)
    .where('u.id', '=', key.userId)
    .$if('workspaceId' in key, (qb) => qb.where('u.workspace_id', '=', (key as { workspaceId: string }).workspaceId))
    .$if(options.forUpdate === true, (qb) => qb.forUpdate())
    .executeTakeFirst();
}

/** An account by its sign-in email (case-insensitive; an email names one account). */
export async function findAccountByEmail(db: Kysely<Database>, email: string): Promise<AccountRow | undefined> {
  return db
    .selectFrom('accounts')
    .selectAll()
    .where(sql<boolean>`lower(email) = ${email.toLowerCase()}`)
    .executeTakeFirst();
}

export interface Membership {
  userId: string;
  workspaceId: string;
  workspaceName: string;
  role: Role;
}

/** The workspaces an account belongs to (active memberships), by workspace name. */
export async function listMemberships(db: Kysely<Database>, accountId: string): Promise<Membership[]> {
  const rows = await db
    .selectFrom('users as u')
    .innerJoin('workspaces as w', 'w.id', 'u.workspace_id')
    .select(['u.id', 'u.workspace_id', 'u.role', 'w.name'])
    .where('u.account_id', '=', accountId)
    .where('u.removed_at', 'is', null)
    .orderBy('w.name')
    .orderBy('w.id')
    .execute();
  return rows.map((r) => ({ userId: r.id, workspaceId: r.workspace_id, workspaceName: r.name, role: r.role }));
}

export async function listMembers(db: Kysely<Database>, workspaceId: string): Promise<UserRow[]> {
  return users(db).where('u.workspace_id', '=', workspaceId).orderBy('u.created_at').orderBy('u.id').execute();
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

export async function insertAccount(db: Kysely<Database>, input: { email: string | null; passwordHash: string | null }, now: Date): Promise<AccountRow> {
  return db
    .insertInto('accounts')
    .values({
      id: randomUUID(),
      email: input.email,
      password_hash: input.passwordHash,
      password_changed_at: input.passwordHash ? now : null,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A membership of `accountId` in a workspace (a new account when `accountId` is null). */
export async function insertUser(
  db: Kysely<Database>,
  input: { workspaceId: string; name: string; role: Role } & ({ accountId: string } | { accountId: null; email: string | null; passwordHash: string | null }),
  now: Date,
): Promise<UserRow> {
  const account = input.accountId === null ? await insertAccount(db, { email: input.email, passwordHash: input.passwordHash }, now) : null;
  const row = await db
    .insertInto('users')
    .values({
      id: randomUUID(),
      workspace_id: input.workspaceId,
      account_id: account?.id ?? input.accountId!,
      name: input.name,
      role: input.role,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return (await findUser(db, { anyWorkspace: true, userId: row.id }))!;
}

/** Sets the account's password (and email), and the membership's name. */
export async function setCredentials(
  db: Kysely<Database>,
  userId: string,
  changes: { name?: string; email?: string; passwordHash: string },
  now: Date,
): Promise<UserRow | undefined> {
  const user = await findUser(db, { anyWorkspace: true, userId });
  if (!user) return undefined;
  if (changes.name !== undefined) await db.updateTable('users').set({ name: changes.name }).where('id', '=', userId).execute();
  await db
    .updateTable('accounts')
    .set({
      ...(changes.email !== undefined ? { email: changes.email } : {}),
      password_hash: changes.passwordHash,
      password_changed_at: now,
    })
    .where('id', '=', user.account_id)
    .execute();
  return findUser(db, { anyWorkspace: true, userId });
}

export async function setRole(db: Kysely<Database>, workspaceId: string, userId: string, role: Role): Promise<UserRow | undefined> {
  await db.updateTable('users').set({ role }).where('id', '=', userId).where('workspace_id', '=', workspaceId).where('removed_at', 'is', null).execute();
  return findUser(db, { workspaceId, userId });
}

export async function markRemoved(db: Kysely<Database>, workspaceId: string, userId: string, now: Date): Promise<Selectable<UsersTable> | undefined> {
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
