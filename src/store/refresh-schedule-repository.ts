/**
 * Scheduled refreshes' rows (migration 0051). The claim of a due schedule
 * locks its row FOR UPDATE SKIP LOCKED inside the caller's transaction, which
 * also admits the refresh and moves the row on: one worker process runs a due
 * schedule, whatever the number of processes, and a crash leaves it due.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, ReportRefreshSchedulesTable } from './schema.js';
import type { ScheduleOutcome } from '../domain/refresh-schedule.js';

export type ScheduleRow = Selectable<ReportRefreshSchedulesTable>;

export async function findSchedule(db: Kysely<Database>, reportId: string): Promise<ScheduleRow | undefined> {
  return db.selectFrom('report_refresh_schedules').selectAll().where('report_id', '=', reportId).executeTakeFirst();
}

/** Sets (or replaces) a report's schedule; a new cadence is due one period from now. */
export async function upsertSchedule(
  db: Kysely<Database>,
  row: { reportId: string; workspaceId: string; cadence: 'weekly' | 'monthly'; nextDueAt: Date },
  now: Date,
): Promise<void> {
  await db
    .insertInto('report_refresh_schedules')
    .values({ report_id: row.reportId, workspace_id: row.workspaceId, cadence: row.cadence, next_due_at: row.nextDueAt, updated_at: now })
    .onConflict((oc) =>
      oc.column('report_id').doUpdateSet((eb) => ({
        cadence: eb.ref('excluded.cadence'),
        next_due_at: eb.ref('excluded.next_due_at'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

export async function deleteSchedule(db: Kysely<Database>, reportId: string): Promise<void> {
  await db.deleteFrom('report_refresh_schedules').where('report_id', '=', reportId).execute();
}

/** One due schedule, locked for the caller's transaction; another process's locked one is skipped. */
export async function claimDueSchedule(trx: Kysely<Database>, now: Date): Promise<ScheduleRow | undefined> {
  return trx
    .selectFrom('report_refresh_schedules')
    .selectAll()
    .where('next_due_at', '<=', now)
    .orderBy('next_due_at')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

export async function recordScheduleRun(trx: Kysely<Database>, reportId: string, outcome: ScheduleOutcome, nextDueAt: Date, now: Date): Promise<void> {
  await trx
    .updateTable('report_refresh_schedules')
    .set({ last_run_at: now, last_outcome: outcome, next_due_at: nextDueAt, updated_at: now })
    .where('report_id', '=', reportId)
    .execute();
}
