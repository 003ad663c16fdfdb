/**
 * The workspace as its settings page shows it: name, API access and the
 * effective limits (the same values `/context.limits` shows a key), and the
 * owners' and admins' changes to API access and the write limits.
 */
import type { Clock } from '../clock.js';
import { effectiveLimits, type WorkspaceLimits } from '../domain/rate-limits.js';
import { apiError, notFound } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import { findWorkspace, updateWorkspace, type WorkspaceChanges, type WorkspaceRow } from '../store/workspace-repository.js';
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

export async function updateWorkspaceSettings(ctx: SettingsContext, actor: Actor, changes: WorkspaceChanges): Promise<WorkspaceView> {
  requireManager(actor);
  for (const value of [changes.writes_per_minute_per_key, changes.writes_per_minute_per_workspace, changes.submitted_profiles_per_minute_per_workspace]) {
    if (value !== undefined && value !== null && (!Number.isInteger(value) || value < 1 || value > 1_000_000)) {
      throw apiError('validation_failed', 422, 'Limits are whole numbers from 1 to 1,000,000 (or empty for the default).');
    }
  }
  const workspace = await updateWorkspace(ctx.db, actor.workspaceId, changes, ctx.clock.now());
  if (!workspace) throw notFound('workspace');
  return { workspace, limits: effectiveLimits(workspace, ctx.readLimitMultiplier) };
}
