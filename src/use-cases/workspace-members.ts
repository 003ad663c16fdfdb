/**
 * Members of a workspace (people who sign in): the list,
 * invitations as one-time links to copy (no mail server is assumed), role
 * changes and removal; and the operator's stories behind `admin user create`,
 * `admin user link` and the first start's sign-in link.
 *
 * Owners and admins manage members; admins never act on owners nor make
 * one; the last owner can neither be demoted nor removed. Removing a member
 * ends their sessions, revokes their keys and their unused links.
 */
import type { Clock } from '../clock.js';
import { can } from '../domain/permissions.js';
import { canAssign, newToken, normalizeEmail, tokenHash, type Role } from '../domain/web-tokens.js';
import { apiError, notFound } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import { recordAudit } from '../store/audit-repository.js';
import { revokeUserKeys } from '../store/key-repository.js';
import {
  findAccountByEmail,
  findUser,
  insertLink,
  insertUser,
  listMembers as listMemberRows,
  listPendingInvitations,
  lockOwners,
  markRemoved,
  revokeLink,
  revokeUserLinks,
  setRole,
  type AccessLinkRow,
  type UserRow,
} from '../store/member-repository.js';
import { deleteUserSessions } from '../store/session-repository.js';
import { retryingTransaction } from '../store/transaction.js';

export interface MembersContext {
  db: Db;
  clock: Clock;
}

/** The signed-in person acting. */
export interface Actor {
  userId: string;
  workspaceId: string;
  role: Role;
}

export const INVITATION_LIFETIME_MS = 7 * 24 * 3600_000;
export const SIGN_IN_LINK_LIFETIME_MS = 3 * 24 * 3600_000;

/** Path of a one-time link; interfaces put their base URL in front. */
export function accessLinkPath(token: string): string {
  return `/links/${token}`;
}

export function requireManager(actor: Actor): void {
  if (!can(actor.role, 'manage_workspace')) throw apiError('forbidden', 'Only owners and admins can do this.');
}

export interface Member {
  id: string;
  name: string;
  email: string | null;
  role: Role;
  created_at: Date;
  signed_up: boolean;
}

const member = (row: UserRow): Member => ({
  id: row.id,
  name: row.name,
  email: row.email,
  role: row.role,
  created_at: row.created_at,
  signed_up: row.password_hash !== null,
});

/** Every member sees who is in the workspace; only managers change it. */
export async function listMembers(ctx: MembersContext, actor: Actor): Promise<Member[]> {
  return (await listMemberRows(ctx.db, actor.workspaceId)).map(member);
}

export interface Invitation {
  id: string;
  role: Role;
  label: string | null;
  created_at: Date;
  expires_at: Date;
}

export async function listInvitations(ctx: MembersContext, actor: Actor): Promise<Invitation[]> {
  requireManager(actor);
  const rows = await listPendingInvitations(ctx.db, actor.workspaceId, ctx.clock.now());
  return rows.map((r: AccessLinkRow) => ({ id: r.id, role: r.role!, label: r.label, created_at: r.created_at, expires_at: r.expires_at }));
}

/** Creates an invitation; returns its one-time token (shown once, only its hash is stored). */
export async function inviteMember(
  ctx: MembersContext,
  actor: Actor,
  input: { role: Role; label: string | null },
): Promise<{ token: string; invitation: Invitation }> {
  requireManager(actor);
  if (!canAssign(actor.role, null, input.role)) throw apiError('forbidden', 'Only owners can invite owners.');
  const label = input.label?.trim() ? input.label.trim().slice(0, 200) : null;
  const token = newToken();
  const now = ctx.clock.now();
  const row = await insertLink(
    ctx.db,
    {
      tokenHash: tokenHash(token),
      workspaceId: actor.workspaceId,
      purpose: 'invitation',
      userId: null,
      role: input.role,
      label,
      createdBy: actor.userId,
      expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS),
    },
    now,
  );
  return { token, invitation: { id: row.id, role: input.role, label, created_at: row.created_at, expires_at: row.expires_at } };
}

export async function revokeInvitation(ctx: MembersContext, actor: Actor, invitationId: string): Promise<void> {
  requireManager(actor);
  if (!(await revokeLink(ctx.db, actor.workspaceId, invitationId, ctx.clock.now()))) throw notFound('invitation');
}

export async function changeRole(ctx: MembersContext, actor: Actor, userId: string, role: Role): Promise<Member> {
  requireManager(actor);
  return retryingTransaction(ctx.db, async (trx) => {
    const owners = await lockOwners(trx, actor.workspaceId);
    const target = await findUser(trx, { workspaceId: actor.workspaceId, userId }, { forUpdate: true });
    if (!target) throw notFound('member');
    if (!canAssign(actor.role, target.role, role)) throw apiError('forbidden', 'Only owners can change an owner or make someone an owner.');
    if (target.role === 'owner' && role !== 'owner' && owners.length <= 1) {
      throw apiError('validation_failed', 'The workspace needs at least one owner: make someone else an owner first.');
    }
    const changed = member((await setRole(trx, actor.workspaceId, userId, role))!);
    if (target.role !== role) {
      await recordAudit(trx, {
        at: ctx.clock.now(),
        workspaceId: actor.workspaceId,
        actor: { kind: 'user', userId: actor.userId },
        action: `role_to_${role}`,
        objectKind: 'member',
        objectId: userId,
      });
    }
    return changed;
  });
}

/** Throws what removing this member would be refused with (not allowed, no such member); the web asks to confirm only after it. */
export async function checkMemberRemoval(ctx: MembersContext, actor: Actor, userId: string): Promise<void> {
  requireManager(actor);
  refuseRemoval(actor, await findUser(ctx.db, { workspaceId: actor.workspaceId, userId }));
}

function refuseRemoval(actor: Actor, target: { role: Role } | undefined): asserts target {
  if (!target) throw notFound('member');
  if (!canAssign(actor.role, target.role, target.role)) throw apiError('forbidden', 'Only owners can remove an owner.');
}

export async function removeMember(ctx: MembersContext, actor: Actor, userId: string): Promise<void> {
  requireManager(actor);
  await retryingTransaction(ctx.db, async (trx) => {
    const owners = await lockOwners(trx, actor.workspaceId);
    const target = await findUser(trx, { workspaceId: actor.workspaceId, userId }, { forUpdate: true });
    refuseRemoval(actor, target);
    if (target.role === 'owner' && owners.length <= 1) throw apiError('validation_failed', 'The last owner cannot be removed.');
    const now = ctx.clock.now();
    await markRemoved(trx, actor.workspaceId, userId, now);
    await deleteUserSessions(trx, userId);
    await revokeUserKeys(trx, userId, now);
    await revokeUserLinks(trx, userId, now);
    await recordAudit(trx, {
      at: now,
      workspaceId: actor.workspaceId,
      actor: { kind: 'user', userId: actor.userId },
      action: 'remove_member',
      objectKind: 'member',
      objectId: userId,
    });
  });
}

async function signInLink(ctx: MembersContext, user: UserRow, createdBy: string | null): Promise<string> {
  const token = newToken();
  const now = ctx.clock.now();
  await insertLink(
    ctx.db,
    {
      tokenHash: tokenHash(token),
      workspaceId: user.workspace_id,
      purpose: 'sign_in',
      userId: user.id,
      role: null,
      label: null,
      createdBy,
      expiresAt: new Date(now.getTime() + SIGN_IN_LINK_LIFETIME_MS),
    },
    now,
  );
  return token;
}

/** Operator (`admin user create`): a user without a password yet, and a one-time link to set it. */
export async function createUserWithLink(
  ctx: MembersContext,
  input: { workspaceId: string; role: Role; name: string; email: string | null },
): Promise<{ user: Member; token: string }> {
  let email: string | null = null;
  if (input.email !== null) {
    email = normalizeEmail(input.email);
    if (!email) throw apiError('validation_failed', 'The email is not a valid address.');
    if (await findAccountByEmail(ctx.db, email)) throw apiError('validation_failed', 'That email already belongs to an account.');
  }
  const user = await insertUser(
    ctx.db,
    { workspaceId: input.workspaceId, accountId: null, name: input.name, email, role: input.role, passwordHash: null },
    ctx.clock.now(),
  );
  return { user: member(user), token: await signInLink(ctx, user, null) };
}

/** Operator (`admin user link`, first start): a one-time link that signs the user in after setting a password. */
export async function createSignInLink(ctx: MembersContext, userId: string): Promise<{ user: Member; token: string } | null> {
  const user = await findUser(ctx.db, { anyWorkspace: true, userId });
  if (!user) return null;
  return { user: member(user), token: await signInLink(ctx, user, null) };
}

/** The first owner of a workspace (the one `createWorkspace` made). */
export async function firstOwner(ctx: MembersContext, workspaceId: string): Promise<Member | null> {
  const rows = await listMemberRows(ctx.db, workspaceId);
  const owner = rows.find((r) => r.role === 'owner');
  return owner ? member(owner) : null;
}
