/**
 * The stories behind "what changed since the previous scan"
 * (docs/analysis.md, "History and progress"): a report's progress (its
 * people's, the team's, and the team's trend per completed round) and one
 * person's (their trend and what they fixed). Reads only, scoped by
 * workspace like the report's pages; the rules are domain/progress.ts and
 * domain/progress-state.ts.
 */
import { personProgress, roundFigures, teamProgress, type PersonProgress, type RoundPoint, type TeamProgress } from '../domain/progress.js';
import type { Db } from '../store/database.js';
import { readPeopleScans, readPersonScans, readReportRounds } from '../store/history-repository.js';
import { readCurrentTotals } from '../store/rollup-repository.js';
import { emptyProgressTotals, endedUnobserved } from '../domain/progress-state.js';
import { requireReport } from './require-report.js';

export type { PersonProgress, RoundPoint, TeamProgress };

/** Rounds in a report's trend, and scans in a person's. */
export const TREND_POINTS = 12;
export const PERSON_TREND_POINTS = 24;

export interface ReportProgress {
  /** The team's completed rounds, oldest first (at most TREND_POINTS). */
  rounds: RoundPoint[];
  team: TeamProgress;
}

/**
 * The report page's progress: its completed rounds and the team's progress,
 * which the report's roll-up keeps (store/rollup-repository.ts, as every
 * person's contribution: domain/analysis-aggregate.ts), so the read costs the
 * same whatever the depth of the history.
 */
export async function readReportProgress(ctx: { db: Db; workspaceId: string }, reportId: string): Promise<ReportProgress> {
  await requireReport(ctx.db, ctx.workspaceId, reportId);
  const [totals, rounds] = await Promise.all([readCurrentTotals(ctx.db, reportId), readReportRounds(ctx.db, reportId, TREND_POINTS)]);
  return {
    // A round's stored figures, or (recorded without them, until maintenance stores them) computed from its counts.
    rounds: rounds.map((r) => ({ completedAt: r.completedAt, persons: r.persons, analyzed: r.analyzed, ...(r.figures ?? roundFigures(r.checks ?? {})) })),
    team: teamProgress(totals?.progress ?? emptyProgressTotals()),
  };
}

/** Each active person's progress, by profile id (the exports' columns). */
export async function readPeopleProgress(ctx: { db: Db; workspaceId: string }, reportId: string): Promise<ReadonlyMap<string, PersonProgress>> {
  await requireReport(ctx.db, ctx.workspaceId, reportId);
  const scans = await readPeopleScans(ctx.db, reportId);
  return new Map(
    scans.map((row) => [row.profile_id, personProgress({ scanned: row.scanned, since: row.since, latestScanFailed: endedUnobserved(row.latest_status) })]),
  );
}

export interface PersonTrendPoint {
  scannedAt: Date;
  /** The web's weighted score at that scan (fix-first.ts). */
  scorePct: number | null;
}

export interface PersonProgressView {
  /** Their scans, oldest first (at most PERSON_TREND_POINTS). */
  trend: PersonTrendPoint[];
  progress: PersonProgress;
}

/** One person's trend and progress; the caller has read the person (a person not on the report reads as no history). */
export async function readPersonProgress(ctx: { db: Db; workspaceId: string }, reportId: string, profileId: string): Promise<PersonProgressView> {
  await requireReport(ctx.db, ctx.workspaceId, reportId);
  const { scans, since, latestStatus } = await readPersonScans(ctx.db, { reportId, profileId, limit: PERSON_TREND_POINTS });
  return {
    trend: scans.map((s) => ({ scannedAt: s.scanned_at, scorePct: s.score_pct })),
    progress: personProgress({ scanned: scans.length > 0, since, latestScanFailed: endedUnobserved(latestStatus) }),
  };
}
