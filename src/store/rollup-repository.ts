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
 * - `refreshReportRollup`, for the API's writes (imports, removals, archives)
 *   and the company page's item: under the report lock, it folds the pending
 *   deltas, recomputes the contributions of the attachments it touched with
 *   a fixed number of set-based queries and stores the result. Nothing here
 *   scans the whole roster unless asked to (`'all'`).
 * - `recordPersonDelta`, for a worker's transition of a person's item: under
 *   the item's and the person's row locks only, it stores the person's new
 *   contribution and appends what changed (in the totals and in the run's
 *   counts) to `rollup_deltas`. Items of one report never wait on each other
 *   for the report or run row. `settleRollups` then folds the report's
 *   deltas into the aggregates, the runs and the report row: one transaction
 *   for however many deltas are pending, by whichever transaction gets the
 *   report lock (the others leave it to that one). When folds run (after
 *   the transitions, coalesced per report, on a stop, by the sweep) is
 *   rollup-folds.ts.
 * - A begun person's item appends a delta that only names the person
 *   (`recompute_profile_id`, item-repository.ts beginItem): the fold (or an
 *   API write's refresh) recomputes that person under their lock, skipping
 *   a person another transaction holds, whom it asks for again (a delta of
 *   their own). Until then readers count the people that pending deltas
 *   name as their rows stand (`begunPeopleSql`, `withBegunPeople`), so a
 *   collection's revision always matches the records of the same snapshot.
 *
 * Every writer of a person's contribution holds that person's attachment
 * lock (src/store/locks.ts), so the deltas of one person telescope, and
 * additions commute, so folds in any order give exact totals.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import {
  addCollection,
  addTotals,
  applyContribution,
  companyContribution,
  contributionDelta,
  emptyTotals,
  personContribution,
  type Contribution,
  type LatestItem,
  type Outcome,
  type PersonFacts,
  type Totals,
  withPendingDeltas,
} from '../domain/analysis-aggregate.js';
import { revisionOf } from '../domain/revision.js';
import { bumpAttachment, bumpUnheldAttachments, lockAttachments, lockReport, lockUnheldAttachments } from './locks.js';
import {
  addRunChange,
  applyRunCounts,
  emptyRunCounts,
  runCountsUpdate,
  settleRunStatus,
  type RunChange,
  type RunCounts,
  type ScanRunRow,
} from './scan-repository.js';
import { NIL_SUBJECT, type Database } from './schema.js';
import { allInOneStatement, inOneStatement } from './one-statement.js';
import { UNFLATTENED } from './plan-fence.js';
import { retryingTransaction } from './transaction.js';

export type RollupScope = { profileIds: readonly (string | null)[] } | 'all';

interface AggregateRow {
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
  const { rows } = await sql<{ totals: Totals | null; pending: Totals[] | null; begun: PersonFactsRow[] | null }>`
    select (select totals from report_aggregates where report_id = x.id) as totals,
           (select json_agg(d.totals) from rollup_deltas d where d.report_id = x.id and d.totals is not null) as pending,
           ${sql.raw(begunPeopleSql('x.id'))} as begun
      from (select ${reportId}::uuid as id) x`.execute(db);
  return withBegunPeople(withPendingDeltas(rows[0].totals, rows[0].pending), rows[0].begun);
}

/**
 * Totals with each begun person (`begunPeopleSql`) counted as they stand
 * now instead of as stored: the fold's arithmetic, nothing stored.
 */
export function withBegunPeople(totals: Totals | null, begun: PersonFactsRow[] | null): Totals | null {
  return totals && begun ? recompute(begun.map(gathered), totals, [], { rebuild: false }) : totals;
}

/** The profiles collection of `withBegunPeople` (a findings page reads only that part of the totals). */
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
  const { rows } = await sql<{ report_id: string; totals: Totals; pending: Totals[] | null; begun: PersonFactsRow[] | null }>`
    select a.report_id, a.totals,
           (select json_agg(d.totals) from rollup_deltas d where d.report_id = a.report_id and d.totals is not null) as pending,
           ${sql.raw(begunPeopleSql('a.report_id'))} as begun
      from report_aggregates a
     where a.report_id = any(${[...reportIds]}::uuid[])`.execute(db);
  return new Map(rows.map((r) => [r.report_id, withBegunPeople(withPendingDeltas(r.totals, r.pending), r.begun)!]));
}

/**
 * Recomputes the contributions of `scope`'s attachments and of the company
 * page, and applies the differences. `touch` also sets the report's
 * `updated_at` (a write that changed the roster), in the same statement;
 * `companyUnchanged` (a person item's transition) skips the company page.
 */
export async function refreshReportRollup(
  db: Kysely<Database>,
  reportId: string,
  scope: RollupScope,
  now: Date,
  options: { touch?: boolean; companyUnchanged?: boolean } = {},
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
  // A person item's transition cannot change the company page's facts (its
  // item, context and events): the worker says so and saves the query.
  const companyBefore = rebuild ? null : stored.company;
  const company = options.companyUnchanged && companyBefore ? companyBefore : companyContribution(await companyFacts(db, reportId));
  if (!companyBefore || revisionOf(companyBefore) !== revisionOf(company)) totals = applyContribution(totals, companyBefore, company);

  await updateReportRow(db, reportId, totals, options.touch ? now : null, { company, at: now, contributions: changed });
  await storeVisibleFlags(db, activeChangedIds(changed));
  return totals;
}

interface ChangedContribution {
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
function recompute(gathered: GatheredPerson[], totals: Totals, changed: ChangedContribution[], options: { rebuild: boolean }): Totals {
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
  return { unheld: locked.size === 0 ? [] : await personFacts(db, reportId, [...locked]), held };
}

async function storeContributions(db: Kysely<Database>, reportId: string, changed: ChangedContribution[]): Promise<void> {
  if (changed.length === 0) return;
  await contributionsWrite(reportId, changed).execute(db);
  await storeVisibleFlags(db, activeChangedIds(changed));
}

/** The new contributions of `changed` (not empty) as one statement, for `storeContributions` or the report row's (`updateReportRow`). */
function contributionsWrite(reportId: string, changed: ChangedContribution[]): RawBuilder<unknown> {
  return sql`
      insert into profile_contributions (profile_id, report_id, contribution)
      select v.id, ${reportId}::uuid, v.c
      from unnest(${changed.map((c) => c.id)}::uuid[], ${changed.map((c) => JSON.stringify(c.contribution))}::jsonb[]) as v(id, c)
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
function activeChangedIds(changed: readonly ChangedContribution[]): string[] {
  return changed.filter((c) => c.activeChanged).map((c) => c.id);
}

// ------------------------------------------------------------ deltas (a worker's person item)

/**
 * A worker's transition of a person's item, inside its transaction, after it
 * locked the item and then the attachment (src/store/locks.ts): recomputes
 * the person's contribution, stores it, bumps the attachment's version, and
 * appends the difference and the run's change to rollup_deltas, in one
 * statement. `settleRollups` folds it after the commit.
 */
export async function recordPersonDelta(db: Kysely<Database>, reportId: string, profileId: string, run: PersonRunChange | null, now: Date): Promise<void> {
  const [person] = await personFacts(db, reportId, [profileId]);
  const change = personDelta(person ?? null);
  if (change.activeChanged) {
    // Whether the person counts as active changed (never, for an item's transition): the visible flags follow.
    await storeContributions(db, reportId, [{ id: profileId, contribution: change.contribution!, activeChanged: true }]);
    change.contribution = null;
  }
  await allInOneStatement([bumpAttachment(profileId), ...personDeltaWrites(reportId, profileId, run, now, change)]).execute(db);
}

/** The run of a person's item and how its counts change. */
export interface PersonRunChange {
  runId: string;
  change: RunChange;
}

/** How a transition changes a person's roll-up: the difference to fold and the contribution to store (null: none). */
export interface PersonDelta {
  delta: Totals | null;
  contribution: Contribution | null;
  /** Whether the person counts as active changed (a removal, a restore; never an item's transition): their visible flags follow. */
  activeChanged: boolean;
}

/** The person's roll-up change, from their facts after the transition and their stored contribution (`person.stored`). */
export function personDelta(person: GatheredPerson | null): PersonDelta {
  if (!person) return { delta: null, contribution: null, activeChanged: false };
  const after = personContribution(person.facts);
  const before = person.stored;
  if (before && revisionOf(before) === revisionOf(after)) return { delta: null, contribution: null, activeChanged: false };
  return { delta: contributionDelta(before, after), contribution: after, activeChanged: before ? before.persons !== after.persons : after.persons === 0 };
}

/**
 * The writes that record `change` (single data-modifying statements, for
 * the caller's one statement): the contribution, when it changed, and the
 * delta with the run's change, when there is either.
 */
export function personDeltaWrites(
  reportId: string,
  profileId: string,
  run: PersonRunChange | null,
  now: Date,
  change: Pick<PersonDelta, 'delta' | 'contribution'>,
): RawBuilder<unknown>[] {
  const { delta, contribution } = change;
  const writes: RawBuilder<unknown>[] = [];
  if (contribution !== null) {
    writes.push(sql`insert into profile_contributions (profile_id, report_id, contribution)
              values (${profileId}::uuid, ${reportId}::uuid, ${JSON.stringify(contribution)}::jsonb)
              on conflict (profile_id) do update set contribution = excluded.contribution`);
  }
  if (delta !== null || run !== null) {
    const runChange = run?.change;
    writes.push(sql`insert into rollup_deltas (report_id, run_id, started, finished, warning, totals, at)
            values (${reportId}::uuid, ${run?.runId ?? null}::uuid, ${runChange?.kind === 'started'}, ${runChange?.kind === 'finished' ? runChange.status : null},
                    ${runChange?.kind === 'finished' && runChange.warning === true}, ${delta === null ? null : JSON.stringify(delta)}::jsonb, ${now}::timestamptz)`);
  }
  return writes;
}

interface PendingDeltas {
  totals: Totals | null;
  runs: Map<string, RunCounts>;
  /** People whose contributions are to be recomputed (begun items: item-repository.ts, beginItem). */
  recompute: string[];
  /** When the last of them happened. */
  at: Date;
}

interface DeltaRow {
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
function pendingFrom(rows: readonly DeltaRow[], now: Date): PendingDeltas {
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

/** 'folded' names the begun people it left to the transitions holding them (asked again by deltas of their own). */
export type FoldResult = { kind: 'folded'; held: string[] } | { kind: 'empty' } | { kind: 'busy' };

/**
 * One fold of a report's pending deltas, unless another transaction holds
 * the report lock ('busy'), in a transaction of three statements (each of
 * them waits for the worker's event loop in between, so fewer statements
 * hold the transaction open for less time):
 *
 * 1. takes the report lock (SKIP LOCKED), deletes the report's pending
 *    deltas, and takes the lock of the people they ask to recompute that no
 *    one else holds (SKIP LOCKED, bumping their versions: locks.ts). Nothing
 *    here waits. The people before the runs is against the lock order's
 *    letter, not its purpose: every writer of a run holds the report lock,
 *    which this transaction holds, and SKIP LOCKED never waits;
 * 2. adds the deltas' run changes to their runs, asks again for the people
 *    someone else held (a delta each: their holder's fold takes it), and
 *    reads the stored aggregates and the locked people's facts (after the
 *    locks: a statement's snapshot predates the locks it takes);
 * 3. stores the report row, its aggregates and the recomputed
 *    contributions (one statement), after the runs' statuses where they
 *    changed (rare: a run's start and end).
 */
export async function foldOnce(db: Kysely<Database>, reportId: string, now: Date): Promise<FoldResult> {
  return retryingTransaction(
    db,
    async (trx): Promise<FoldResult> => {
      const taken = await takeDeltasUnlessLocked(trx, reportId, now);
      if (taken === null) return { kind: 'busy' };
      const { pending, locked } = taken;
      if (pending.totals === null && pending.runs.size === 0 && pending.recompute.length === 0) return { kind: 'empty' };
      const held = pending.recompute.filter((id) => !locked.includes(id));
      const read = await foldRead(trx, reportId, pending, locked, held);
      for (const run of read.runs) await settleRunStatus(trx, run, pending.at);
      if (!read.stored) {
        // No aggregate row to add to (never the case for a report made by create-report): sum everything.
        await refreshReportRollup(trx, reportId, 'all', pending.at);
        return { kind: 'folded', held: [] };
      }
      const changed: ChangedContribution[] = [];
      const totals = recompute(read.people, read.stored.totals, changed, { rebuild: false });
      if (pending.totals || changed.length > 0) {
        await updateReportRow(trx, reportId, pending.totals ? addTotals(totals, pending.totals) : totals, null, { at: pending.at, contributions: changed });
        await storeVisibleFlags(trx, activeChangedIds(changed));
      } else {
        // Only run changes: the report's analysis_state may follow its runs.
        await updateReportRow(trx, reportId, read.stored.totals, null);
      }
      return { kind: 'folded', held };
    },
    // A fold lost in a crash loses its deletions too: the deltas are folded again.
    { asynchronousCommit: true },
  );
}

/**
 * The fold's first statement: null when another transaction holds the
 * report lock (nothing deleted); else the deleted deltas' sum and the people
 * among those they ask to recompute whose locks it took.
 */
async function takeDeltasUnlessLocked(db: Kysely<Database>, reportId: string, now: Date): Promise<{ pending: PendingDeltas; locked: string[] } | null> {
  const { rows } = await sql<{ locked: boolean; deltas: (Omit<DeltaRow, 'at'> & { at: string })[] | null; people: string[] | null }>`
    with locked as (select 1 from reports where id = ${reportId} for no key update skip locked),
         taken as (delete from rollup_deltas where report_id = ${reportId} and exists (select 1 from locked)
                   returning run_id, started, finished, warning, totals, at, recompute_profile_id),
         people as (${bumpUnheldAttachments(sql`select recompute_profile_id from taken where recompute_profile_id is not null`)})
    select exists (select 1 from locked) as locked,
           (select json_agg(taken) from taken) as deltas,
           (select array_agg(id) from people) as people`.execute(db);
  const row = rows[0];
  if (!row.locked) return null;
  const deltas = (row.deltas ?? []).map((d) => ({ ...d, at: new Date(d.at) }));
  return { pending: pendingFrom(deltas, now), locked: row.people ?? [] };
}

/**
 * The fold's second statement: the runs' counts (`runCountsUpdate`, each run
 * in a part of its own, returning the row its status is settled from), a
 * delta asking again for each of `held`, and what the fold adds to: the
 * stored aggregates and the facts of the `locked` people. The facts read
 * scan_runs, which the statement updates, only for columns no update changes
 * (a run's mode and creation time).
 */
async function foldRead(
  db: Kysely<Database>,
  reportId: string,
  pending: PendingDeltas,
  locked: readonly string[],
  held: readonly string[],
): Promise<{ runs: ScanRunRow[]; stored: AggregateRow | null; people: GatheredPerson[] }> {
  // Runs in id order: two folds never lock the same runs in opposite order.
  const runIds = [...pending.runs.keys()].sort();
  const runs = runIds.map((id, i) => ({ name: `run${i}`, query: runCountsUpdate(db, id, pending.runs.get(id)!).returningAll() }));
  const asked =
    held.length === 0
      ? []
      : [
          sql`insert into rollup_deltas (report_id, run_id, started, at, recompute_profile_id)
              select ${reportId}::uuid, null, false, ${pending.at}::timestamptz, h from unnest(${[...held]}::uuid[]) as h`,
        ];
  const runRows =
    runs.length === 0
      ? sql`null`
      : sql`(select json_agg(r) from (${sql.join(
          runs.map((run) => sql`select * from ${sql.ref(run.name)}`),
          sql` union all `,
        )}) r)`;
  const people = locked.length === 0 ? sql`null` : sql`(select json_agg(to_jsonb(pf)) from (${personFactsSelect(reportId, locked)}) pf)`;
  const { rows } = await inOneStatement(
    asked,
    sql`select ${runRows} as runs,
               (select json_build_object('totals', a.totals, 'company', a.company) from report_aggregates a where a.report_id = ${reportId}) as stored,
               ${people} as people`,
    runs,
  ).execute(db);
  const row = rows[0] as {
    runs: (ScanRunRow & Record<'created_at' | 'started_at' | 'completed_at', string | null>)[] | null;
    stored: AggregateRow | null;
    people: PersonFactsRow[] | null;
  };
  const date = (value: string | null) => (value === null ? null : new Date(value));
  return {
    runs: (row.runs ?? []).map((run) => ({
      ...run,
      created_at: new Date(run.created_at!),
      started_at: date(run.started_at),
      completed_at: date(run.completed_at),
    })),
    stored: row.stored,
    people: (row.people ?? []).map(gathered),
  };
}

/** Whether deltas are pending besides those asking again for `held` (whose transitions fold them). */
export async function hasDeltas(db: Kysely<Database>, reportId: string, held: readonly string[]): Promise<boolean> {
  const { rows } = await sql`
    select 1 from rollup_deltas
     where report_id = ${reportId} and (recompute_profile_id is null or recompute_profile_id <> all(${[...held]}::uuid[]))
     limit 1`.execute(db);
  return rows.length > 0;
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
  const contributed = aggregate?.contributions?.length ? sql`contributed as (${contributionsWrite(reportId, aggregate.contributions)}),` : sql``;
  const storeAggregate = aggregate
    ? sql`
    stored as (
      insert into report_aggregates (report_id, totals, company, updated_at)
      values (${reportId}::uuid, ${JSON.stringify(totals)}::jsonb, ${aggregate.company ? JSON.stringify(aggregate.company) : null}::jsonb, ${aggregate.at}::timestamptz)
      on conflict (report_id) do update
        set totals = excluded.totals, company = coalesce(excluded.company, report_aggregates.company), updated_at = excluded.updated_at),`
    : sql``;
  await sql`
    with ${contributed} ${storeAggregate} runs as (
      select count(*) as total,
             count(*) filter (where status = 'running') as running,
             count(*) filter (where status = 'queued') as queued
      from scan_runs where report_id = ${reportId}
    )
    update reports set
      updated_at = coalesce(${touchedAt}::timestamptz, reports.updated_at),
      profile_count = ${totals.persons},
      analyzed_profile_count = ${totals.analyzed},
      analysis_state = case
        when ${totals.usable_persons}::int > 0 then 'available'
        when runs.total = 0 then 'not_requested'
        when runs.running > 0 then 'running'
        when runs.queued > 0 then 'queued'
        else 'failed'
      end
    from runs
    where reports.id = ${reportId}`.execute(db);
}

/** A person's facts and the contribution stored for them. */
export interface GatheredPerson {
  facts: PersonFacts;
  stored: Contribution | null;
}

/** A person's facts as `PERSON_FACTS_COLUMNS` reads them. */
export interface PersonFactsRow {
  id: string;
  status: 'active' | 'removed';
  pronet_url: string;
  name: string | null;
  title: string | null;
  headline: string | null;
  contribution: Contribution | null;
  latest: { id: string; mode: 'full_profile' | 'activity'; status: LatestItem['status']; warning: boolean }[] | null;
  analysis: { revision: string; outcomes: Record<string, Outcome> | null; restricted: boolean } | null;
  observed: boolean;
  events: Record<string, string> | null;
}

/**
 * The columns of a person's facts over an attachment row `p`: its latest
 * item per mode, analysis outcomes, activity coverage, event revisions and
 * stored contribution (correlated subqueries on indexed keys, naming only
 * `p`), every one JSON-safe, so that a statement can carry people's rows as
 * JSON (`personFactsJson`, `begunPeopleSql`).
 */
const PERSON_FACTS_COLUMNS = `
    p.id, p.status, p.pronet_url, p.name, p.title, p.headline,
      (select pc.contribution from profile_contributions pc where pc.profile_id = p.id) as contribution,
      (select json_agg(x) from (
         select distinct on (r.mode) i.id, r.mode, i.status, i.warning
         from scan_items i join scan_runs r on r.id = i.run_id
         where i.report_id = p.report_id and i.profile_id = p.id and i.kind = 'person'
         order by r.mode, r.created_at desc, i.created_at desc) x) as latest,
      (select json_build_object('revision', a.revision,
                                'outcomes', (select jsonb_object_agg(f->>'check_id', f->>'outcome') from jsonb_array_elements(a.findings) f),
                                'restricted', coalesce(jsonb_array_length(a.profile_data -> 'restricted'), 0) > 0)
         from profile_analyses a where a.profile_id = p.id) as analysis,
      exists (select 1 from activity_coverage c where c.profile_id = p.id) as observed,
      (select json_object_agg(e.id, e.revision) from activity_events e where e.profile_id = p.id) as events`;

/**
 * Each attachment of `ids` (null: all of the report's) with its facts, in one
 * query. One id is compared as a value, not an array: the statement is
 * prepared (prepared-statements.ts), and a plan made for any array cannot
 * know it holds one id (it walked the report's people). Several ids are
 * found by the primary key inside a plan fence (plan-fence.ts), the report
 * compared outside it.
 */
function personFactsSelect(reportId: string, ids: readonly string[] | null) {
  const people =
    ids === null || ids.length === 1 ? sql`report_profiles p` : sql`(select * from report_profiles where id = any(${[...ids]}::uuid[]) ${UNFLATTENED}) p`;
  const which = ids !== null && ids.length === 1 ? sql` and p.id = ${ids[0]}::uuid` : sql``;
  return sql<PersonFactsRow>`
    select ${sql.raw(PERSON_FACTS_COLUMNS)}
    from ${people}
    where p.report_id = ${reportId}${which}`;
}

/**
 * SQL text of a JSON array (null for none) of the facts of the people whom
 * pending deltas of the report `reportExpr` (an SQL expression naming no
 * parameter) ask to recompute: begun items' people, whose stored
 * contributions are not yet what their rows say. Readers count them as
 * they stand (`withBegunPeople`).
 */
export function begunPeopleSql(reportExpr: string): string {
  return `(select json_agg(to_jsonb(pf)) from (
      select ${PERSON_FACTS_COLUMNS}
        from report_profiles p
       where p.report_id = ${reportExpr}
         and p.id in (select d.recompute_profile_id from rollup_deltas d where d.report_id = ${reportExpr} and d.recompute_profile_id is not null)) pf)`;
}

function gathered(p: PersonFactsRow): GatheredPerson {
  const item = (mode: 'full_profile' | 'activity') => {
    const found = p.latest?.find((l) => l.mode === mode);
    return found ? { status: found.status, warning: found.warning } : null;
  };
  return {
    stored: p.contribution,
    facts: {
      profileId: p.id,
      active: p.status === 'active',
      person: { pronet_url: p.pronet_url, name: p.name, title: p.title, headline: p.headline },
      analysis: p.analysis ? { revision: p.analysis.revision, outcomes: p.analysis.outcomes ?? {}, restricted: p.analysis.restricted } : null,
      full: item('full_profile'),
      activity: item('activity'),
      activityObserved: p.observed,
      events: p.events ?? {},
    },
  };
}

async function personFacts(db: Kysely<Database>, reportId: string, ids: string[] | null): Promise<GatheredPerson[]> {
  const { rows } = await personFactsSelect(reportId, ids).execute(db);
  return rows.map(gathered);
}

/**
 * One person's facts (`recordPersonDelta`'s `given`) as a JSON column of the
 * caller's statement, read with what else that statement reads; null when
 * the attachment is gone. Read it with `personFromJson`.
 */
export function personFactsJson(reportId: string, profileId: string): RawBuilder<PersonFactsRow | null> {
  return sql<PersonFactsRow | null>`(select to_jsonb(pf) from (${personFactsSelect(reportId, [profileId])}) pf)`;
}

export function personFromJson(row: PersonFactsRow | null): GatheredPerson | null {
  return row === null ? null : gathered(row);
}

async function companyFacts(db: Kysely<Database>, reportId: string) {
  const { rows } = await sql<{ item: LatestItem | null; observed: boolean; events: Record<string, string> | null }>`
    select
      (select json_build_object('status', i.status, 'warning', i.warning)
         from scan_items i join scan_runs r on r.id = i.run_id
         where i.report_id = ${reportId} and i.profile_id is null and i.kind = 'company_page'
         order by r.created_at desc, i.created_at desc limit 1) as item,
      exists (select 1 from company_context where report_id = ${reportId}) as observed,
      (select json_object_agg(e.id, e.revision) from activity_events e
         where e.report_id = ${reportId} and e.subject = ${NIL_SUBJECT}) as events`.execute(db);
  const row = rows[0];
  return { item: row.item, observed: row.observed, events: row.events ?? {} };
}
