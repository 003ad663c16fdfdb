/**
 * The fold: a report's pending roll-up deltas (deltas.ts, and the begins'
 * requests to recompute a person or the company page) added into its
 * aggregates, its runs and its row, one read and one write for however many
 * are pending. When folds run is settle.ts.
 */
import { sql, type Kysely } from 'kysely';
import { addTotals, type CompanyFacts, type Contribution, type Totals } from '../domain/analysis-aggregate.js';
import { lockReport } from '../store/locks.js';
import { inOneStatement } from '../store/one-statement.js';
import { BEGUN_PERSON_FACTS_COLUMNS, companyFactsSql, companyFromJson, gathered, type CompanyFactsJson, type PersonFactsRow } from '../store/person-facts.js';
import {
  activeChangedIds,
  contributionsWrite,
  pendingFrom,
  recompute,
  refreshReportRollup,
  reportRowUpdate,
  runStatesSql,
  storeVisibleFlags,
  withCompany,
  type AggregateRow,
  type ChangedContribution,
  type DeltaRow,
  type RunStates,
} from '../store/rollup-repository.js';
import { runAfter, type RunProgress } from '../store/scan-repository.js';
import type { Database } from '../store/schema.js';
import { retryingTransaction } from '../store/transaction.js';

/**
 * A fold's outcome. `more`: deltas other than those folded were pending when
 * the fold's write began (besides those asking again for people another
 * transaction held, which that transaction's fold takes): the caller folds
 * again. Deltas committed after that are folded by their own transitions'
 * requests (queue/settle.ts).
 */
export type FoldResult = { kind: 'folded'; more: boolean } | { kind: 'empty' } | { kind: 'busy' };

/**
 * One fold of a report's pending deltas, without a transaction: one
 * statement reads them with what they fold into, and one writes the fold,
 * if no one changed any of it in between. What it trades and why: a
 * transaction of several statements waits for the worker's busy event loop
 * between every two while it holds the report's row
 * (docs/decisions/0003-begin-without-a-lock.md); in exchange the fold reads before it
 * locks, so its write may find the report or a person changed ('stale':
 * nothing written, and it reads again).
 *
 * 1. `foldRead`: the report row's version (its `xmin`: every writer of the
 *    report's aggregates and runs ends by updating the report row,
 *    `updateReportRow`, under the report lock), the pending deltas, the
 *    stored aggregates, the report's runs, the facts of the people the
 *    deltas ask to recompute (with their versions, locks.ts) and, when one
 *    asks for it, of the company page (whatever changes those either
 *    updates the report row, as the end of its item does, or appends a
 *    delta that asks for it again, as its begin does);
 * 2. the sums, the recomputed contributions, the runs as the deltas leave
 *    them (`runAfter`) and the report's state, in TypeScript;
 * 3. `foldWrite`: takes the report lock (SKIP LOCKED: 'busy' when another
 *    transaction holds it), and writes only if the report row is the
 *    version read and every recomputed person's version was (bumping them):
 *    deletes the deltas read, writes the runs, the aggregates, the
 *    contributions and the report row. A row lock's UPDATE or SELECT … FOR
 *    UPDATE rechecks its condition on the newest version of the row, so the
 *    comparisons see every change committed before the locks, although the
 *    statement's snapshot predates them.
 *
 * A report with no aggregate row yet (never the case for one made by
 * create-report) is summed from scratch in a transaction under its lock.
 */
export async function foldOnce(db: Kysely<Database>, reportId: string, now: Date): Promise<FoldResult> {
  for (let attempt = 1; ; attempt++) {
    const plan = await planFold(db, reportId, now);
    if (plan.kind !== 'write') return plan;
    const written = await writeFold(db, reportId, plan);
    if (written === 'busy') return { kind: 'busy' };
    if (written !== 'stale') return { kind: 'folded', more: written.more };
    if (attempt >= MAX_FOLD_READS) throw new Error(`the report ${reportId} changed ${attempt} times while it was folded`);
  }
}

/** What a fold writes, decided from its read (`planFold`); `writeFold` writes it if nothing it read has changed. */
export interface FoldPlan extends FoldWrite {
  kind: 'write';
}

/**
 * The fold's read and what it decides from it: nothing to fold ('empty'),
 * a report without an aggregate row summed from scratch under its lock
 * ('folded'), or the write to make (`writeFold`).
 */
export async function planFold(db: Kysely<Database>, reportId: string, now: Date): Promise<FoldPlan | Extract<FoldResult, { kind: 'empty' | 'folded' }>> {
  const read = await foldRead(db, reportId);
  if (read === null || read.deltas.length === 0) return { kind: 'empty' };
  const pending = pendingFrom(read.deltas, now);
  if (!read.stored) {
    await retryingTransaction(db, async (trx) => {
      await lockReport(trx, reportId);
      await refreshReportRollup(trx, reportId, 'all', pending.at);
    });
    // Summed from scratch: whatever was pending besides is looked at by the next round.
    return { kind: 'folded', more: true };
  }
  const changed: ChangedContribution[] = [];
  const withPeople = recompute(read.people.map(gathered), read.stored.totals, changed, { rebuild: false });
  // The company page, when a delta asks for it (its item begun or ended).
  const company = read.company && withCompany(withPeople, read.stored.company, read.company);
  const totals = company ? company.totals : withPeople;
  // The runs the deltas change (the only ones read), with their counts added.
  const runs = read.runs.map((run) => {
    const counts = pending.runs.get(run.id);
    return { id: run.id, version: run.version, after: counts ? runAfter(run, counts, pending.at) : run };
  });
  const after = runs.map((run) => run.after.status);
  return {
    kind: 'write',
    version: read.version,
    deltaIds: read.deltas.map((d) => d.id),
    // Those of them that `more` counts: all but the asks for held people (asked again by the write).
    counted: read.deltas.filter((d) => d.recompute_profile_id === null || !read.held.includes(d.recompute_profile_id)).length,
    people: read.people.map((p) => ({ id: p.id, version: p.facts_version })),
    held: read.held,
    runs,
    runStates: {
      has_runs: read.otherRuns.has_runs || runs.length > 0,
      running: read.otherRuns.running || after.includes('running'),
      queued: read.otherRuns.queued || after.includes('queued'),
    },
    totals: pending.totals ? addTotals(totals, pending.totals) : totals,
    contributions: changed,
    company: company && company.contribution !== read.stored.company ? company.contribution : null,
    at: pending.at,
  };
}

/** How many times a fold reads again when the report or a person changed meanwhile, before it gives up (the sweep folds later). */
const MAX_FOLD_READS = 10;

type DeltaRead = DeltaRow & { id: number };

interface FoldRead {
  /** The report row's version (`xmin`), which `foldWrite` checks. */
  version: string;
  deltas: DeltaRead[];
  stored: AggregateRow | null;
  /** The runs the deltas read change, with their versions (`xmin`). */
  runs: (RunProgress & { id: string; version: string })[];
  /** The states of the report's other runs. */
  otherRuns: RunStates;
  /** The facts of the people the deltas ask to recompute that no other transaction held when read (SKIP LOCKED). */
  people: PersonFactsRow[];
  /** Those another transaction held: asked for again, by a delta each, which that transaction's fold takes. */
  held: string[];
  /** The company page's facts, when a delta asks to recompute it (null: none does). */
  company: CompanyFacts | null;
}

/**
 * The most deltas one fold takes, the oldest first; the rest wait for its
 * next round (its write says `more`). The write names the deltas it read
 * (`id = any(…)`), and under a generic plan PostgreSQL tests that list
 * against each of the report's deltas one element after another: unbounded,
 * a fold cost the product of the backlog and its own size (a large backlog:
 * one long statement holding the report's row, where the same write planned
 * for its values is quick). With a batch, and
 * the write's scan kept to the ids between the first and the last it read,
 * a round's list costs at most the batch's square, and a backlog costs
 * rounds, none of which holds the report's row for long. Plans made while
 * rollup_deltas was nearly empty scan the whole table each round until the
 * next ANALYZE, at most an autovacuum round away on a busy service
 * (bench:queue folds a backlog both ways).
 */
export const FOLD_BATCH = 500;

/**
 * The fold's read, in one statement (one snapshot); null when the report is
 * gone. The people the deltas ask to recompute are read if no other
 * transaction holds them (their row locks, tried with SKIP LOCKED, last only
 * as long as the statement): a transition holding one recomputes them, and
 * the fold leaves them to it.
 *
 * The lock only decides who is read; every column of a person, their
 * version too, is read from the statement's snapshot. A row locked FOR
 * UPDATE is returned as its newest version, which may be newer than the
 * snapshot (a finish that committed while this statement ran): its version
 * would then pass the write's check while its contribution and facts,
 * read from the snapshot, are the ones before that finish, and the fold
 * would add that finish's change a second time.
 *
 * The report's pending deltas are read once (`d`) for the deltas, the
 * people, the begun ids and the company page: rollup_deltas holds rows that
 * live for milliseconds, and until vacuum reaches it each scan also walks
 * the dead ones (many pages for a few live rows under load).
 */
async function foldRead(db: Kysely<Database>, reportId: string): Promise<FoldRead | null> {
  const { rows } = await sql<{
    version: string;
    deltas: (Omit<DeltaRead, 'at'> & { at: string })[] | null;
    stored: AggregateRow | null;
    runs: (Omit<RunProgress, 'started_at' | 'completed_at'> & { id: string; version: string; started_at: string | null; completed_at: string | null })[] | null;
    other_runs: RunStates;
    people: PersonFactsRow[] | null;
    begun: string[] | null;
    company: CompanyFactsJson | null;
  }>`
    with d as materialized (
      select id, run_id, started, finished, warning, totals, at, recompute_profile_id, recompute_company
        from rollup_deltas where report_id = ${reportId} order by id limit ${FOLD_BATCH})
    select r.xmin::text as version,
           (select json_agg(json_build_object('id', d.id, 'run_id', d.run_id, 'started', d.started, 'finished', d.finished, 'warning', d.warning,
                                              'totals', d.totals, 'at', d.at, 'recompute_profile_id', d.recompute_profile_id) order by d.id)
              from d) as deltas,
           (select json_build_object('totals', a.totals, 'company', a.company) from report_aggregates a where a.report_id = r.id) as stored,
           (select json_agg(json_build_object('id', x.id, 'version', x.xmin::text, 'status', x.status, 'unfinished', x.unfinished, 'completed', x.completed, 'warnings', x.warnings,
                                              'failed', x.failed, 'inaccessible', x.inaccessible, 'cancelled', x.cancelled, 'started_at', x.started_at,
                                              'completed_at', x.completed_at, 'terminal_reason', x.terminal_reason))
              from scan_runs x where x.id = any (array(select distinct d.run_id from d where d.run_id is not null)) and x.report_id = r.id) as runs,
           (select row_to_json(o) from (${runStatesSql(sql`r.id`, sql`array(select d.run_id from d where d.run_id is not null)`)}) o) as other_runs,
           (select json_agg(to_jsonb(pf)) from (
              select ${sql.raw(BEGUN_PERSON_FACTS_COLUMNS)}
                from report_profiles p
               where p.report_id = r.id
                 and p.id = any (array(select u.id from report_profiles u
                                        where u.id = any (array(select d.recompute_profile_id from d where d.recompute_profile_id is not null))
                                        for no key update skip locked))) pf) as people,
           (select array_agg(distinct d.recompute_profile_id) from d where d.recompute_profile_id is not null) as begun,
           case when exists (select 1 from d where d.recompute_company)
                then ${sql.raw(companyFactsSql('r.id'))} end as company
      from reports r where r.id = ${reportId}`.execute(db);
  const row = rows[0];
  if (!row) return null;
  const date = (value: string | null) => (value === null ? null : new Date(value));
  return {
    version: row.version,
    deltas: (row.deltas ?? []).map((d) => ({ ...d, at: new Date(d.at) })),
    stored: row.stored,
    runs: (row.runs ?? []).map((run) => ({ ...run, started_at: date(run.started_at), completed_at: date(run.completed_at) })),
    otherRuns: row.other_runs,
    people: row.people ?? [],
    held: (row.begun ?? []).filter((id) => !(row.people ?? []).some((p) => p.id === id)),
    company: row.company && companyFromJson(row.company),
  };
}

/** What a fold writes (`planFold`). */
interface FoldWrite {
  /** The report row's version (`xmin`) as read. */
  version: string;
  /** The deltas read, in id order. */
  deltaIds: number[];
  /** How many of the deltas read `more` counts: those that name no person another transaction held. */
  counted: number;
  /** The recomputed people, with their versions as read. */
  people: { id: string; version: string }[];
  /** The people another transaction held: asked for again. */
  held: string[];
  /** The runs the deltas change, with their versions (`xmin`) as read. */
  runs: { id: string; version: string; after: RunProgress }[];
  runStates: RunStates;
  totals: Totals;
  contributions: ChangedContribution[];
  /** The company page's contribution to store (null: unchanged, or not recomputed). */
  company: Contribution | null;
  at: Date;
}

/**
 * The fold's write, in one statement: 'busy' (another transaction holds the
 * report), 'stale' (the report, a run or a person is no longer as read:
 * nothing written) or folded, with whether other deltas were pending as of
 * the statement's snapshot (`FoldResult`), which spares a statement asking.
 */
export async function writeFold(db: Kysely<Database>, reportId: string, fold: FoldWrite): Promise<'busy' | 'stale' | { more: boolean }> {
  const ok = sql<boolean>`exists (select 1 from ok)`;
  // Runs in id order: two folds never lock the same runs in opposite order.
  const runs = [...fold.runs]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((run) => {
      const { status, unfinished, completed, warnings, failed, inaccessible, cancelled, started_at, completed_at, terminal_reason } = run.after;
      const progress = { status, unfinished, completed, warnings, failed, inaccessible, cancelled, started_at, completed_at, terminal_reason };
      return db.updateTable('scan_runs').set(progress).where('id', '=', run.id).where(ok);
    });
  const writes = [
    // The ids between the first and the last read are the index's range; the list then filters that range (FOLD_BATCH).
    sql`delete from rollup_deltas
         where report_id = ${reportId} and id between ${fold.deltaIds[0]}::bigint and ${fold.deltaIds[fold.deltaIds.length - 1]}::bigint
           and id = any(${fold.deltaIds}::bigint[]) and ${ok}`,
    ...(fold.held.length === 0
      ? []
      : [
          sql`insert into rollup_deltas (report_id, run_id, started, at, recompute_profile_id)
              select ${reportId}::uuid, null, false, ${fold.at}::timestamptz, h from unnest(${fold.held}::uuid[]) as h where ${ok}`,
        ]),
    ...runs,
    ...(fold.contributions.length > 0 ? [contributionsWrite(reportId, fold.contributions, ok)] : []),
    sql`update report_aggregates
           set totals = ${JSON.stringify(fold.totals)}::jsonb, updated_at = ${fold.at}::timestamptz,
               company = coalesce(${fold.company === null ? null : JSON.stringify(fold.company)}::jsonb, company)
         where report_id = ${reportId} and ${ok}`,
    reportRowUpdate(
      reportId,
      fold.totals,
      null,
      sql`select ${fold.runStates.has_runs}::boolean as has_runs, ${fold.runStates.running}::boolean as running, ${fold.runStates.queued}::boolean as queued`,
      ok,
    ),
  ];
  // The statement's own delete and inserts are not in its snapshot, and when the write holds (`ok`: no
  // one folded the report since the read) every delta read is in it: more than those pending means others
  // are. Counted, not compared by id: a test of each delta against the list of those read costs their
  // product (a generic plan cannot hash a parameter's array), quadratic in a backlog; and
  // counted only up to one more than those read, whatever the backlog behind them (in id order, so that
  // the plan walks the key's index and stops there, instead of a bitmap of the whole backlog).
  const more = sql<boolean>`exists (select 1 from rollup_deltas d
     where d.report_id = ${reportId} and (d.recompute_profile_id is null or d.recompute_profile_id <> all(${fold.held}::uuid[]))
     order by d.id offset ${fold.counted}::bigint)`;
  const { rows } = await inOneStatement(writes, sql`select exists (select 1 from locked) as locked, ${ok} as ok, ${more} as more`, [
    { name: 'locked', query: sql`select xmin::text as version from reports where id = ${reportId} for no key update skip locked` },
    {
      name: 'people',
      // Found by the primary key (`p.id = any(…)`), each row's version then compared: a join to the
      // unnested pairs was planned as a hash join over a sequential scan of every attachment of every
      // report, growing with the table.
      query: sql`update report_profiles p set facts_version = p.facts_version + 1
                  where p.id = any(${fold.people.map((p) => p.id)}::uuid[])
                    and p.facts_version = (select v.version from unnest(${fold.people.map((p) => p.id)}::uuid[], ${fold.people.map((p) => p.version)}::bigint[]) as v(id, version)
                                            where v.id = p.id)
                    and exists (select 1 from locked where version = ${fold.version})
                 returning p.id`,
    },
    {
      name: 'runs',
      query: sql`select x.id, x.xmin::text as version from scan_runs x
                  where x.id = any(${fold.runs.map((r) => r.id)}::uuid[]) and exists (select 1 from locked where version = ${fold.version})
                  order by x.id for no key update`,
    },
    {
      name: 'ok',
      query: sql`select 1 from locked
                  where version = ${fold.version}
                    and (select count(*) from runs join unnest(${fold.runs.map((r) => r.id)}::uuid[], ${fold.runs.map((r) => r.version)}::text[]) as v(id, version)
                                             on v.id = runs.id and v.version = runs.version) = ${fold.runs.length}
                    and (select count(*) from people) = ${fold.people.length}`,
      materialized: true,
    },
  ]).execute(db);
  const row = rows[0] as { locked: boolean; ok: boolean; more: boolean };
  if (!row.locked) return 'busy';
  if (!row.ok) return 'stale';
  await storeVisibleFlags(db, activeChangedIds(fold.contributions));
  return { more: row.more };
}
