/**
 * Requests about personal data, one implementation for the web, the CLI and
 * maintenance (docs/privacy.md):
 * - erasePerson: a person of one report, or every attachment of a profile
 *   URL in the workspace, goes; the rows in one transaction, the blobs by
 *   the durable queue of store/erasure-repository.ts (drained right after
 *   the commit; what fails stays queued for maintenance).
 * - exportPerson: everything stored about them, evidence images included
 *   (base64), as one JSON document.
 * - deleteWorkspace: a workspace and everything of it, with the typed name
 *   as confirmation.
 * Each is recorded in the audit log, without the values it touched.
 */
import type { Clock } from '../clock.js';
import { apiError, notFound } from '../domain/errors.js';
import { can } from '../domain/permissions.js';
import { normalizeProfileUrl } from '../domain/profile-url.js';
import { isTokenShaped, tokenHash, type Role } from '../domain/web-tokens.js';
import type { MediaStore } from '../scanning/media/media-store.js';
import { recordAudit, type AuditEntry } from '../store/audit-repository.js';
import type { Db } from '../store/database.js';
import { deleteWorkspaceRows, erasePeopleOfReport, findExpiredPeople, findPeopleToErase, type ErasedPerson } from '../store/erasure-repository.js';
import { drainBlobDeletions } from '../store/maintenance-repository.js';
import { listMemberships } from '../store/member-repository.js';
import { switchSessionWorkspace } from '../store/session-repository.js';
import { readPersonLabel, readPersonRecords } from '../store/person-export-repository.js';
import { personName } from './report-people.js';
import { retryingTransaction } from '../store/transaction.js';

export interface PersonalDataDeps {
  db: Db;
  media: MediaStore;
  clock: Clock;
}

/** Who asks: a signed-in member (with their role) or the operator (the CLI). */
export type Requester = { kind: 'user'; userId: string; role: Role } | { kind: 'operator' };

/** One person of a report, or every attachment of a profile URL in the workspace. */
export type PersonTarget = { reportId: string; profileId: string } | { url: string };

function auditActor(requester: Requester): AuditEntry['actor'] {
  return requester.kind === 'user' ? { kind: 'user', userId: requester.userId } : { kind: 'operator' };
}

function requireRole(requester: Requester, allowed: (role: Role) => boolean): void {
  if (requester.kind === 'user' && !allowed(requester.role)) throw apiError('forbidden');
}

function normalizedTarget(target: PersonTarget): PersonTarget {
  if (!('url' in target)) return target;
  const normalized = normalizeProfileUrl(target.url);
  if (!normalized.ok) throw apiError('validation_failed', 'The profile URL is not a valid http(s) URL.');
  return { url: normalized.url };
}

export interface ErasureResult {
  /** Attachments erased (one per report the person was on). */
  erased: number;
  /** Media blobs deleted now (shared blobs other evidence uses are kept). */
  blobsDeleted: number;
  /** Media blobs whose deletion failed now and stays queued for maintenance. */
  blobsPending: number;
}

/** Erases a person (owner, admin, operator); 404 when the workspace has no such person. */
export async function erasePerson(deps: PersonalDataDeps, requester: Requester, workspaceId: string, target: PersonTarget): Promise<ErasureResult> {
  requireRole(requester, (role) => can(role, 'erase_person'));
  const wanted = normalizedTarget(target);
  const now = deps.clock.now();
  const erased = await retryingTransaction(deps.db, async (trx) => {
    const people = await findPeopleToErase(trx, workspaceId, wanted);
    const byReport = new Map<string, ErasedPerson[]>();
    for (const person of people) byReport.set(person.report_id, [...(byReport.get(person.report_id) ?? []), person]);
    for (const [reportId, ofReport] of [...byReport.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await erasePeopleOfReport(trx, workspaceId, reportId, ofReport, now);
    }
    if (people.length > 0) {
      await recordAudit(trx, {
        at: now,
        workspaceId,
        actor: auditActor(requester),
        action: 'erase_person',
        objectKind: 'person',
        objectId: people.length === 1 ? people[0].id : null,
        count: people.length,
      });
    }
    return people.length;
  });
  if (erased === 0) throw notFound('person');
  const blobs = await drainBlobDeletions(deps.db, deps.clock.now(), (sha256) => deps.media.delete(sha256)).catch(() => ({ deleted: 0, failed: -1 }));
  return { erased, blobsDeleted: blobs.deleted, blobsPending: Math.max(0, blobs.failed) };
}

/** What stored about a person is handed over (format "profile-scan.person-export/1"; docs/privacy.md). */
export interface PersonExport {
  format: 'profile-scan.person-export/1';
  exported_at: string;
  workspace_id: string;
  people: Awaited<ReturnType<typeof readPersonRecords>>;
}

/** Everything stored about a person, with the evidence images as base64; 404 when there is no such person. */
export async function exportPerson(deps: PersonalDataDeps, requester: Requester, workspaceId: string, target: PersonTarget): Promise<PersonExport> {
  requireRole(requester, (role) => can(role, 'erase_person'));
  const wanted = normalizedTarget(target);
  const people = await retryingTransaction(deps.db, (trx) => readPersonRecords(trx, workspaceId, wanted), { readOnlySnapshot: true });
  if (people.length === 0) throw notFound('person');
  for (const person of people) {
    for (const image of person.evidence_images) {
      const [original, preview] = await Promise.all([deps.media.get(image.original_sha256), deps.media.get(image.preview_sha256)]);
      image.original_base64 = original?.toString('base64') ?? null;
      image.preview_base64 = preview?.toString('base64') ?? null;
    }
  }
  const now = deps.clock.now();
  await recordAudit(deps.db, {
    at: now,
    workspaceId,
    actor: auditActor(requester),
    action: 'export_person',
    objectKind: 'person',
    objectId: people.length === 1 ? people[0].profile.id : null,
    count: people.length,
  });
  return { format: 'profile-scan.person-export/1', exported_at: now.toISOString(), workspace_id: workspaceId, people };
}

/**
 * Deletes a workspace and everything of it (owner, operator); `typedName`
 * must be the workspace's name exactly. 404 for an unknown workspace.
 * `session`: the signed-in session that asked; when its account belongs to
 * another workspace, the session moves there in the same transaction (it
 * would go with the deleted workspace), and `movedTo` names it.
 */
export async function deleteWorkspace(
  deps: PersonalDataDeps,
  requester: Requester,
  workspaceId: string,
  typedName: string,
  session?: { token: string | null | undefined; accountId: string },
): Promise<ErasureResult & { movedTo: { workspaceId: string; name: string } | null }> {
  requireRole(requester, (role) => role === 'owner');
  const now = deps.clock.now();
  const found = await retryingTransaction(deps.db, async (trx) => {
    const ws = await trx.selectFrom('workspaces').select('name').where('id', '=', workspaceId).executeTakeFirst();
    if (!ws) return { outcome: 'missing' as const, movedTo: null };
    if (ws.name !== typedName) return { outcome: 'mismatch' as const, movedTo: null };
    const next =
      session && isTokenShaped(session.token) ? (await listMemberships(trx, session.accountId)).find((m) => m.workspaceId !== workspaceId) : undefined;
    if (next && session && isTokenShaped(session.token)) await switchSessionWorkspace(trx, tokenHash(session.token), next.userId, next.workspaceId);
    await deleteWorkspaceRows(trx, workspaceId, now);
    await recordAudit(trx, { at: now, workspaceId, actor: auditActor(requester), action: 'delete_workspace', objectKind: 'workspace', objectId: workspaceId });
    return { outcome: 'deleted' as const, movedTo: next ? { workspaceId: next.workspaceId, name: next.workspaceName } : null };
  });
  if (found.outcome === 'missing') throw notFound('workspace');
  if (found.outcome === 'mismatch') throw apiError('validation_failed', 'The typed name is not the name of the workspace. Nothing was deleted.');
  const blobs = await drainBlobDeletions(deps.db, deps.clock.now(), (sha256) => deps.media.delete(sha256)).catch(() => ({ deleted: 0, failed: -1 }));
  return { erased: 1, blobsDeleted: blobs.deleted, blobsPending: Math.max(0, blobs.failed), movedTo: found.movedTo };
}

/** The name and profile URL a confirmation shows for a person of the report; 404 when the workspace has no such person. */
export async function describePerson(db: Db, workspaceId: string, reportId: string, profileId: string): Promise<{ name: string; url: string }> {
  const row = await readPersonLabel(db, workspaceId, reportId, profileId);
  if (!row) throw notFound('person');
  return { name: personName(row)[0], url: row.pronet_url };
}

/**
 * One batch of retention (maintenance): erases people removed before
 * `removedBefore` and the people of reports archived before `archivedBefore`
 * (null turns either off), one report per transaction, so no lock is held
 * for long. Returns how many attachments it erased, by reason.
 */
export async function eraseExpiredPeople(
  deps: PersonalDataDeps,
  cutoffs: { removedBefore: Date | null; archivedBefore: Date | null },
  batch = 200,
): Promise<{ removed: number; archived: number }> {
  const found = await findExpiredPeople(deps.db, cutoffs, batch);
  const byReport = new Map<string, typeof found>();
  for (const person of found) byReport.set(person.report_id, [...(byReport.get(person.report_id) ?? []), person]);
  const done = { removed: 0, archived: 0 };
  for (const [reportId, people] of byReport) {
    const workspaceId = people[0].workspace_id;
    const now = deps.clock.now();
    await retryingTransaction(deps.db, async (trx) => {
      await erasePeopleOfReport(trx, workspaceId, reportId, people, now);
      for (const why of ['removed', 'archived'] as const) {
        const count = people.filter((p) => p.why === why).length;
        if (count > 0) {
          await recordAudit(trx, {
            at: now,
            workspaceId,
            actor: { kind: 'maintenance' },
            action: why === 'removed' ? 'erase_removed_people' : 'erase_archived_report_people',
            objectKind: 'report',
            objectId: reportId,
            count,
          });
        }
      }
    });
    for (const person of people) done[person.why]++;
  }
  await drainBlobDeletions(deps.db, deps.clock.now(), (sha256) => deps.media.delete(sha256));
  return done;
}
