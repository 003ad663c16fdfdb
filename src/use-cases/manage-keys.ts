/**
 * API keys (contract 5.1: "issued in the workspace settings by a workspace
 * owner or admin"): list with last use, issue (the secret is returned once),
 * revoke (the next API request with it is refused, in every process: nothing
 * is cached). A member of the workspace acts through the web settings, with
 * the role check; the operator (the `profile-scan admin` commands and the
 * first run, with access to the machine) acts for any workspace, without one.
 */
import type { Clock } from '../clock.js';
import { parseScopes } from '../domain/keys.js';
import { apiError, notFound } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import type { KeyMode, Scope } from '../domain/keys.js';
import { recordAudit, type AuditEntry } from '../store/audit-repository.js';
import { insertKey, listWorkspaceKeys, revokeKey as revokeStoredKey, type CreatedKey, type KeyListRow } from '../store/key-repository.js';
import { retryingTransaction } from '../store/transaction.js';
import { requireManager, type Actor } from './workspace-members.js';

export interface KeysContext {
  db: Db;
  clock: Clock;
}

export type { CreatedKey, KeyListRow };

export async function listKeys(ctx: KeysContext, actor: Actor): Promise<KeyListRow[]> {
  requireManager(actor);
  return listWorkspaceKeys(ctx.db, actor.workspaceId);
}

/** Issues a key that belongs to the acting user. */
export async function issueKey(ctx: KeysContext, actor: Actor, input: { scopes: string[]; mode: string }): Promise<CreatedKey> {
  requireManager(actor);
  if (input.mode !== 'test' && input.mode !== 'live') throw apiError('validation_failed', 'Choose a test or a live key.');
  let scopes;
  try {
    scopes = parseScopes(input.scopes.join(','));
  } catch {
    throw apiError('validation_failed', 'Choose at least one scope.');
  }
  return issue(ctx, { workspaceId: actor.workspaceId, userId: actor.userId, scopes, mode: input.mode }, { kind: 'user', userId: actor.userId });
}

/** Issues the key and records it in the audit log (its id, never its secret), in one transaction. */
async function issue(
  ctx: KeysContext,
  input: { workspaceId: string; userId?: string; scopes: Scope[]; mode: KeyMode },
  by: AuditEntry['actor'],
): Promise<CreatedKey> {
  const now = ctx.clock.now();
  return retryingTransaction(ctx.db, async (trx) => {
    const key = await insertKey(trx, input, now);
    if (!key) throw new Error(input.userId ? 'no such user in this workspace' : 'no such workspace');
    await recordAudit(trx, { at: now, workspaceId: input.workspaceId, actor: by, action: 'issue_key', objectKind: 'api_key', objectId: key.id });
    return key;
  });
}

/** Revokes the key and records it (once: revoking a revoked key records nothing); null when there is no such key. */
async function revoke(
  ctx: KeysContext,
  keyId: string,
  scope: { workspaceId?: string },
  by: AuditEntry['actor'],
): Promise<{ id: string; revoked_at: Date } | null> {
  const now = ctx.clock.now();
  return retryingTransaction(ctx.db, async (trx) => {
    const row = await revokeStoredKey(trx, keyId, now, scope);
    if (row && row.revoked_at.getTime() === now.getTime()) {
      const owner = await trx.selectFrom('api_keys').select('workspace_id').where('id', '=', keyId).executeTakeFirstOrThrow();
      await recordAudit(trx, { at: now, workspaceId: owner.workspace_id, actor: by, action: 'revoke_key', objectKind: 'api_key', objectId: keyId });
    }
    return row;
  });
}

export async function revokeKey(ctx: KeysContext, actor: Actor, keyId: string): Promise<void> {
  requireManager(actor);
  if (!(await revoke(ctx, keyId, { workspaceId: actor.workspaceId }, { kind: 'user', userId: actor.userId }))) throw notFound('key');
}

/** The operator issues a key in a workspace, for its first user or for `userId`; an error names what is missing. */
export async function issueKeyAsOperator(
  ctx: KeysContext,
  input: { workspaceId: string; userId?: string; scopes: Scope[]; mode: KeyMode },
): Promise<CreatedKey> {
  return issue(ctx, input, { kind: 'operator' });
}

/** The operator revokes any key; null when there is no such key. */
export async function revokeKeyAsOperator(ctx: KeysContext, keyId: string): Promise<{ id: string; revoked_at: Date } | null> {
  return revoke(ctx, keyId, {}, { kind: 'operator' });
}
