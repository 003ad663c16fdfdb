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
import { roundFigures, scanScorePct, sincePrevious, type Outcomes, type RoundFigures, type SincePrevious } from '../domain/progress.js';
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
  /** Whether the round's row is the person's newest (or, not written yet, will be): what it holds is then where they stand now. */
  latest: boolean;
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
              where h.profile_id = ${input.profileId} and h.seq < r.seq
              order by h.seq desc limit 1),
           'latest', not exists (select 1 from person_scan_history h where h.profile_id = ${input.profileId} and h.seq > r.seq))
      from (select x.id, coalesce((select h.seq from person_scan_history h where h.item_id = x.id), 9223372036854775807) as seq
              from (select ${round} as id) x) r
     where r.id is not null)`;
}

/**
 * The write that keeps a person's analysis with the round of scans it was
 * evaluated in (`round`: historyRoundSql), as `historyScan` makes it: its
 * outcomes and what changed since the person's previous scan. A new
 * observation adds its round's row; a later item of the same round (an
 * activity item) updates it, as it updates the shown analysis. The previous
 * round's row keeps what was shown then. A replayed finish writes the same
 * values again. It writes only if `when` holds (store/one-statement.ts,
 * gateHolds).
 */
export function historyWrite(
  db: Kysely<Database>,
  input: { reportId: string; profileId: string; round: HistoryRound },
  scan: HistoryScan,
  analysis: { good: number; optimize: number; unknown: number; captured_at: Date },
  now: Date,
  when: RawBuilder<boolean>,
): OperationNodeSource {
  const values = {
    good: analysis.good,
    optimize: analysis.optimize,
    unknown: analysis.unknown,
    captured_at: analysis.captured_at,
    outcomes: JSON.stringify(scan.outcomes),
    compared: true,
    since_previous: toStored(scan.since),
    scored: true,
    score_pct: scanScorePct(scan.outcomes),
    updated_at: now,
  };
  return insertRowIf(
    db,
    'person_scan_history',
    { item_id: input.round.round, report_id: input.reportId, profile_id: input.profileId, scanned_at: now, ...values },
    when,
  ).onConflict((oc) => oc.column('item_id').doUpdateSet(values));
}

/** A scan as its round's history row keeps it: each check's outcome, and what changed since the previous scan (null: none). */
export interface HistoryScan {
  outcomes: Outcomes;
  since: SincePrevious | null;
}

/** The scan an analysis makes in its round (`round`: historyRoundSql). */
export function historyScan(round: HistoryRound, analysis: { findings: readonly StoredFinding[] }): HistoryScan {
  const outcomes: Outcomes = Object.fromEntries(analysis.findings.map((f) => [f.check_key, f.outcome]));
  return { outcomes, since: round.previous === null ? null : sincePrevious(round.previous, outcomes) };
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
export async function compareHistory(db: Kysely<Database>, now: Date, batch = COMPARE_BATCH): Promise<number> {
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
    with changed as (
      update person_scan_history h
         set compared = true, since_previous = case when h.compared then h.since_previous else v.since end,
             scored = true, score_pct = case when h.scored then h.score_pct else v.score end
        from unnest(${rows.map((r) => r.item_id)}::uuid[], ${since}::jsonb[], ${scores}::double precision[]) as v(item_id, since, score)
       where h.item_id = v.item_id and not (h.compared and h.scored)
      returning h.report_id, h.profile_id, h.seq)
    ${recomputeNewest(now)}`.execute(db);
  return rows.length;
}

/**
 * The end of a statement whose CTE `changed` (report_id, profile_id, seq)
 * holds history rows it updates or deletes: asks the report's roll-up to
 * recompute each person whose changed row was their newest (a delta naming
 * them, as a begun item's does: store/rollup-repository.ts), for their
 * progress is their newest row's (domain/analysis-aggregate.ts). The
 * statement's snapshot still holds the rows it deletes.
 */
function recomputeNewest(now: Date): RawBuilder<unknown> {
  return sql`
    insert into rollup_deltas (report_id, run_id, started, at, recompute_profile_id)
    select distinct c.report_id, null::uuid, false, ${now}::timestamptz, c.profile_id
      from changed c
     where not exists (select 1 from person_scan_history n where n.profile_id = c.profile_id and n.seq > c.seq)`;
}

/** Deletes the history rows of the items `itemIds` (pruned items: store/maintenance-repository.ts), asking the roll-up to recompute whom that changes. */
export async function deleteItemsHistory(db: Kysely<Database>, itemIds: readonly string[], now: Date): Promise<void> {
  await sql`
    with changed as (delete from person_scan_history where item_id = any(${[...itemIds]}::uuid[]) returning report_id, profile_id, seq)
    ${recomputeNewest(now)}`.execute(db);
}

/**
 * Stores the team's picture if the report's round of scans is complete: no
 * run queued or running, and no roll-up delta left to fold, so the stored
 * totals count every finished item. One snapshot per last completed run (a
 * second call for the same round adds nothing). True when it stored one.
 */
export async function recordCompletedRound(db: Kysely<Database>, reportId: string): Promise<boolean> {
  const { rows } = await sql<{ id: number; checks: Record<string, CheckTotals> }>`
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
    on conflict (report_id, run_id) do nothing
    returning id, checks`.execute(db);
  // Its figures, from the counts it stored (a crash in between leaves them to pointRounds).
  await storeRoundFigures(db, rows);
  return rows.length > 0;
}

/** Stores each round's figures (domain/progress.ts, roundFigures) from its checks' counts. */
async function storeRoundFigures(db: Kysely<Database>, rounds: readonly { id: number; checks: Record<string, CheckTotals> }[]): Promise<void> {
  if (rounds.length === 0) return;
  const figures = rounds.map((r) => roundFigures(r.checks));
  await sql`
    update report_snapshots s set pointed = true, score_pct = v.score, top_gaps = array(select jsonb_array_elements_text(v.gaps))
      from unnest(${rounds.map((r) => r.id)}::bigint[], ${figures.map((f) => f.scorePct)}::double precision[],
                  ${figures.map((f) => JSON.stringify(f.topGaps))}::jsonb[]) as v(id, score, gaps)
     where s.id = v.id`.execute(db);
}

/** Rounds one pointing statement reads and updates at most. */
const POINT_BATCH = 1000;

/**
 * Stores the figures of rounds recorded without them (before migration
 * 0060, or whose recording a crash cut short), oldest first, one batch. Run
 * by the migration runner until none is left, and by maintenance. Returns
 * how many rounds it completed.
 */
export async function pointRounds(db: Kysely<Database>, batch = POINT_BATCH): Promise<number> {
  const { rows } = await sql<{ id: number; checks: Record<string, CheckTotals> }>`
    select id, checks from report_snapshots where not pointed order by id limit ${batch}`.execute(db);
  await storeRoundFigures(db, rows);
  return rows.length;
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
 * (`person_scan_history_trend`), whatever the depth of their history.
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
}

/**
 * A person's newest `limit` scans, oldest first; what changed since the scan
 * before the newest (null: none, or a first scan); and their latest
 * full-profile item's status (null: none).
 */
export async function readPersonScans(
  db: Kysely<Database>,
  input: { reportId: string; profileId: string; limit: number },
): Promise<{ scans: PersonScan[]; since: SincePrevious | null; latestStatus: string | null }> {
  const { rows } = await sql<{
    latest_status: string | null;
    /** Epoch milliseconds: numbers parse without a date parser per scan. */
    times: number[] | null;
    scores: (number | null)[] | null;
    since_previous: StoredSincePrevious | null;
  }>`
    select li.status as latest_status, t.times, t.scores,
           (select h.since_previous from person_scan_history h where h.profile_id = p.id order by h.seq desc limit 1) as since_previous
      from report_profiles p
      ${sql.raw(latestFullItemJoin('p'))}
      cross join lateral (
        select array_agg((extract(epoch from x.scanned_at) * 1000)::float8 order by x.seq) as times, array_agg(x.score_pct order by x.seq) as scores
          from (select h.seq, h.scanned_at, h.score_pct from person_scan_history h
                 where h.profile_id = p.id order by h.seq desc limit ${input.limit}) x) t
     where p.report_id = ${input.reportId} and p.id = ${input.profileId}`.execute(db);
  const row = rows[0];
  if (!row) return { scans: [], since: null, latestStatus: null };
  const scores = row.scores ?? [];
  return {
    scans: (row.times ?? []).map((ms, i) => ({ scanned_at: new Date(ms), score_pct: scores[i] })),
    since: fromStored(row.since_previous),
    latestStatus: row.latest_status,
  };
}

/** One completed round of a report as its snapshot keeps it. */
export interface RoundSnapshot {
  completedAt: Date;
  persons: number;
  analyzed: number;
  /** Its stored figures; null until they are stored (pointRounds), when `checks` holds what they are computed from. */
  figures: RoundFigures | null;
  checks: Record<string, CheckTotals> | null;
}

/** A report's newest `limit` completed rounds, oldest first. */
export async function readReportRounds(db: Kysely<Database>, reportId: string, limit: number): Promise<RoundSnapshot[]> {
  const { rows } = await sql<{
    completed_at: Date;
    persons: number;
    analyzed: number;
    pointed: boolean;
    score_pct: number | null;
    top_gaps: string[] | null;
    checks: Record<string, CheckTotals> | null;
  }>`
    select s.completed_at, s.persons, s.analyzed, s.pointed, s.score_pct, s.top_gaps, case when s.pointed then null else s.checks end as checks
      from report_snapshots s
     where s.report_id = ${reportId}
     order by s.completed_at desc, s.id desc
     limit ${limit}`.execute(db);
  return rows.reverse().map((r) => ({
    completedAt: r.completed_at,
    persons: r.persons,
    analyzed: r.analyzed,
    figures: r.pointed ? { scorePct: r.score_pct, topGaps: r.top_gaps ?? [] } : null,
    checks: r.checks,
  }));
}

/** Rows one pruning statement deletes at most (maintenance goes round until a batch finds fewer). */
const HISTORY_PRUNE_BATCH = 5000;

/**
 * Deletes the history older than `before`, in batches, each its own
 * statement: a person's scans and a report's rounds. Returns how many rows
 * went. The analysis shown stays in profile_analyses, whatever its age; a
 * person whose newest scan goes is recomputed in the team's progress.
 */
export async function pruneHistory(db: Kysely<Database>, before: Date, now: Date, batch = HISTORY_PRUNE_BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      with changed as (
        delete from person_scan_history
         where item_id in (select item_id from person_scan_history where scanned_at < ${before} limit ${batch})
        returning report_id, profile_id, seq),
      asked as (${recomputeNewest(now)})
      select count(*)::int as n from changed`.execute(db);
    total += rows[0].n;
    if (rows[0].n < batch) break;
  }
  for (;;) {
    const { numAffectedRows } = await sql`
      delete from report_snapshots where id in (select id from report_snapshots where completed_at < ${before} limit ${batch})`.execute(db);
    const n = Number(numAffectedRows ?? 0);
    total += n;
    if (n < batch) break;
  }
  return total;
}
