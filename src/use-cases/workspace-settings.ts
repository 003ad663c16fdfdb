/**
 * A workspace: its creation (the operator's CLI, the first start), the
 * workspace as its settings page shows it (name, API access and the effective
 * limits, the same values `/context.limits` shows a key), and changes to API
 * access and the write limits, by an owner or admin or by the operator.
 */
import type { Clock } from '../clock.js';
import { effectiveLimits, isWorkspaceLimit, WORKSPACE_LIMIT_RANGE, type WorkspaceLimits } from '../domain/rate-limits.js';
import { apiError, notFound } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import { retryingTransaction } from '../store/transaction.js';
import { findWorkspace, insertWorkspace, updateWorkspace, type WorkspaceChanges, type WorkspaceRow } from '../store/workspace-repository.js';
import { requireManager, type Actor } from './workspace-members.js';

export interface SettingsContext {
  db: Db;
  clock: Clock;
  readLimitMultiplier: number;
}

export interface WorkspaceView {
  workspace: WorkspaceRow;
  limits: WorkspaceLimits;
}

export async function readWorkspace(ctx: SettingsContext, actor: Actor): Promise<WorkspaceView> {
  const workspace = await findWorkspace(ctx.db, actor.workspaceId);
  if (!workspace) throw notFound('workspace');
  return { workspace, limits: effectiveLimits(workspace, ctx.readLimitMultiplier) };
}

/** A new workspace with a free slug and its first owner, in one transaction. */
export async function createWorkspace(db: Db, name: string, now: Date): Promise<WorkspaceRow> {
  return retryingTransaction(db, (trx) => insertWorkspace(trx, name, now));
}

/** Changes API access and the write limits (null: back to the default); undefined when there is no such workspace. */
export async function changeWorkspace(db: Db, workspaceId: string, changes: WorkspaceChanges, now: Date): Promise<WorkspaceRow | undefined> {
  for (const value of [changes.writes_per_minute_per_key, changes.writes_per_minute_per_workspace, changes.submitted_profiles_per_minute_per_workspace]) {
    if (value !== undefined && value !== null && !isWorkspaceLimit(value)) {
      throw apiError(
        'validation_failed',
        `Limits are whole numbers from ${WORKSPACE_LIMIT_RANGE.min} to ${WORKSPACE_LIMIT_RANGE.max.toLocaleString('en')} (or empty for the default).`,
      );
    }
  }
  return updateWorkspace(db, workspaceId, changes, now);
}

export async function updateWorkspaceSettings(ctx: SettingsContext, actor: Actor, changes: WorkspaceChanges): Promise<WorkspaceView> {
  requireManager(actor);
  const workspace = await changeWorkspace(ctx.db, actor.workspaceId, changes, ctx.clock.now());
  if (!workspace) throw notFound('workspace');
  return { workspace, limits: effectiveLimits(workspace, ctx.readLimitMultiplier) };
}
