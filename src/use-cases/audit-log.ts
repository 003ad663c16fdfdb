/**
 * The audit log as owners (web settings) and the operator (CLI) read it:
 * newest first, ids and kinds only (store/audit-repository.ts).
 */
import { listAudit } from '../store/audit-repository.js';
import type { Db } from '../store/database.js';

export interface AuditView {
  at: string;
  action: string;
  object_kind: string;
  object_id: string | null;
  count: number | null;
  actor_kind: 'user' | 'operator' | 'maintenance';
  actor_id: string | null;
  workspace_id: string | null;
}

/** The newest `limit` entries of the workspace, or (null) of every workspace. */
export async function readAuditLog(db: Db, workspaceId: string | null, limit: number): Promise<AuditView[]> {
  const rows = await listAudit(db, workspaceId, Math.min(Math.max(limit, 1), 10_000));
  return rows.map((r) => ({
    at: r.at.toISOString(),
    action: r.action,
    object_kind: r.object_kind,
    object_id: r.object_ref,
    count: r.count,
    actor_kind: r.actor_kind,
    actor_id: r.actor_ref,
    workspace_id: r.workspace_ref,
  }));
}
