/**
 * POST /reports/{id}/profile-imports (4.8) and the receipt read (4.9).
 *
 * A preview plans against the current roster and changes nothing. A commit
 * locks the report row (imports into one report are serialized, so two
 * concurrent batches cannot both add the same person), rechecks the current
 * state, applies the plan, queues scans, reserves their scan allowance
 * (scan-allowance.ts) and saves the receipt and the idempotency record in one
 * transaction. Receipts never hold supplied names
 * or URLs.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { IDEMPOTENCY_TTL_MS, requestFingerprint } from '../domain/fingerprint.js';
import type { WorkspaceLimits } from '../domain/rate-limits.js';
import { planRoster, type PlannedRow, type SubmittedProfile } from '../domain/roster-plan.js';
import { apiError, notFound } from '../domain/errors.js';
import type { ImportReceipt, ImportValidation } from '../domain/schemas/import.js';
import type { ScanQueue } from '../store/queue-channel.js';
import type { Db } from '../store/database.js';
import { idempotentWrite } from './idempotent-write.js';
import { findReceipt, insertReceipt } from '../store/import-repository.js';
import { applyRosterPlan, attachmentsByUrl } from '../store/report-repository.js';
import { refreshReportRollup } from '../store/rollup-repository.js';
import { admitScans } from '../queue/admission.js';
import { takeSubmittedRows } from './submitted-rows.js';
import { reserveProfileScans } from './scan-allowance.js';
import type { KeyMode } from '../domain/keys.js';
import { requireReport } from './require-report.js';

export interface ImportContext {
  db: Db;
  clock: Clock;
  queue: ScanQueue;
  workspaceId: string;
  keyMode: KeyMode;
  limits: WorkspaceLimits;
}

const RESTORED_NOTE = {
  code: 'previously_removed_profile_restored' as const,
  message: 'This person was removed from the report earlier; the same attachment was restored with its details and history.',
};

function archived(): Error {
  return apiError('report_archived', { action: 'importing people' }, { retryable: false });
}

export async function previewImport(ctx: ImportContext, reportId: string, profiles: SubmittedProfile[], urls: string[]): Promise<ImportValidation> {
  const report = await requireReport(ctx.db, ctx.workspaceId, reportId);
  if (report.archived) throw archived();
  const plan = planRoster(profiles, urls, await attachmentsByUrl(ctx.db, reportId, [...new Set(urls)]));
  const count = (status: PlannedRow['status']) => plan.filter((r) => r.status === status).length;
  return {
    validation_only: true,
    valid: true,
    counts: {
      submitted: profiles.length,
      would_add: count('add'),
      would_restore: count('restore'),
      already_present: count('already_present'),
      duplicate_in_input: count('duplicate_in_input'),
      would_queue_profiles: count('add') + count('restore'),
    },
    rows: plan.map((row) => ({
      row_number: row.row_number,
      status: row.status === 'add' ? ('would_add' as const) : row.status === 'restore' ? ('would_restore' as const) : row.status,
      ...(row.duplicate_of_row !== undefined ? { duplicate_of_row: row.duplicate_of_row } : {}),
      ...(row.status === 'restore' ? { notes: [RESTORED_NOTE] } : {}),
    })),
  };
}

export async function commitImport(ctx: ImportContext, reportId: string, profiles: SubmittedProfile[], urls: string[], idempotencyKey: string) {
  // 404 before anything else: a foreign or unknown report reveals nothing.
  await requireReport(ctx.db, ctx.workspaceId, reportId);
  // The key is bound to the request's fingerprint, the same whichever interface sent it.
  const fingerprint = requestFingerprint({
    method: 'POST',
    route: '/reports/{report_id}/profile-imports',
    flags: { validation_only: false },
    body: { profiles },
  });
  return idempotentWrite<ImportReceipt>(
    ctx.db,
    {
      workspaceId: ctx.workspaceId,
      operation: 'import_profiles',
      scope: reportId,
      key: idempotencyKey,
      fingerprint,
    },
    () => ctx.clock.now(),
    async (trx) => {
      const now = ctx.clock.now();
      const report = await requireReport(trx, ctx.workspaceId, reportId, { forUpdate: true });
      if (report.archived) throw archived();

      const importId = randomUUID();
      const plan = planRoster(profiles, urls, await attachmentsByUrl(trx, reportId, [...new Set(urls)]));
      const ids = await applyRosterPlan(trx, { reportId, workspaceId: ctx.workspaceId, source: 'api_import', importId, rows: plan }, now);
      const queued = plan.filter((r) => r.status === 'add' || r.status === 'restore');
      const { runs, itemIds } = await admitScans(
        trx,
        { reportId, workspaceId: ctx.workspaceId, keyMode: ctx.keyMode, profileIds: queued.map((r) => ids.get(r.row_number)!) },
        now,
      );
      await ctx.queue.enqueueItems(trx, itemIds);
      await refreshReportRollup(trx, reportId, { profileIds: queued.map((r) => ids.get(r.row_number)!) }, now, {
        touch: queued.length > 0,
      });
      // Taken last: the workspace's scan allowance of the month and its rows
      // counter stay locked until commit, so imports of one workspace wait for
      // each other only this long.
      await reserveProfileScans(trx, ctx.workspaceId, itemIds, now);
      await takeSubmittedRows(trx, ctx.workspaceId, ctx.limits, profiles.length, now);

      const scanRequests = runs.map((r) => ({ scan_run_id: r.run.id, mode: r.mode }));
      const count = (status: PlannedRow['status']) => plan.filter((r) => r.status === status).length;
      const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS);
      const receipt: ImportReceipt = {
        id: importId,
        report_id: reportId,
        state: 'completed',
        counts: {
          submitted: profiles.length,
          added: count('add'),
          restored: count('restore'),
          already_present: count('already_present'),
          duplicate_in_input: count('duplicate_in_input'),
          profiles_queued: queued.length,
        },
        rows: plan.map((row) => {
          const profileId = ids.get(row.row_number);
          switch (row.status) {
            case 'add':
              return { row_number: row.row_number, status: 'added' as const, profile_id: profileId, scan_requests: scanRequests };
            case 'restore':
              return {
                row_number: row.row_number,
                status: 'restored' as const,
                profile_id: profileId,
                notes: [RESTORED_NOTE],
                scan_requests: scanRequests,
              };
            case 'already_present':
              return { row_number: row.row_number, status: 'already_present' as const, profile_id: profileId };
            case 'duplicate_in_input':
              return { row_number: row.row_number, status: 'duplicate_in_input' as const, duplicate_of_row: row.duplicate_of_row };
          }
        }),
        scan_requests: runs.map((r) => ({
          scan_run_id: r.run.id,
          mode: r.mode,
          status_at_commit: r.statusAtCommit === 'inaccessible' ? 'failed' : r.statusAtCommit,
          jobs_created: r.jobsCreated,
          jobs_coalesced: r.jobsCoalesced,
        })),
        created_at: now.toISOString(),
        expires_at: expiresAt.toISOString(),
      };
      await insertReceipt(trx, { id: importId, reportId, workspaceId: ctx.workspaceId, receipt, createdAt: now, expiresAt });
      return { status: 201, data: receipt };
    },
  );
}

export async function readReceipt(ctx: { db: Db; clock: Clock; workspaceId: string }, reportId: string, importId: string): Promise<ImportReceipt> {
  const row = await findReceipt(ctx.db, ctx.workspaceId, reportId, importId);
  if (!row) throw notFound('import receipt');
  // A tombstone (the receipt's contents removed by retention, src/maintenance.ts) is expired too.
  if (row.receipt === null || row.expires_at.getTime() <= ctx.clock.now().getTime()) {
    throw apiError('receipt_expired');
  }
  return row.receipt;
}
