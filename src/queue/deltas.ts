/**
 * A worker's roll-up deltas: what a transition of a person's item (its end,
 * a requeue, a failure) or of the company page's item changes in the
 * report's totals and in its run's counts, appended to `rollup_deltas`
 * under the item's and the person's row locks only (never the report's or
 * the run's row), so that the items of one report never wait on each other.
 * The fold (fold.ts) adds them up into the report's aggregates, its runs and
 * its row; readers count those not folded yet (store/rollup-repository.ts).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { contributionDelta, personContribution, type Contribution, type Totals } from '../domain/analysis-aggregate.js';
import { revisionOf } from '../domain/revision.js';
import { bumpAttachment } from '../store/locks.js';
import { allInOneStatement } from '../store/one-statement.js';
import type { GatheredPerson } from '../domain/finish-facts.js';
import { personFacts } from '../store/person-facts.js';
import { storeContributions } from '../store/rollup-repository.js';
import type { RunChange } from '../store/scan-repository.js';
import type { Database } from '../store/schema.js';

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
  await allInOneStatement([bumpAttachment(profileId), ...personDeltaWrites(reportId, profileId, run, now, change, sql<boolean>`true`)]).execute(db);
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
 * delta with the run's change, when there is either; each writes only if
 * `when` holds (store/one-statement.ts, gateHolds).
 */
export function personDeltaWrites(
  reportId: string,
  profileId: string,
  run: PersonRunChange | null,
  now: Date,
  change: Pick<PersonDelta, 'delta' | 'contribution'>,
  when: RawBuilder<boolean>,
): RawBuilder<unknown>[] {
  const { delta, contribution } = change;
  const writes: RawBuilder<unknown>[] = [];
  if (contribution !== null) {
    writes.push(sql`insert into profile_contributions (profile_id, report_id, contribution)
              select ${profileId}::uuid, ${reportId}::uuid, ${JSON.stringify(contribution)}::jsonb where ${when}
              on conflict (profile_id) do update set contribution = excluded.contribution`);
  }
  if (delta !== null || run !== null) {
    const runChange = run?.change;
    writes.push(sql`insert into rollup_deltas (report_id, run_id, started, finished, warning, totals, at)
            select ${reportId}::uuid, ${run?.runId ?? null}::uuid, ${runChange?.kind === 'started'}, ${runChange?.kind === 'finished' ? runChange.status : null},
                   ${runChange?.kind === 'finished' && runChange.warning === true}, ${delta === null ? null : JSON.stringify(delta)}::jsonb, ${now}::timestamptz
             where ${when}`);
  }
  return writes;
}

/**
 * The write that records a transition of the company page's item (its end:
 * queue/finish.ts, endCompanyItem), for the caller's one statement: the
 * run's change, and a request to recompute the company page's contribution
 * (`recompute_company`), which the fold makes from what is stored; only if
 * `when` holds (store/one-statement.ts, gateHolds).
 */
export function companyDeltaWrite(reportId: string, run: PersonRunChange, now: Date, when: RawBuilder<boolean>): RawBuilder<unknown> {
  const { change } = run;
  return sql`insert into rollup_deltas (report_id, run_id, started, finished, warning, at, recompute_company)
          select ${reportId}::uuid, ${run.runId}::uuid, ${change.kind === 'started'}, ${change.kind === 'finished' ? change.status : null},
                 ${change.kind === 'finished' && change.warning === true}, ${now}::timestamptz, true
           where ${when}`;
}
