/**
 * API keys from the workspace settings (contract 5.1: "issued in the
 * workspace settings by a workspace owner or admin"): list with last use,
 * issue (the secret is returned once), revoke (the next API request with it
 * is refused, in every process: nothing is cached).
 */
import type { Clock } from '../clock.js';
import { parseScopes } from '../domain/keys.js';
import { apiError, notFound } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import { listWorkspaceKeys, revokeWorkspaceKey, type KeyListRow } from '../store/key-repository.js';
import { createKey, type CreatedKey } from '../store/workspace-repository.js';
import { requireManager, type Actor } from './workspace-members.js';

export interface KeysContext {
  db: Db;
  clock: Clock;
}

export type { KeyListRow };

export async function listKeys(ctx: KeysContext, actor: Actor): Promise<KeyListRow[]> {
  requireManager(actor);
  return listWorkspaceKeys(ctx.db, actor.workspaceId);
}

/** Issues a key that belongs to the acting user. */
export async function issueKey(ctx: KeysContext, actor: Actor, input: { scopes: string[]; mode: string }): Promise<CreatedKey> {
  requireManager(actor);
  if (input.mode !== 'test' && input.mode !== 'live') throw apiError('validation_failed', 422, 'Choose a test or a live key.');
  let scopes;
  try {
    scopes = parseScopes(input.scopes.join(','));
  } catch {
    throw apiError('validation_failed', 422, 'Choose at least one scope.');
  }
  return createKey(ctx.db, { workspaceId: actor.workspaceId, userId: actor.userId, scopes, mode: input.mode }, ctx.clock.now());
}

export async function revokeKey(ctx: KeysContext, actor: Actor, keyId: string): Promise<void> {
  requireManager(actor);
  if (!(await revokeWorkspaceKey(ctx.db, actor.workspaceId, keyId, ctx.clock.now()))) throw notFound('key');
}
