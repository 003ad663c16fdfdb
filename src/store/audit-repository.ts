/**
 * The audit log (migration 0048; docs/privacy.md): who did what to which
 * kind of object, and when. Entries name objects by id and never carry a
 * value of them.
 */
import type { Kysely } from 'kysely';
import type { AuditLogTable, Database } from './schema.js';

export interface AuditEntry {
  at: Date;
  workspaceId: string | null;
  actor: { kind: 'user'; userId: string } | { kind: 'operator' } | { kind: 'maintenance' };
  action: string;
  objectKind: string;
  objectId: string | null;
  count?: number | null;
}

export async function recordAudit(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      at: entry.at,
      workspace_ref: entry.workspaceId,
      actor_kind: entry.actor.kind,
      actor_ref: entry.actor.kind === 'user' ? entry.actor.userId : null,
      action: entry.action,
      object_kind: entry.objectKind,
      object_ref: entry.objectId,
      count: entry.count ?? null,
    })
    .execute();
}

export type AuditRow = Omit<AuditLogTable, 'id' | 'at'> & { id: number; at: Date };

/** The newest entries, of one workspace or (null) of all. */
export async function listAudit(db: Kysely<Database>, workspaceId: string | null, limit: number): Promise<AuditRow[]> {
  let query = db.selectFrom('audit_log').selectAll();
  if (workspaceId !== null) query = query.where('workspace_ref', '=', workspaceId);
  return query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Deletes entries older than `before`; returns how many. */
export async function pruneAudit(db: Kysely<Database>, before: Date): Promise<number> {
  const result = await db.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
