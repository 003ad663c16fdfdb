/**
 * The history of what was shown (migration 0054; docs/analysis.md, "History
 * and progress"): a person's analysis per observation of their profile
 * (`person_scan_history`, written in the statement that ends the item:
 * `historyWrite`), and the team's picture per completed round of scans
 * (`report_snapshots`, written after the fold that completed it:
 * `recordCompletedRound`); their reads, and their retention
 * (HISTORY_RETENTION_MONTHS, `pruneHistory`).
 */
import { sql, type Kysely, type OperationNodeSource, type RawBuilder } from 'kysely';
import { insertRowIf } from './one-statement.js';
import type { CheckTotals, Outcome } from '../domain/analysis-aggregate.js';
import type { StoredFinding } from '../domain/analysis-records.js';
import { latestFullItemJoin } from './latest-item.js';
import type { Database } from './schema.js';

/**
 * The write that keeps a person's analysis with the round of scans it was
 * evaluated in. A round's row is keyed by the round's full-profile item
 * (`itemId` when that item observed the profile). A new observation adds its
 * row; a later item of the same round (an activity item) updates it, as it
 * updates the shown analysis. An activity item (`endingItemId`) that ends
 * before its round's full-profile item writes the row of its own round, keyed
 * by that full-profile item, which then updates it: the newest full-profile
 * item of the person admitted no later than the activity item, or the stored
 * observation (`itemId`) when that one is newer. Admitted at the same instant
 * (a clock that stands still), the one not finished yet is the round's, else
 * the stored observation. The previous round's row
 * keeps what was shown then. A replayed finish writes the same values again.
 * It writes only if `when` holds (store/one-statement.ts, gateHolds).
 */
export function historyWrite(
  db: Kysely<Database>,
  input: { reportId: string; profileId: string; itemId: string; endingItemId: string },
  analysis: { findings: readonly StoredFinding[]; good: number; optimize: number; unknown: number; captured_at: Date },
  now: Date,
  when: RawBuilder<boolean>,
): OperationNodeSource {
  const values = {
    good: analysis.good,
    optimize: analysis.optimize,
    unknown: analysis.unknown,
    captured_at: analysis.captured_at,
    outcomes: JSON.stringify(Object.fromEntries(analysis.findings.map((f) => [f.check_key, f.outcome]))),
    updated_at: now,
  };
  const round =
    input.endingItemId === input.itemId
      ? sql<string>`${input.itemId}::uuid`
      : sql<string>`coalesce((
          select f.id from scan_items f
           where f.report_id = ${input.reportId} and f.profile_id = ${input.profileId} and f.run_mode = 'full_profile'
             and (f.id = ${input.itemId} or f.created_at <= (select a.created_at from scan_items a where a.id = ${input.endingItemId}))
           order by f.run_created_at desc, f.created_at desc, f.finished_at is null desc, f.id = ${input.itemId} desc
           limit 1), ${input.itemId}::uuid)`;
  return insertRowIf(
    db,
    'person_scan_history',
    { item_id: round, report_id: input.reportId, profile_id: input.profileId, scanned_at: now, ...values },
    when,
  ).onConflict((oc) => oc.column('item_id').doUpdateSet(values));
}

/**
 * Stores the team's picture if the report's round of scans is complete: no
 * run queued or running, and no roll-up delta left to fold, so the stored
 * totals count every finished item. One snapshot per last completed run (a
 * second call for the same round adds nothing). True when it stored one.
 */
export async function recordCompletedRound(db: Kysely<Database>, reportId: string): Promise<boolean> {
  const { numAffectedRows } = await sql`
    insert into report_snapshots (report_id, run_id, completed_at, persons, analyzed, answered_persons, checks)
    select a.report_id, last.id, last.completed_at, (a.totals->>'persons')::int, (a.totals->>'analyzed')::int,
           (a.totals->>'answered_persons')::int, coalesce(a.totals->'checks', '{}'::jsonb)
      from report_aggregates a
      cross join lateral (select r.id, r.completed_at from scan_runs r
                           where r.report_id = a.report_id and r.completed_at is not null
                           order by r.completed_at desc, r.id desc limit 1) last
     where a.report_id = ${reportId}
       and not exists (select 1 from scan_runs r where r.report_id = a.report_id and r.status = 'queued')
       and not exists (select 1 from scan_runs r where r.report_id = a.report_id and r.status = 'running')
       and not exists (select 1 from rollup_deltas d where d.report_id = a.report_id)
    on conflict (report_id, run_id) do nothing`.execute(db);
  return Number(numAffectedRows ?? 0) > 0;
}

/** A person's two newest scans and their latest full-profile item's status, for progress (domain/progress.ts). */
export interface PersonScansRow {
  profile_id: string;
  /** Outcomes by check key, newest first: at most two. */
  scans: Record<string, Outcome>[];
  /** The status of their latest full-profile item (store/latest-item.ts); null when none. */
  latest_status: string | null;
}

/**
 * Each active person's two newest scans: one index lookup per person
 * (`person_scan_history_person`), whatever the depth of their history.
 */
export async function readPeopleScans(db: Kysely<Database>, reportId: string): Promise<PersonScansRow[]> {
  const { rows } = await sql<PersonScansRow>`
    select p.id as profile_id, li.status as latest_status,
           coalesce((select json_agg(x.outcomes order by x.seq desc)
                       from (select h.outcomes, h.seq from person_scan_history h
                              where h.profile_id = p.id order by h.seq desc limit 2) x), '[]'::json) as scans
      from report_profiles p
      ${sql.raw(latestFullItemJoin('p'))}
     where p.report_id = ${reportId} and p.status = 'active'`.execute(db);
  return rows;
}

/** One scan of a person as the history keeps it. */
export interface PersonScan {
  scanned_at: Date;
  captured_at: Date;
  good: number;
  optimize: number;
  unknown: number;
  outcomes: Record<string, Outcome>;
}

/** A person's newest `limit` scans, oldest first, and their latest full-profile item's status (null: none). */
export async function readPersonScans(
  db: Kysely<Database>,
  input: { reportId: string; profileId: string; limit: number },
): Promise<{ scans: PersonScan[]; latestStatus: string | null }> {
  const { rows } = await sql<{
    latest_status: string | null;
    scans: (Omit<PersonScan, 'scanned_at' | 'captured_at'> & { scanned_at: string; captured_at: string })[];
  }>`
    select li.status as latest_status,
           coalesce((select json_agg(x order by x.seq)
                       from (select h.seq, h.scanned_at, h.captured_at, h.good, h.optimize, h.unknown, h.outcomes from person_scan_history h
                              where h.profile_id = p.id order by h.seq desc limit ${input.limit}) x), '[]'::json) as scans
      from report_profiles p
      ${sql.raw(latestFullItemJoin('p'))}
     where p.report_id = ${input.reportId} and p.id = ${input.profileId}`.execute(db);
  const row = rows[0];
  if (!row) return { scans: [], latestStatus: null };
  return {
    scans: row.scans.map((s) => ({ ...s, scanned_at: new Date(s.scanned_at), captured_at: new Date(s.captured_at) })),
    latestStatus: row.latest_status,
  };
}

/** One completed round of a report as its snapshot keeps it. */
export interface RoundSnapshot {
  completedAt: Date;
  persons: number;
  analyzed: number;
  checks: Record<string, CheckTotals>;
}

/** A report's newest `limit` completed rounds, oldest first. */
export async function readReportRounds(db: Kysely<Database>, reportId: string, limit: number): Promise<RoundSnapshot[]> {
  const rows = await db
    .selectFrom('report_snapshots')
    .select(['completed_at', 'persons', 'analyzed', 'checks'])
    .where('report_id', '=', reportId)
    .orderBy('completed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse().map((r) => ({ completedAt: r.completed_at, persons: r.persons, analyzed: r.analyzed, checks: r.checks }));
}

/** Rows one pruning statement deletes at most (maintenance goes round until a batch finds fewer). */
const HISTORY_PRUNE_BATCH = 5000;

/**
 * Deletes the history older than `before`, in batches, each its own
 * statement: a person's scans and a report's rounds. Returns how many rows
 * went. The analysis shown stays in profile_analyses, whatever its age.
 */
export async function pruneHistory(db: Kysely<Database>, before: Date, batch = HISTORY_PRUNE_BATCH): Promise<number> {
  let total = 0;
  for (const table of ['person_scan_history', 'report_snapshots'] as const) {
    const key = table === 'person_scan_history' ? 'item_id' : 'id';
    const at = table === 'person_scan_history' ? 'scanned_at' : 'completed_at';
    for (;;) {
      const { numAffectedRows } = await sql`
        delete from ${sql.table(table)}
         where ${sql.ref(key)} in (select ${sql.ref(key)} from ${sql.table(table)} where ${sql.ref(at)} < ${before} limit ${batch})`.execute(db);
      const n = Number(numAffectedRows ?? 0);
      total += n;
      if (n < batch) break;
    }
  }
  return total;
}
