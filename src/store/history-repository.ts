/**
 * The history of what was shown (migration 0054; docs/analysis.md, "History
 * and progress"): a person's analysis per observation of their profile
 * (`person_scan_history`, written in the statement that ends the item:
 * `historyWrite`), and the team's picture per completed round of scans
 * (`report_snapshots`, written after the fold that completed it:
 * `recordCompletedRound`); their reads, and their retention
 * (HISTORY_RETENTION_MONTHS, `pruneHistory`). A person's row keeps what
 * changed since their previous scan (domain/progress.ts, sincePrevious),
 * computed by the finish from the previous row it read (`historyRound`), so
 * a team's progress reads one row per person.
 */
import { sql, type Kysely, type OperationNodeSource, type RawBuilder } from 'kysely';
import { insertRowIf } from './one-statement.js';
import type { CheckTotals } from '../domain/analysis-aggregate.js';
import type { StoredFinding } from '../domain/analysis-records.js';
import { scanScorePct, sincePrevious, type Outcomes, type SincePrevious } from '../domain/progress.js';
import { latestFullItemJoin } from './latest-item.js';
import type { Database, StoredSincePrevious } from './schema.js';

const toStored = (since: SincePrevious | null): string | null =>
  since === null ? null : JSON.stringify({ fixed: since.fixed, opened: since.opened, previous_score_pct: since.previousScorePct, change_pct: since.changePct });

const fromStored = (since: StoredSincePrevious | null): SincePrevious | null =>
  since === null ? null : { fixed: since.fixed, opened: since.opened, previousScorePct: since.previous_score_pct, changePct: since.change_pct };

/** The round a finishing item's history row belongs to, and the outcomes of the person's scan before that round (null: none). */
export interface HistoryRound {
  round: string;
  previous: Outcomes | null;
}

/**
 * The SQL of a finishing item's history round (for readFinishFacts, which
 * reads it with the person's facts; the statement that ends the item checks
 * the person has not changed since): the round's row is keyed by the round's
 * full-profile item. An item that observed the profile (`observes`) is its
 * own round. An activity item (`endingItemId`) belongs to the newest
 * full-profile item of the person admitted no later than itself, or to the
 * stored observation (`observedItemId`) when that one is newer: so one that
 * ends before its round's full-profile item writes its own round's row, which
 * that item then updates. Admitted at the same instant (a clock that stands
 * still), the one not finished yet is the round's, else the stored
 * observation. The previous scan is the person's newest row written before
 * the round's (all of them when the round has none yet). JSON
 * `{round, previous}`, or null when there is no round (no observation).
 */
export function historyRoundSql(input: {
  reportId: string;
  profileId: string;
  endingItemId: string;
  observes: boolean;
  observedItemId: RawBuilder<string | null>;
}): RawBuilder<HistoryRound | null> {
  const round = input.observes
    ? sql<string>`${input.endingItemId}::uuid`
    : sql<string>`coalesce((
          select f.id from scan_items f
           where f.report_id = ${input.reportId} and f.profile_id = ${input.profileId} and f.run_mode = 'full_profile'
             and (f.id = ${input.observedItemId} or f.created_at <= (select a.created_at from scan_items a where a.id = ${input.endingItemId}))
           order by f.run_created_at desc, f.created_at desc, f.finished_at is null desc, f.id = ${input.observedItemId} desc
           limit 1), ${input.observedItemId})`;
  return sql<HistoryRound | null>`(
    select json_build_object('round', r.id, 'previous', (
             select h.outcomes from person_scan_history h
              where h.profile_id = ${input.profileId}
                and h.seq < coalesce((select x.seq from person_scan_history x where x.item_id = r.id), 9223372036854775807)
              order by h.seq desc limit 1))
      from (select ${round} as id) r where r.id is not null)`;
}

/**
 * The write that keeps a person's analysis with the round of scans it was
 * evaluated in (`round`: historyRoundSql), with what changed since the
 * person's previous scan (`previous`' outcomes; null: none). A new
 * observation adds its round's row; a later item of the same round (an
 * activity item) updates it, as it updates the shown analysis. The previous
 * round's row keeps what was shown then. A replayed finish writes the same
 * values again. It writes only if `when` holds (store/one-statement.ts,
 * gateHolds).
 */
export function historyWrite(
  db: Kysely<Database>,
  input: { reportId: string; profileId: string; round: HistoryRound },
  analysis: { findings: readonly StoredFinding[]; good: number; optimize: number; unknown: number; captured_at: Date },
  now: Date,
  when: RawBuilder<boolean>,
): OperationNodeSource {
  const outcomes: Outcomes = Object.fromEntries(analysis.findings.map((f) => [f.check_key, f.outcome]));
  const values = {
    good: analysis.good,
    optimize: analysis.optimize,
    unknown: analysis.unknown,
    captured_at: analysis.captured_at,
    outcomes: JSON.stringify(outcomes),
    compared: true,
    since_previous: toStored(input.round.previous === null ? null : sincePrevious(input.round.previous, outcomes)),
    scored: true,
    score_pct: scanScorePct(outcomes),
    updated_at: now,
  };
  return insertRowIf(
    db,
    'person_scan_history',
    { item_id: input.round.round, report_id: input.reportId, profile_id: input.profileId, scanned_at: now, ...values },
    when,
  ).onConflict((oc) => oc.column('item_id').doUpdateSet(values));
}

/** Rows one comparing statement reads and updates at most. */
const COMPARE_BATCH = 1000;

/**
 * Computes what changed since the previous scan (migration 0058) and the
 * scan's score (0059) for rows that lack either (written before those
 * migrations, or by a process of an earlier version), oldest first, one
 * batch: each compared against the person's newest row written before it.
 * Run by the migration runner until none is left, and by maintenance.
 * Returns how many rows it completed.
 */
export async function compareHistory(db: Kysely<Database>, batch = COMPARE_BATCH): Promise<number> {
  const { rows } = await sql<{ item_id: string; outcomes: Outcomes; previous: Outcomes | null }>`
    select h.item_id, h.outcomes,
           (select p.outcomes from person_scan_history p where p.profile_id = h.profile_id and p.seq < h.seq order by p.seq desc limit 1) as previous
      from person_scan_history h
     where not (h.compared and h.scored)
     order by h.seq
     limit ${batch}`.execute(db);
  if (rows.length === 0) return 0;
  const since = rows.map((r) => toStored(r.previous === null ? null : sincePrevious(r.previous, r.outcomes)));
  const scores = rows.map((r) => scanScorePct(r.outcomes));
  // What a finish wrote meanwhile is its own, already computed: left as it is.
  await sql`
    update person_scan_history h
       set compared = true, since_previous = case when h.compared then h.since_previous else v.since end,
           scored = true, score_pct = case when h.scored then h.score_pct else v.score end
      from unnest(${rows.map((r) => r.item_id)}::uuid[], ${since}::jsonb[], ${scores}::double precision[]) as v(item_id, since, score)
     where h.item_id = v.item_id and not (h.compared and h.scored)`.execute(db);
  return rows.length;
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

/** A person's newest scan, for progress (domain/progress.ts), and their latest full-profile item's status. */
export interface PersonLatestScan {
  profile_id: string;
  /** Whether they have a scan in the history. */
  scanned: boolean;
  /** What changed since the scan before it; null for a first scan. */
  since: SincePrevious | null;
  /** The status of their latest full-profile item (store/latest-item.ts); null when none. */
  latest_status: string | null;
}

/**
 * Each active person's newest scan: one index lookup per person
 * (`person_scan_history_person`), whatever the depth of their history.
 */
export async function readPeopleScans(db: Kysely<Database>, reportId: string): Promise<PersonLatestScan[]> {
  const { rows } = await sql<{ profile_id: string; latest_status: string | null; scanned: boolean; since_previous: StoredSincePrevious | null }>`
    select p.id as profile_id, li.status as latest_status, h.item_id is not null as scanned, h.since_previous
      from report_profiles p
      ${sql.raw(latestFullItemJoin('p'))}
      left join lateral (select x.item_id, x.since_previous from person_scan_history x
                          where x.profile_id = p.id order by x.seq desc limit 1) h on true
     where p.report_id = ${reportId} and p.status = 'active'`.execute(db);
  return rows.map((r) => ({ profile_id: r.profile_id, latest_status: r.latest_status, scanned: r.scanned, since: fromStored(r.since_previous) }));
}

/** One scan of a person as their trend shows it. */
export interface PersonScan {
  scanned_at: Date;
  /** The scan's weighted score, stored with it (scanScorePct); null when no check was answered. */
  score_pct: number | null;
  /** What changed since the scan before it; null for a first scan. */
  since: SincePrevious | null;
}

/** A person's newest `limit` scans, oldest first, and their latest full-profile item's status (null: none). */
export async function readPersonScans(
  db: Kysely<Database>,
  input: { reportId: string; profileId: string; limit: number },
): Promise<{ scans: PersonScan[]; latestStatus: string | null }> {
  const { rows } = await sql<{
    latest_status: string | null;
    scans: { scanned_at: string; score_pct: number | null; since_previous: StoredSincePrevious | null }[];
  }>`
    select li.status as latest_status,
           coalesce((select json_agg(x order by x.seq)
                       from (select h.seq, h.scanned_at, h.score_pct, h.since_previous from person_scan_history h
                              where h.profile_id = p.id order by h.seq desc limit ${input.limit}) x), '[]'::json) as scans
      from report_profiles p
      ${sql.raw(latestFullItemJoin('p'))}
     where p.report_id = ${input.reportId} and p.id = ${input.profileId}`.execute(db);
  const row = rows[0];
  if (!row) return { scans: [], latestStatus: null };
  return {
    scans: row.scans.map((s) => ({ scanned_at: new Date(s.scanned_at), score_pct: s.score_pct, since: fromStored(s.since_previous) })),
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
