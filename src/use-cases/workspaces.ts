/**
 * The workspaces of one account: the list the header's switcher shows,
 * switching the session's current workspace, a new workspace from the web
 * (when the operator allows it: WEB_WORKSPACE_CREATION) and renaming one (its
 * owners). A workspace the account does not belong to is never named: a
 * switch to it is 404, like any page of it.
 */
import type { Clock } from '../clock.js';
import { can } from '../domain/permissions.js';
import { isTokenShaped, tokenHash } from '../domain/web-tokens.js';
import { apiError, notFound } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import { listMemberships, type Membership } from '../store/member-repository.js';
import { switchSessionWorkspace } from '../store/session-repository.js';
import { retryingTransaction } from '../store/transaction.js';
import { findWorkspace, insertWorkspace, updateWorkspace, type WorkspaceRow } from '../store/workspace-repository.js';
import type { Actor } from './workspace-members.js';

export type { Membership };

export interface WorkspacesContext {
  db: Db;
  clock: Clock;
}

/** Who may create workspaces: anyone signed in (on the web), or the operator only (the CLI). */
export type WorkspaceCreation = 'signed-in' | 'operator';

export const WORKSPACE_NAME_MAX = 120;

function workspaceName(raw: string): string {
  const name = raw.trim().replace(/\s+/g, ' ');
  if (name.length < 1 || name.length > WORKSPACE_NAME_MAX) {
    throw apiError('validation_failed', `Enter a workspace name (1 to ${WORKSPACE_NAME_MAX} characters).`);
  }
  return name;
}

export async function listWorkspaces(ctx: WorkspacesContext, accountId: string): Promise<Membership[]> {
  return listMemberships(ctx.db, accountId);
}

/** Makes `workspaceId` the session's current workspace; 404 when the account does not belong to it. */
export async function switchWorkspace(
  ctx: WorkspacesContext,
  sessionToken: string | null | undefined,
  accountId: string,
  workspaceId: string,
): Promise<Membership> {
  const membership = (await listMemberships(ctx.db, accountId)).find((m) => m.workspaceId === workspaceId);
  if (!membership || !isTokenShaped(sessionToken)) throw notFound('workspace');
  await switchSessionWorkspace(ctx.db, tokenHash(sessionToken), membership.userId, membership.workspaceId);
  return membership;
}

/**
 * A new workspace whose owner is the signed-in account, with the name it has
 * in the current workspace. Refused (403) when the operator keeps creation
 * to the command line.
 */
export async function createWorkspaceFor(
  ctx: WorkspacesContext,
  creation: WorkspaceCreation,
  account: { accountId: string; name: string },
  rawName: string,
): Promise<WorkspaceRow> {
  if (creation !== 'signed-in') {
    throw apiError('forbidden', 'On this installation, new workspaces are created by the operator. Nothing was changed.');
  }
  const name = workspaceName(rawName);
  return retryingTransaction(ctx.db, (trx) => insertWorkspace(trx, name, ctx.clock.now(), account));
}

/** Renames the actor's workspace (owners only; the slug stays, as API clients may hold it). */
export async function renameWorkspace(ctx: WorkspacesContext, actor: Actor, rawName: string): Promise<WorkspaceRow> {
  if (!can(actor.role, 'rename_workspace')) throw apiError('forbidden', 'Only owners can rename the workspace. Nothing was changed.');
  const name = workspaceName(rawName);
  const workspace = await updateWorkspace(ctx.db, actor.workspaceId, { name }, ctx.clock.now());
  if (!workspace) throw notFound('workspace');
  return workspace;
}

/** The workspace a key or a session acts in, or undefined when it is gone. */
export async function readWorkspace(db: Db, workspaceId: string): Promise<WorkspaceRow | undefined> {
  return findWorkspace(db, workspaceId);
}
