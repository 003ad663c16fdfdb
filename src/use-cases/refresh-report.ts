/**
 * A refresh: the report's people scanned again (an extension
 * beside the contract, which admits work only through creation and imports).
 * Every entry point uses this one story: the API's `POST
 * /api/v1/reports/{id}/refreshes`, the web's "Scan again" and "Try these
 * again", both command lines and the workers' schedule.
 *
 * It queues a `full_profile` and an `activity` item for each chosen active
 * person (the activity run also covers the company page) exactly as an
 * import admits them (queue/admission.ts admitScans): joining the
 * report's still-queued runs, coalescing with items still pending there, and
 * reserving the scan allowance of the people it queues in the same
 * transaction (scan-allowance.ts). Over the allowance the whole transaction
 * rolls back: nothing is queued and the refusal says how much is left. The
 * roster and the stored results do not change: until the new items finish,
 * reads keep showing the previous results, with freshness `stale` and the
 * reason `refresh_in_progress` (domain/analysis-summary.ts), because requested
 * work is not terminal.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { requestFingerprint } from '../domain/fingerprint.js';
import { apiError } from '../domain/errors.js';
import type { KeyMode } from '../domain/keys.js';
import type { RefreshReceipt } from '../domain/schemas/refresh.js';
import type { Db } from '../store/database.js';
import type { ScanQueue } from '../store/queue-channel.js';
import type { Database } from '../store/schema.js';
import { activePeopleIds, reportKeyMode, unsuccessfulPeopleIds } from '../store/refresh-repository.js';
import { refreshReportRollup } from '../store/rollup-repository.js';
import { admitScans } from '../queue/admission.js';
import { retryingTransaction } from '../store/transaction.js';
import { idempotentWrite } from './idempotent-write.js';
import { requireReport } from './require-report.js';
import { reserveProfileScans } from './scan-allowance.js';

export interface RefreshContext {
  db: Db;
  clock: Clock;
  queue: ScanQueue;
  workspaceId: string;
  /** The API key's mode; unset (the web, the command lines, the schedule): the mode the report was last scanned in. */
  keyMode?: KeyMode;
}

/** Whom a refresh scans again. */
export type RefreshTarget =
  /** Every active person of the report (and its company page). */
  | { kind: 'report' }
  /** These active people of the report (and its company page). */
  | { kind: 'people'; profileIds: string[] }
  /** The active people whose latest attempt failed or found the profile inaccessible. */
  | { kind: 'unsuccessful' };

export interface RefreshRequest {
  target: RefreshTarget;
  /** With a key, a repeat with the same key and target replays the first answer (the API's `Idempotency-Key`). */
  idempotencyKey?: string | null;
  /** A scheduled refresh is background work: the claim serves every other item first (migration 0053). */
  background?: boolean;
}

export type { RefreshReceipt };

function nothingToRefresh(message: string): Error {
  return apiError('validation_failed', message, { retryable: false });
}

/**
 * Starts a refresh of one report. Throws 404 for a report the workspace does
 * not have, 409 `report_archived`, 409 `scan_allowance_exceeded` (nothing
 * queued) and 422 when the target names nobody or someone not on the report.
 */
export async function refreshReport(
  ctx: RefreshContext,
  reportId: string,
  request: RefreshRequest,
): Promise<{ status: number; data: RefreshReceipt; replayed: boolean }> {
  // 404 before anything else: a foreign or unknown report reveals nothing.
  await requireReport(ctx.db, ctx.workspaceId, reportId);
  const target = request.target.kind === 'people' ? { kind: 'people' as const, profileIds: [...new Set(request.target.profileIds)] } : request.target;
  const work = async (trx: Kysely<Database>) => ({ status: 201, data: await admitRefresh(ctx, trx, reportId, target, request.background ?? false) });
  if (!request.idempotencyKey) return { ...(await retryingTransaction(ctx.db, work)), replayed: false };
  // The same people in another order are the same intent.
  const intent = target.kind === 'people' ? { ...target, profileIds: [...target.profileIds].sort() } : target;
  const fingerprint = requestFingerprint({ method: 'POST', route: '/reports/{report_id}/refreshes', flags: {}, body: intent });
  return idempotentWrite<RefreshReceipt>(
    ctx.db,
    { workspaceId: ctx.workspaceId, operation: 'refresh_report', scope: reportId, key: request.idempotencyKey, fingerprint },
    () => ctx.clock.now(),
    work,
  );
}

/** The refresh inside the caller's transaction (the schedule claims its row in the same one). */
export async function admitRefresh(
  ctx: RefreshContext,
  trx: Kysely<Database>,
  reportId: string,
  target: RefreshTarget,
  background: boolean,
): Promise<RefreshReceipt> {
  const now = ctx.clock.now();
  // The report's row lock serializes refreshes and imports of one report (as imports are).
  const report = await requireReport(trx, ctx.workspaceId, reportId, { forUpdate: true });
  if (report.archived) throw apiError('report_archived', { action: 'scanning its people again' }, { retryable: false });
  const people = await chosenPeople(trx, reportId, target);
  const keyMode = ctx.keyMode ?? (await reportKeyMode(trx, reportId));
  const { runs, itemIds } = await admitScans(trx, { reportId, workspaceId: ctx.workspaceId, keyMode, profileIds: people, background }, now);
  await ctx.queue.enqueueItems(trx, itemIds);
  await refreshReportRollup(trx, reportId, { profileIds: people }, now);
  // Taken last, as an import takes it: the allowance row stays locked only until commit.
  await reserveProfileScans(trx, ctx.workspaceId, itemIds, now);
  const full = runs.find((r) => r.mode === 'full_profile');
  return {
    id: randomUUID(),
    report_id: reportId,
    people_requested: people.length,
    people_queued: full?.personItems ?? 0,
    scan_requests: runs.map((r) => ({ scan_run_id: r.run.id, mode: r.mode, jobs_created: r.jobsCreated, jobs_coalesced: r.jobsCoalesced })),
    created_at: now.toISOString(),
  };
}

async function chosenPeople(trx: Kysely<Database>, reportId: string, target: RefreshTarget): Promise<string[]> {
  if (target.kind === 'unsuccessful') {
    const people = await unsuccessfulPeopleIds(trx, reportId);
    if (people.length === 0) throw nothingToRefresh('No person of this report failed or was inaccessible in their latest scan; nothing was queued.');
    return people;
  }
  const active = await activePeopleIds(trx, reportId);
  if (target.kind === 'report') {
    if (active.length === 0) throw nothingToRefresh('The report has no people to scan again; nothing was queued.');
    return active;
  }
  if (target.profileIds.length === 0) throw nothingToRefresh('Name at least one person to scan again; nothing was queued.');
  const onReport = new Set(active);
  if (target.profileIds.some((id) => !onReport.has(id))) {
    throw apiError('validation_failed', 'Some people are not active on this report; nothing was queued.', {
      retryable: false,
      details: target.profileIds.flatMap((id, index) => (onReport.has(id) ? [] : [{ field: `profile_ids[${index}]`, code: 'not_on_report' }])).slice(0, 100),
    });
  }
  return target.profileIds;
}
