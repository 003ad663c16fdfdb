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
 *   a person's item (item-repository.ts, endPersonItem, from `personDelta`
 *   and `personDeltaWrites`), for a worker's transition of a person's item:
 *   under the item's and the person's row locks only, it stores the person's
 *   new contribution and appends what changed (in the totals and in the
 *   run's counts) to `rollup_deltas`. Items of one report never wait on each
 *   other for the report or run row. `settleRollups` then folds the report's
 *   deltas into the aggregates, the runs and the report row: one read and
 *   one write for however many deltas are pending (`foldOnce`), by whichever
 *   process gets the report lock (the others leave it to that one). When
 *   folds run (after the transitions, coalesced per report, on a stop, by the
 *   sweep) is rollup-folds.ts.
 * - A begun person's item appends a delta that only names the person
 *   (`recompute_profile_id`, item-repository.ts beginItem): the fold (or an
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
  addCollection,
  addTotals,
  applyContribution,
  companyContribution,
  type CompanyFacts,
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
import type { ActivityGap } from '../domain/collected.js';
import { bumpAttachment, lockAttachments, lockReport, lockUnheldAttachments } from './locks.js';
import { addRunChange, applyRunCounts, emptyRunCounts, runAfter, type RunChange, type RunCounts, type RunProgress } from './scan-repository.js';
import { NIL_SUBJECT, type Database } from './schema.js';
import { unnestColumns } from './fixed-text.js';
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
function withCompany(totals: Totals, stored: Contribution | null, facts: CompanyFacts): { totals: Totals; contribution: Contribution } {
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
  return { unheld: locked.size === 0 ? [] : await personFacts(db, reportId, [...locked], { begun: true }), held };
}

async function storeContributions(db: Kysely<Database>, reportId: string, changed: ChangedContribution[]): Promise<void> {
  if (changed.length === 0) return;
  await contributionsWrite(reportId, changed).execute(db);
  await storeVisibleFlags(db, activeChangedIds(changed));
}

/** The new contributions of `changed` (not empty) as one statement, for `storeContributions` or the report row's (`updateReportRow`). */
function contributionsWrite(reportId: string, changed: ChangedContribution[], when: RawBuilder<boolean> = sql`true`): RawBuilder<unknown> {
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

/** The run of an item (a person's, or the company page's: `companyDeltaWrite`) and how its counts change. */
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

/**
 * The write that records a transition of the company page's item (its end:
 * item-repository.ts, endCompanyItem), for the caller's one statement: the
 * run's change, and a request to recompute the company page's contribution
 * (`recompute_company`), which the fold makes from what is stored.
 */
export function companyDeltaWrite(reportId: string, run: PersonRunChange, now: Date): RawBuilder<unknown> {
  const { change } = run;
  return sql`insert into rollup_deltas (report_id, run_id, started, finished, warning, at, recompute_company)
          values (${reportId}::uuid, ${run.runId}::uuid, ${change.kind === 'started'}, ${change.kind === 'finished' ? change.status : null},
                  ${change.kind === 'finished' && change.warning === true}, ${now}::timestamptz, true)`;
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

/**
 * A fold's outcome. `more`: deltas other than those folded were pending when
 * the fold's write began (besides those asking again for people another
 * transaction held, which that transaction's fold takes): the caller folds
 * again. Deltas committed after that are folded by their own transitions'
 * requests (rollup-folds.ts).
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

/** Whether a report has runs, and whether one of them is running or queued: what its `analysis_state` is decided from (`reportRowUpdate`). */
interface RunStates {
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
function runStatesSql(report: RawBuilder<string>, except: RawBuilder<string[]> = sql`'{}'::uuid[]`): RawBuilder<RunStates> {
  const exists = (status: RawBuilder<boolean>) =>
    sql`exists (select 1 from scan_runs x where x.report_id = ${report} and ${status} and x.id <> all (${except}))`;
  return sql`select ${exists(sql`true`)} as has_runs, ${exists(sql`x.status = 'running'`)} as running, ${exists(sql`x.status = 'queued'`)} as queued`;
}

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
function reportRowUpdate(
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

/** A person's facts and the contribution stored for them. */
export interface GatheredPerson {
  facts: PersonFacts;
  stored: Contribution | null;
}

/** A person's facts as `PERSON_FACTS_COLUMNS` (or `BEGUN_PERSON_FACTS_COLUMNS`) reads them. */
export interface PersonFactsRow {
  id: string;
  status: 'active' | 'removed';
  pronet_url: string;
  name: string | null;
  title: string | null;
  headline: string | null;
  contribution: Contribution | null;
  latest: { id: string; mode: 'full_profile' | 'activity'; status: LatestItem['status']; warning: boolean; activity_gap: ActivityGap | null }[] | null;
  analysis: { revision: string; outcomes: Record<string, Outcome> | null; restricted: boolean } | null;
  observed: boolean;
  events: Record<string, string> | null;
  /** The attachment's version (migration 0035, locks.ts). */
  facts_version: string;
}

/**
 * The columns of a person's facts over an attachment row `p`: its latest
 * item per mode, analysis outcomes, activity coverage, event revisions and
 * stored contribution (correlated subqueries on indexed keys, naming only
 * `p`), every one JSON-safe, so that a statement can carry people's rows as
 * JSON (`personFactsJson`, `begunPeopleSql`). `outcomes`: the SQL of the
 * analysis' outcomes over `a` (its row) and `p`.
 */
const personFactsColumns = (outcomes: string) => `
    p.id, p.status, p.pronet_url, p.name, p.title, p.headline, p.facts_version,
      (select pc.contribution from profile_contributions pc where pc.profile_id = p.id) as contribution,
      (select json_agg(x) from (
         select distinct on (r.mode) i.id, r.mode, i.status, i.warning, i.activity_gap
         from scan_items i join scan_runs r on r.id = i.run_id
         where i.report_id = p.report_id and i.profile_id = p.id and i.kind = 'person'
         order by r.mode, r.created_at desc, i.created_at desc) x) as latest,
      (select json_build_object('revision', a.revision,
                                'outcomes', ${outcomes},
                                'restricted', coalesce(jsonb_array_length(a.profile_data -> 'restricted'), 0) > 0)
         from profile_analyses a where a.profile_id = p.id) as analysis,
      exists (select 1 from activity_coverage c where c.profile_id = p.id) as observed,
      (select json_object_agg(e.id, e.revision) from activity_events e where e.profile_id = p.id) as events`;

/** The outcomes of the analysis `a`, expanded from its findings: the definition. */
const OUTCOMES_FROM_FINDINGS = `(select jsonb_object_agg(f->>'check_id', f->>'outcome') from jsonb_array_elements(a.findings) f)`;

/** A person's facts, everything read from the rows that define it (rebuilds, the API's writes, a finish's read). */
const PERSON_FACTS_COLUMNS = personFactsColumns(OUTCOMES_FROM_FINDINGS);

/**
 * A begun person's facts (the fold's read, `unheldPersonFacts`, the readers'
 * `begunPeopleSql`): the same, but the outcomes are taken from the stored
 * contribution when it was made from the same analysis (its `analysis`, the
 * revision, which identifies the findings), and expanded from the findings
 * otherwise. What it trades: expanding the findings was most of what reading
 * a person's facts cost, and a begun person is
 * read by a fold and by every summary read until that fold; in exchange a
 * stored contribution is trusted for its outcomes, which the rebuild
 * comparison checks (test/support/rollups.ts: a rebuild reads
 * `PERSON_FACTS_COLUMNS`).
 */
const BEGUN_PERSON_FACTS_COLUMNS = personFactsColumns(`coalesce(
          (select pc.contribution->'checks' from profile_contributions pc where pc.profile_id = p.id and pc.contribution->>'analysis' = a.revision),
          ${OUTCOMES_FROM_FINDINGS})`);

/**
 * Each attachment of `ids` (null: all of the report's) with its facts, in one
 * query. One id is compared as a value, not an array: the statement is
 * prepared (prepared-statements.ts), and a plan made for any array cannot
 * know it holds one id (it walked the report's people). Several ids are
 * found by the primary key inside a plan fence (plan-fence.ts), the report
 * compared outside it.
 */
function personFactsSelect(reportId: string, ids: readonly string[] | null, columns: string = PERSON_FACTS_COLUMNS) {
  const people =
    ids === null || ids.length === 1 ? sql`report_profiles p` : sql`(select * from report_profiles where id = any(${[...ids]}::uuid[]) ${UNFLATTENED}) p`;
  const which = ids !== null && ids.length === 1 ? sql` and p.id = ${ids[0]}::uuid` : sql``;
  return sql<PersonFactsRow>`
    select ${sql.raw(columns)}
    from ${people}
    where p.report_id = ${reportId}${which}`;
}

/**
 * SQL text of a JSON array (null for none) of the facts of the people whom
 * pending deltas of the report `reportExpr` (an SQL expression naming no
 * parameter) ask to recompute: begun items' people, whose stored
 * contributions are not yet what their rows say. Readers count them as
 * they stand (`withBegun`).
 */
export function begunPeopleSql(reportExpr: string): string {
  return `(select json_agg(to_jsonb(pf)) from (
      select ${BEGUN_PERSON_FACTS_COLUMNS}
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
      activityGap: p.latest?.find((l) => l.mode === 'activity')?.activity_gap ?? null,
      events: p.events ?? {},
    },
  };
}

/** The facts of `ids` (null: all of the report's); `begun`: as a begun person's (`BEGUN_PERSON_FACTS_COLUMNS`). */
async function personFacts(db: Kysely<Database>, reportId: string, ids: string[] | null, options: { begun?: boolean } = {}): Promise<GatheredPerson[]> {
  const { rows } = await personFactsSelect(reportId, ids, options.begun ? BEGUN_PERSON_FACTS_COLUMNS : PERSON_FACTS_COLUMNS).execute(db);
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

/**
 * SQL text of the company page's facts of the report `reportExpr` (an SQL
 * expression naming no parameter and none of the aliases `ci`, `cr`, `cc`,
 * `ce`) as one JSON object: its latest item, whether
 * its context was observed, and its events' revisions (`CompanyFacts`, its
 * `events` null when there are none: read it with `companyFromJson`).
 */
function companyFactsSql(reportExpr: string): string {
  return `json_build_object(
      'item', (select json_build_object('status', ci.status, 'warning', ci.warning)
                 from scan_items ci join scan_runs cr on cr.id = ci.run_id
                where ci.report_id = ${reportExpr} and ci.profile_id is null and ci.kind = 'company_page'
                order by cr.created_at desc, ci.created_at desc limit 1),
      'observed', exists (select 1 from company_context cc where cc.report_id = ${reportExpr}),
      'events', (select json_object_agg(ce.id, ce.revision) from activity_events ce
                  where ce.report_id = ${reportExpr} and ce.subject = '${NIL_SUBJECT}'))`;
}

type CompanyFactsJson = Omit<CompanyFacts, 'events'> & { events: Record<string, string> | null };

function companyFromJson(row: CompanyFactsJson): CompanyFacts {
  return { item: row.item, observed: row.observed, events: row.events ?? {} };
}

async function companyFacts(db: Kysely<Database>, reportId: string): Promise<CompanyFacts> {
  const { rows } = await sql<{ facts: CompanyFactsJson }>`select ${sql.raw(companyFactsSql('x.id'))} as facts from (select ${reportId}::uuid as id) x`.execute(
    db,
  );
  return companyFromJson(rows[0].facts);
}

/** The company page as `begunCompanySql` reads it: its stored contribution and its facts as they stand. */
export interface BegunCompany {
  stored: Contribution | null;
  facts: CompanyFactsJson;
}

/**
 * SQL text of the company page's stored contribution and facts as they stand
 * (`BegunCompany`) when a pending delta of the report `reportExpr` (an SQL
 * expression naming no parameter) asks to recompute it (its item begun or
 * ended: item-repository.ts), else null. Readers count it as it stands
 * (`withBegun`).
 */
export function begunCompanySql(reportExpr: string): string {
  return `(select json_build_object('stored', a.company, 'facts', ${companyFactsSql(reportExpr)})
      from report_aggregates a
     where a.report_id = ${reportExpr}
       and exists (select 1 from rollup_deltas d where d.report_id = ${reportExpr} and d.recompute_company))`;
}
