/**
 * Report roll-ups maintained on write: `report_aggregates.totals` (the
 * summary's counts, check totals, work counts and collection revisions) and
 * the report's `profile_count`, `analyzed_profile_count` and `analysis_state`.
 *
 * What it trades: reading a summary costs one row whatever the report's size
 * (instead of aggregating every person on every read), and a worker's item
 * never waits for the report's or run's row lock (deltas), in exchange for
 * writes that keep the totals exact (every writer of a contribution under the
 * person's lock) and a fold after the commit; readers add the deltas not yet
 * folded (withPendingDeltas). One arithmetic for both: a rebuild
 * (`refreshReportRollup(…, 'all')` without stored totals) is the from-scratch
 * definition that the property test and the rebuild comparison
 * (test/support/rollups.ts) hold the maintained totals to.
 *
 * Three ways in, one arithmetic (`totals − old + new` per contribution):
 *
 * - `refreshReportRollup`, for the API's writes (imports, removals,
 *   archives) and the company page item's requeue or failure: under the
 *   report lock, it folds the pending deltas, recomputes the contributions
 *   of the attachments it touched (and the company page's) with a fixed
 *   number of set-based queries and stores the result. Nothing here scans
 *   the whole roster unless asked to (`'all'`).
 * - `recordPersonDelta` (a requeue, a failure) and the statement that ends
 *   a person's item (queue/finish.ts, endPersonItem, from `personDelta`
 *   and `personDeltaWrites`), for a worker's transition of a person's item:
 *   under the item's and the person's row locks only, it stores the person's
 *   new contribution and appends what changed (in the totals and in the
 *   run's counts) to `rollup_deltas`. Items of one report never wait on each
 *   other for the report or run row. `settleRollups` then folds the report's
 *   deltas into the aggregates, the runs and the report row: one read and
 *   one write for however many deltas are pending (`foldOnce`), by whichever
 *   process gets the report lock (the others leave it to that one). When
 *   folds run (after the transitions, coalesced per report, on a stop, by the
 *   sweep) is queue/settle.ts.
 * - A begun person's item appends a delta that only names the person
 *   (`recompute_profile_id`, queue/begin.ts beginItem): the fold (or an
 *   API write's refresh) recomputes that person, skipping a person another
 *   transaction holds, whom it asks for again (a delta of their own). The
 *   company page's item appends one that asks for the company page
 *   (`recompute_company`) when it begins and when it ends (its contribution
 *   is not stored by its end, whose statement does not read the report's
 *   aggregates), and the fold recomputes it. Until then readers count the
 *   people and the company page that pending deltas name as their rows stand
 *   (`begunPeopleSql`, `begunCompanySql`, `withBegun`), so a collection's
 *   revision always matches the records of the same snapshot.
 *
 * Every writer of a person's contribution holds that person's attachment
 * lock and bumps their version (src/store/locks.ts), and a writer that read
 * the person before the lock (a finish, a fold) writes only if the version
 * is still the one it read, so the deltas of one person telescope, and
 * additions commute, so folds in any order give exact totals.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import {
  addTotals,
  applyContribution,
  companyContribution,
  type CompanyFacts,
  emptyTotals,
  personContribution,
  type Contribution,
  type Totals,
  withPendingDeltas,
  addCollection,
  contributionDelta,
} from '../domain/analysis-aggregate.js';
import { revisionOf } from '../domain/revision.js';
import type { GatheredPerson } from '../domain/finish-facts.js';
import { lockAttachments, lockReport, lockUnheldAttachments } from './locks.js';
import { addRunChange, applyRunCounts, emptyRunCounts, type RunChange, type RunCounts } from './scan-repository.js';
import type { Database } from './schema.js';
import { unnestColumns } from './fixed-text.js';
import { inOneStatement } from './one-statement.js';
import {
  begunCompanySql,
  begunPeopleSql,
  companyFacts,
  companyFromJson,
  gathered,
  personFacts,
  type BegunCompany,
  type PersonFactsRow,
} from './person-facts.js';

export type RollupScope = { profileIds: readonly (string | null)[] } | 'all';

export interface AggregateRow {
  totals: Totals;
  company: Contribution | null;
}

/**
 * The report's totals as readers see them: the folded aggregate plus the
 * deltas not folded yet, and the people that begun items asked to recompute
 * (a delta naming them) counted as they stand now, read by one statement
 * (one snapshot), so they describe exactly the rows that snapshot holds.
 * Null before the report's first roll-up.
 */
export async function readCurrentTotals(db: Kysely<Database>, reportId: string): Promise<Totals | null> {
  const { rows } = await sql<{ totals: Totals | null; pending: Totals[] | null; begun: PersonFactsRow[] | null; begun_company: BegunCompany | null }>`
    select (select totals from report_aggregates where report_id = x.id) as totals,
           (select json_agg(d.totals) from rollup_deltas d where d.report_id = x.id and d.totals is not null) as pending,
           ${sql.raw(begunPeopleSql('x.id'))} as begun,
           ${sql.raw(begunCompanySql('x.id'))} as begun_company
      from (select ${reportId}::uuid as id) x`.execute(db);
  return withBegun(withPendingDeltas(rows[0].totals, rows[0].pending), rows[0].begun, rows[0].begun_company);
}

/**
 * Totals with each begun person (`begunPeopleSql`) and the company page
 * when a delta asks for it (`begunCompanySql`) counted as they stand now
 * instead of as stored: the fold's arithmetic, nothing stored.
 */
export function withBegun(totals: Totals | null, begun: PersonFactsRow[] | null, company: BegunCompany | null): Totals | null {
  if (!totals) return totals;
  const withPeople = begun ? recompute(begun.map(gathered), totals, [], { rebuild: false }) : totals;
  return company ? withCompany(withPeople, company.stored, companyFromJson(company.facts)).totals : withPeople;
}

/** `totals` with the company page's contribution recomputed from `facts` against the stored one (`contribution`: the one to store). */
export function withCompany(totals: Totals, stored: Contribution | null, facts: CompanyFacts): { totals: Totals; contribution: Contribution } {
  const contribution = companyContribution(facts);
  if (stored && revisionOf(stored) === revisionOf(contribution)) return { totals, contribution: stored };
  return { totals: applyContribution(totals, stored, contribution), contribution };
}

/** The profiles collection of `withBegun` (a findings page reads only that part of the totals; the company page adds nothing to it). */
export function profilesWithBegunPeople(profiles: Totals['profiles'], begun: PersonFactsRow[] | null): Totals['profiles'] {
  let result = profiles;
  for (const person of (begun ?? []).map(gathered)) {
    const after = personContribution(person.facts);
    if (person.stored && revisionOf(person.stored) === revisionOf(after)) continue;
    result = addCollection(result, contributionDelta(person.stored, after).profiles);
  }
  return result;
}

/** The folded aggregate alone (writers, under the report lock, take the pending deltas themselves). */
export async function readAggregates(db: Kysely<Database>, reportId: string): Promise<AggregateRow | null> {
  const row = await db.selectFrom('report_aggregates').select(['totals', 'company']).where('report_id', '=', reportId).executeTakeFirst();
  return row ? { totals: row.totals, company: row.company } : null;
}

/** The totals of each of `reportIds` that has any, as `readCurrentTotals` reads them (one snapshot). */
export async function readReportTotals(db: Kysely<Database>, reportIds: readonly string[]): Promise<Map<string, Totals>> {
  if (reportIds.length === 0) return new Map();
  const { rows } = await sql<{
    report_id: string;
    totals: Totals;
    pending: Totals[] | null;
    begun: PersonFactsRow[] | null;
    begun_company: BegunCompany | null;
  }>`
    select a.report_id, a.totals,
           (select json_agg(d.totals) from rollup_deltas d where d.report_id = a.report_id and d.totals is not null) as pending,
           ${sql.raw(begunPeopleSql('a.report_id'))} as begun,
           ${sql.raw(begunCompanySql('a.report_id'))} as begun_company
      from report_aggregates a
     where a.report_id = any(${[...reportIds]}::uuid[])`.execute(db);
  return new Map(rows.map((r) => [r.report_id, withBegun(withPendingDeltas(r.totals, r.pending), r.begun, r.begun_company)!]));
}

/**
 * Recomputes the contributions of `scope`'s attachments and of the company
 * page, and applies the differences. `touch` also sets the report's
 * `updated_at` (a write that changed the roster), in the same statement.
 */
export async function refreshReportRollup(
  db: Kysely<Database>,
  reportId: string,
  scope: RollupScope,
  now: Date,
  options: { touch?: boolean } = {},
): Promise<Totals> {
  await lockReport(db, reportId);
  const stored = await readAggregates(db, reportId);
  // Deltas the workers appended since the last fold (their contributions are already stored).
  const pending = await takeDeltas(db, reportId, now);
  // Without a stored aggregate (a new report), everything is summed from scratch.
  const rebuild = !stored;
  const ids = rebuild || scope === 'all' ? null : [...new Set(scope.profileIds.filter((id): id is string => id !== null))];

  let totals: Totals = rebuild ? emptyTotals() : pending.totals ? addTotals(stored.totals, pending.totals) : stored.totals;
  if (ids !== null && ids.length > 0) await lockAttachments(db, ids);
  const changed: ChangedContribution[] = [];
  if (ids === null || ids.length > 0) totals = recompute(await personFacts(db, reportId, ids), totals, changed, { rebuild });
  // Begun items' people outside the scope (a rebuild or 'all' recomputed everyone).
  if (ids !== null) {
    const begun = pending.recompute.filter((id) => !ids.includes(id));
    totals = recompute((await unheldPersonFacts(db, reportId, begun, now)).unheld, totals, changed, { rebuild: false });
  }
  // The company page, whether or not a delta asked for it (its pending deltas are taken above).
  const recomputed = withCompany(totals, rebuild ? null : stored.company, await companyFacts(db, reportId));
  totals = recomputed.totals;
  const company = recomputed.contribution;

  await updateReportRow(db, reportId, totals, options.touch ? now : null, { company, at: now, contributions: changed });
  await storeVisibleFlags(db, activeChangedIds(changed));
  return totals;
}

export interface ChangedContribution {
  id: string;
  contribution: Contribution;
  activeChanged: boolean;
}

/**
 * Each gathered person's contribution from their facts: the difference from
 * the stored one (none with `rebuild`: summed from scratch) goes into the
 * returned totals, and the new contribution into `changed` (stored by the
 * caller, under the same person locks).
 */
export function recompute(gathered: GatheredPerson[], totals: Totals, changed: ChangedContribution[], options: { rebuild: boolean }): Totals {
  for (const facts of gathered) {
    const after = personContribution(facts.facts);
    const before = options.rebuild ? null : facts.stored;
    if (before && revisionOf(before) === revisionOf(after)) continue;
    totals = applyContribution(totals, before, after);
    changed.push({ id: facts.facts.profileId, contribution: after, activeChanged: before ? before.persons !== after.persons : after.persons === 0 });
  }
  return totals;
}

/**
 * The facts of those of `ids` that no other transaction holds, locked until
 * the caller commits (SKIP LOCKED: a person held by a transition is
 * recomputed by that transition). The lock is taken by its own statement,
 * before the read: a statement's snapshot predates the locks it takes. The
 * held ones are asked again, by a delta of their own (which readers count
 * as they do any begun person's: `readCurrentTotals`), and returned as
 * `held`; that transition's fold takes it.
 */
async function unheldPersonFacts(db: Kysely<Database>, reportId: string, ids: string[], now: Date): Promise<{ unheld: GatheredPerson[]; held: string[] }> {
  if (ids.length === 0) return { unheld: [], held: [] };
  const locked = new Set(await lockUnheldAttachments(db, ids));
  const held = ids.filter((id) => !locked.has(id));
  if (held.length > 0) {
    await sql`
      insert into rollup_deltas (report_id, run_id, started, at, recompute_profile_id)
      select ${reportId}::uuid, null, false, ${now}::timestamptz, h from unnest(${held}::uuid[]) as h`.execute(db);
  }
  return { unheld: locked.size === 0 ? [] : await personFacts(db, reportId, [...locked], { begun: true }), held };
}

export async function storeContributions(db: Kysely<Database>, reportId: string, changed: ChangedContribution[]): Promise<void> {
  if (changed.length === 0) return;
  await contributionsWrite(reportId, changed).execute(db);
  await storeVisibleFlags(db, activeChangedIds(changed));
}

/** The new contributions of `changed` (not empty) as one statement, for `storeContributions` or the report row's (`updateReportRow`). */
export function contributionsWrite(reportId: string, changed: ChangedContribution[], when: RawBuilder<boolean> = sql`true`): RawBuilder<unknown> {
  return sql`
      insert into profile_contributions (profile_id, report_id, contribution)
      select v.id, ${reportId}::uuid, v.c
      from ${unnestColumns([
        ['id', 'uuid', changed.map((c) => c.id)],
        ['c', 'jsonb', changed.map((c) => JSON.stringify(c.contribution))],
      ])}
      where ${when}
      on conflict (profile_id) do update set contribution = excluded.contribution`;
}

/**
 * The visible flags of `profileIds` as their attachments' status says: for
 * people whose being active changed (rare: a removal, a restore; a finishing
 * item's person removed before their contribution was ever stored).
 */
export async function storeVisibleFlags(db: Kysely<Database>, profileIds: readonly string[]): Promise<void> {
  // Freshness bounds read these through partial indexes.
  for (const table of profileIds.length > 0 ? (['profile_analyses', 'activity_coverage'] as const) : []) {
    await sql`
        update ${sql.table(table)} t set visible = (p.status = 'active')
        from report_profiles p
        where p.id = t.profile_id and t.profile_id = any(${[...profileIds]}::uuid[]) and t.visible <> (p.status = 'active')`.execute(db);
  }
}

/** The ids of those of `changed` whose being active changed. */
export function activeChangedIds(changed: readonly ChangedContribution[]): string[] {
  return changed.filter((c) => c.activeChanged).map((c) => c.id);
}

interface PendingDeltas {
  totals: Totals | null;
  runs: Map<string, RunCounts>;
  /** People whose contributions are to be recomputed (begun items: queue/begin.ts, beginItem). */
  recompute: string[];
  /** When the last of them happened. */
  at: Date;
}

export interface DeltaRow {
  run_id: string | null;
  started: boolean;
  finished: Extract<RunChange, { kind: 'finished' }>['status'] | null;
  warning: boolean;
  totals: Totals | null;
  at: Date;
  recompute_profile_id: string | null;
}

/**
 * Deletes the report's pending deltas (the caller holds the report lock) and
 * applies their run changes; returns their summed totals difference.
 */
async function takeDeltas(db: Kysely<Database>, reportId: string, now: Date): Promise<PendingDeltas> {
  const { rows } = await sql<DeltaRow>`
    delete from rollup_deltas where report_id = ${reportId}
    returning run_id, started, finished, warning, totals, at, recompute_profile_id`.execute(db);
  const pending = pendingFrom(rows, now);
  // Runs in id order: two folds never lock the same runs in opposite order.
  for (const runId of [...pending.runs.keys()].sort()) await applyRunCounts(db, runId, pending.runs.get(runId)!, pending.at);
  return pending;
}

/** The sum of deltas: their totals difference, each run's counts, the people they ask to recompute, and when the last happened. */
export function pendingFrom(rows: readonly DeltaRow[], now: Date): PendingDeltas {
  const pending: PendingDeltas = { totals: null, runs: new Map(), recompute: [], at: now };
  if (rows.length === 0) return pending;
  pending.at = rows.reduce((latest, r) => (r.at > latest ? r.at : latest), rows[0].at);
  pending.recompute = [...new Set(rows.map((r) => r.recompute_profile_id).filter((id): id is string => id !== null))];
  for (const row of rows) {
    if (row.totals) pending.totals = pending.totals ? addTotals(pending.totals, row.totals) : row.totals;
    if (row.run_id === null) continue;
    let counts = pending.runs.get(row.run_id);
    if (!counts) pending.runs.set(row.run_id, (counts = emptyRunCounts()));
    if (row.started) addRunChange(counts, { kind: 'started' }, row.at);
    if (row.finished) addRunChange(counts, { kind: 'finished', status: row.finished, warning: row.warning }, row.at);
  }
  return pending;
}

/** Whether a report has runs, and whether one of them is running or queued: what its `analysis_state` is decided from (`reportRowUpdate`). */
export interface RunStates {
  has_runs: boolean;
  running: boolean;
  queued: boolean;
}

/**
 * A query of one row, `RunStates` of the report's runs but those in
 * `except` (runs whose states the caller computes). Each is a probe of an
 * index that stops at the first row (scan_runs_report, scan_runs_running,
 * scan_runs_queued: migration 0038), whatever the report's history of runs.
 */
export function runStatesSql(report: RawBuilder<string>, except: RawBuilder<string[]> = sql`'{}'::uuid[]`): RawBuilder<RunStates> {
  const exists = (status: RawBuilder<boolean>) =>
    sql`exists (select 1 from scan_runs x where x.report_id = ${report} and ${status} and x.id <> all (${except}))`;
  return sql`select ${exists(sql`true`)} as has_runs, ${exists(sql`x.status = 'running'`)} as running, ${exists(sql`x.status = 'queued'`)} as queued`;
}

/**
 * Report.profile_count, analyzed_profile_count and analysis_state (decisions
 * "Report.analysis_state"); with `aggregate`, the totals are stored in the
 * report's aggregate row too (and the company page's contribution, when
 * given), and the changed people's contributions, in the same statement
 * (their visible flags are the caller's: `storeVisibleFlags`).
 */
async function updateReportRow(
  db: Kysely<Database>,
  reportId: string,
  totals: Totals,
  touchedAt: Date | null,
  aggregate?: { company?: Contribution; at: Date; contributions?: ChangedContribution[] },
): Promise<void> {
  const contributed = aggregate?.contributions?.length ? [contributionsWrite(reportId, aggregate.contributions)] : [];
  const storeAggregate = aggregate
    ? [
        sql`insert into report_aggregates (report_id, totals, company, updated_at)
            values (${reportId}::uuid, ${JSON.stringify(totals)}::jsonb, ${aggregate.company ? JSON.stringify(aggregate.company) : null}::jsonb, ${aggregate.at}::timestamptz)
            on conflict (report_id) do update
              set totals = excluded.totals, company = coalesce(excluded.company, report_aggregates.company), updated_at = excluded.updated_at`,
      ]
    : [];
  await inOneStatement([...contributed, ...storeAggregate], reportRowUpdate(reportId, totals, touchedAt, runStatesSql(sql`${reportId}::uuid`))).execute(db);
}

/**
 * The report row's update from its totals and its runs' states (`runs`: a
 * query of one row, `RunStates`): profile_count,
 * analyzed_profile_count and analysis_state (decisions
 * "Report.analysis_state"). `when`: only if it holds.
 */
export function reportRowUpdate(
  reportId: string,
  totals: Totals,
  touchedAt: Date | null,
  runs: RawBuilder<unknown>,
  when: RawBuilder<boolean> = sql`true`,
): RawBuilder<unknown> {
  return sql`
    update reports set
      updated_at = coalesce(${touchedAt}::timestamptz, reports.updated_at),
      profile_count = ${totals.persons},
      analyzed_profile_count = ${totals.analyzed},
      analysis_state = case
        when ${totals.usable_persons}::int > 0 then 'available'
        when not runs.has_runs then 'not_requested'
        when runs.running then 'running'
        when runs.queued then 'queued'
        else 'failed'
      end
    from (${runs}) as runs
    where reports.id = ${reportId} and ${when}`;
}
