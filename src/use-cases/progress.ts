/**
 * The stories behind "what changed since the previous scan"
 * (docs/analysis.md, "History and progress"): a report's progress (its
 * people's, the team's, and the team's trend per completed round) and one
 * person's (their trend and what they fixed). Reads only, scoped by
 * workspace like the report's pages; the rules are domain/progress.ts.
 */
import { personProgress, roundPoint, teamProgress, type PersonProgress, type RoundPoint, type TeamProgress } from '../domain/progress.js';
import type { Db } from '../store/database.js';
import { readPeopleScans, readPersonScans, readReportRounds } from '../store/history-repository.js';
import { requireReport } from './require-report.js';

export type { PersonProgress, RoundPoint, TeamProgress };

/** Rounds in a report's trend, and scans in a person's. */
export const TREND_POINTS = 12;
export const PERSON_TREND_POINTS = 24;

/** A latest full-profile item that ended without observing the profile. */
const failed = (status: string | null) => status === 'failed' || status === 'inaccessible';

export interface ReportProgress {
  /** The team's completed rounds, oldest first (at most TREND_POINTS). */
  rounds: RoundPoint[];
  /** Each active person's progress, by profile id. */
  people: ReadonlyMap<string, PersonProgress>;
  team: TeamProgress;
}

export async function readReportProgress(ctx: { db: Db; workspaceId: string }, reportId: string): Promise<ReportProgress> {
  await requireReport(ctx.db, ctx.workspaceId, reportId);
  const [scans, rounds] = await Promise.all([readPeopleScans(ctx.db, reportId), readReportRounds(ctx.db, reportId, TREND_POINTS)]);
  const people = new Map(
    scans.map((row) => [row.profile_id, personProgress({ scanned: row.scanned, since: row.since, latestScanFailed: failed(row.latest_status) })]),
  );
  return { rounds: rounds.map(roundPoint), people, team: teamProgress([...people.values()]) };
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
  const { scans, latestStatus } = await readPersonScans(ctx.db, { reportId, profileId, limit: PERSON_TREND_POINTS });
  const latest = scans.at(-1);
  return {
    trend: scans.map((s) => ({ scannedAt: s.scanned_at, scorePct: s.score_pct })),
    progress: personProgress({ scanned: latest !== undefined, since: latest?.since ?? null, latestScanFailed: failed(latestStatus) }),
  };
}
