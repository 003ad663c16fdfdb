/**
 * A report's refresh schedule: off, weekly or monthly. Plain
 * rules, no I/O; the schedule's state is stored (migration 0051) and run by
 * the workers (use-cases/refresh-schedule.ts).
 */

export const CADENCES = ['off', 'weekly', 'monthly'] as const;
export type Cadence = (typeof CADENCES)[number];

export function parseCadence(value: unknown): Cadence | undefined {
  return typeof value === 'string' && (CADENCES as readonly string[]).includes(value) ? (value as Cadence) : undefined;
}

/**
 * When a schedule is next due, one period after `from` (a refresh that ran,
 * or the moment it was set): seven days, or one calendar month (UTC; the 31st
 * becomes the month's last day). Counted from when it ran, not from when it
 * was due, so a worker that was stopped for weeks runs it once, never once
 * per missed period.
 */
export function nextDueAt(cadence: Exclude<Cadence, 'off'>, from: Date): Date {
  if (cadence === 'weekly') return new Date(from.getTime() + 7 * 24 * 60 * 60 * 1000);
  const next = new Date(from.getTime());
  const day = next.getUTCDate();
  next.setUTCDate(1);
  next.setUTCMonth(next.getUTCMonth() + 1);
  const last = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(day, last));
  return next;
}

export type ScheduleOutcome = 'queued' | 'skipped_allowance' | 'skipped_archived' | 'skipped_empty';

/** What the report page says about the last due time. */
export const SCHEDULE_OUTCOME_TEXT: Record<ScheduleOutcome, string> = {
  queued: 'The scheduled refresh queued its scans.',
  skipped_allowance: "The scheduled refresh was skipped: the workspace's scan allowance for the month was used up. It runs again at the next due time.",
  skipped_archived: 'The scheduled refresh was skipped: the report is archived.',
  skipped_empty: 'The scheduled refresh was skipped: the report has no people to scan.',
};

export const CADENCE_TEXT: Record<Cadence, string> = { off: 'Off', weekly: 'Every week', monthly: 'Every month' };
