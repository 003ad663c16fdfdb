/**
 * Report housekeeping stories shared by every interface (the admin CLI, the
 * web workspace): archive, unarchive, share on/off, remove a person. Each
 * owns its transaction and keeps the report's roll-ups exact.
 *
 * `workspaceId` scopes the lookup: a report of another workspace is "not
 * found"; `null` is the operator's scope (the admin CLI), any workspace.
 * Each returns null when there is nothing to act on (unknown report or
 * person), and the interface says so in its own words.
 */
import type { Kysely } from 'kysely';
import { recordAudit } from '../store/audit-repository.js';
import { findReport, removeProfile, setArchived, setPublic, type ReportRow } from '../store/report-repository.js';
import { refreshReportRollup } from '../store/rollup-repository.js';
import { cancelReportScans } from '../store/scan-repository.js';
import type { Database } from '../store/schema.js';
import { retryingTransaction } from '../store/transaction.js';

export interface ReportScope {
  db: Kysely<Database>;
  /** null: any workspace (operator commands). */
  workspaceId: string | null;
  now: Date;
  /** Who acts, for the audit log of sharing changes: a signed-in user, else the operator. */
  userId?: string;
}

async function visible(trx: Kysely<Database>, scope: ReportScope, reportId: string): Promise<boolean> {
  const report = await findReport(trx, scope.workspaceId === null ? { anyWorkspace: true, reportId } : { workspaceId: scope.workspaceId, reportId }, {
    forUpdate: true,
  });
  return report !== undefined;
}

/**
 * Archives or unarchives a report. Archiving cancels its unfinished scans
 * (decisions "Scans": a report archived while its scans are queued has its
 * runs cancelled) and refreshes the roll-ups.
 */
export async function setReportArchived(scope: ReportScope, reportId: string, archived: boolean): Promise<ReportRow | null> {
  return retryingTransaction(scope.db, async (trx) => {
    if (!(await visible(trx, scope, reportId))) return null;
    const row = await setArchived(trx, reportId, archived, scope.now);
    if (!row) return null;
    if (archived) {
      await cancelReportScans(trx, reportId, scope.now);
      await refreshReportRollup(trx, reportId, 'all', scope.now);
    }
    return (await findReport(trx, { anyWorkspace: true, reportId })) ?? null;
  });
}

/** Turns the report's public page on (a new unguessable token) or off, recorded in the audit log. */
export async function setReportSharing(scope: ReportScope, reportId: string, isPublic: boolean): Promise<ReportRow | null> {
  return retryingTransaction(scope.db, async (trx) => {
    if (!(await visible(trx, scope, reportId))) return null;
    const row = await setPublic(trx, reportId, isPublic, scope.now);
    if (!row) return null;
    await recordAudit(trx, {
      at: scope.now,
      workspaceId: row.workspace_id,
      actor: scope.userId ? { kind: 'user', userId: scope.userId } : { kind: 'operator' },
      action: isPublic ? 'share_report' : 'unshare_report',
      objectKind: 'report',
      objectId: reportId,
    });
    return row;
  });
}

/** Removes a person from a report's roster; the roll-ups drop what they contributed. */
export async function removePerson(scope: ReportScope, reportId: string, profileId: string) {
  return retryingTransaction(scope.db, async (trx) => {
    if (!(await visible(trx, scope, reportId))) return null;
    const row = await removeProfile(trx, reportId, profileId, scope.now);
    if (!row) return null;
    await refreshReportRollup(trx, reportId, { profileIds: [profileId] }, scope.now, { touch: true });
    return row;
  });
}
