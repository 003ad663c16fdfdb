/**
 * Scheduled refreshes: a report scanned again every week or every
 * month, set in the web and the operator's command line, run by the workers
 * (src/cli/refresh-scheduler.ts).
 *
 * A due schedule runs once across all processes: its row is claimed FOR
 * UPDATE SKIP LOCKED in the same transaction that admits the refresh (as
 * background work: the claim serves every new report and import first) and
 * moves the row one period on. A refresh the scan allowance refuses is
 * undone (a savepoint) and the row is moved on all the same, with the
 * outcome `skipped_allowance`, which the report page shows and the log says.
 */
import type { Clock } from '../clock.js';
import { apiError, type ApiError } from '../domain/errors.js';
import { nextDueAt, SCHEDULE_OUTCOME_TEXT, type Cadence, type ScheduleOutcome } from '../domain/refresh-schedule.js';
import type { Db } from '../store/database.js';
import type { ScanQueue } from '../store/queue-channel.js';
import { inSavepoint } from '../store/refresh-repository.js';
import { claimDueSchedule, deleteSchedule, findSchedule, recordScheduleRun, upsertSchedule } from '../store/refresh-schedule-repository.js';
import { findReport } from '../store/report-repository.js';
import { retryingTransaction } from '../store/transaction.js';
import { admitRefresh } from './refresh-report.js';
import { requireReport } from './require-report.js';

export interface RefreshSchedule {
  cadence: Cadence;
  /** RFC 3339; null when off. */
  next_due_at: string | null;
  last_run_at: string | null;
  last_outcome: ScheduleOutcome | null;
  /** What the last due time did, in words (null: it never came). */
  last_note: string | null;
}

const OFF: RefreshSchedule = { cadence: 'off', next_due_at: null, last_run_at: null, last_outcome: null, last_note: null };

export async function readRefreshSchedule(db: Db, workspaceId: string, reportId: string): Promise<RefreshSchedule> {
  await requireReport(db, workspaceId, reportId);
  const row = await findSchedule(db, reportId);
  if (!row) return OFF;
  return {
    cadence: row.cadence,
    next_due_at: row.next_due_at.toISOString(),
    last_run_at: row.last_run_at?.toISOString() ?? null,
    last_outcome: row.last_outcome,
    last_note: row.last_outcome ? SCHEDULE_OUTCOME_TEXT[row.last_outcome] : null,
  };
}

/** Sets a report's schedule; a new or changed cadence is first due one period from now. Unchanged, it keeps its due time. */
export async function setRefreshSchedule(ctx: { db: Db; clock: Clock; workspaceId: string }, reportId: string, cadence: Cadence): Promise<RefreshSchedule> {
  await retryingTransaction(ctx.db, async (trx) => {
    const report = await requireReport(trx, ctx.workspaceId, reportId, { forUpdate: true });
    if (cadence === 'off') return deleteSchedule(trx, reportId);
    if (report.archived) throw apiError('report_archived', { action: 'scheduling refreshes' }, { retryable: false });
    const current = await findSchedule(trx, reportId);
    if (current?.cadence === cadence) return;
    const now = ctx.clock.now();
    await upsertSchedule(trx, { reportId, workspaceId: ctx.workspaceId, cadence, nextDueAt: nextDueAt(cadence, now) }, now);
  });
  return readRefreshSchedule(ctx.db, ctx.workspaceId, reportId);
}

export interface ScheduleRun {
  reportId: string;
  workspaceId: string;
  outcome: ScheduleOutcome;
  peopleQueued: number;
}

/**
 * Runs the schedules due now, one transaction each, until none is due (or
 * `max` ran). Returns what each did; `log` says each one.
 */
export async function runDueRefreshes(deps: { db: Db; clock: Clock; queue: ScanQueue; log: (message: string) => void }, max = 100): Promise<ScheduleRun[]> {
  const runs: ScheduleRun[] = [];
  while (runs.length < max) {
    const run = await retryingTransaction(deps.db, async (trx) => {
      const now = deps.clock.now();
      const due = await claimDueSchedule(trx, now);
      if (!due) return null;
      const report = await findReport(trx, { reportId: due.report_id, workspaceId: due.workspace_id });
      let outcome: ScheduleOutcome = 'queued';
      let peopleQueued = 0;
      if (!report || report.archived) outcome = 'skipped_archived';
      else {
        const ctx = { db: deps.db, clock: deps.clock, queue: deps.queue, workspaceId: due.workspace_id };
        try {
          const receipt = await inSavepoint(trx, () => admitRefresh(ctx, trx, due.report_id, { kind: 'report' }, true));
          peopleQueued = receipt.people_queued;
        } catch (error) {
          const code = (error as Partial<ApiError>).code;
          if (code === 'scan_allowance_exceeded') outcome = 'skipped_allowance';
          else if (code === 'validation_failed') outcome = 'skipped_empty';
          else throw error;
        }
      }
      await recordScheduleRun(trx, due.report_id, outcome, nextDueAt(due.cadence, now), now);
      return { reportId: due.report_id, workspaceId: due.workspace_id, outcome, peopleQueued };
    });
    if (!run) break;
    deps.log(
      run.outcome === 'queued'
        ? `scheduled refresh: report ${run.reportId} queued ${run.peopleQueued} profile scan(s)`
        : `scheduled refresh: report ${run.reportId} skipped (${run.outcome}): ${SCHEDULE_OUTCOME_TEXT[run.outcome]}`,
    );
    runs.push(run);
  }
  return runs;
}
