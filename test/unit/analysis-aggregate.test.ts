/** Aggregates maintained on write equal aggregates summed from scratch (domain/analysis-aggregate.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  addTotals,
  applyContribution,
  collectionRevision,
  contributionDelta,
  emptyTotals,
  personContribution,
  sumContributions,
  type Contribution,
  type ItemStatus,
  type PersonFacts,
} from '../../src/domain/analysis-aggregate.js';
import { workState } from '../../src/domain/analysis-summary.js';

const status = fc.constantFrom<ItemStatus>('pending', 'running', 'succeeded', 'failed', 'inaccessible', 'cancelled');
const item = fc.option(fc.record({ status, warning: fc.boolean() }), { nil: null });
const outcome = fc.constantFrom('good' as const, 'optimize' as const, 'unknown' as const);

const facts = (id: number): fc.Arbitrary<PersonFacts> =>
  fc.record({
    profileId: fc.constant(`p${id}`),
    active: fc.boolean(),
    person: fc.record({
      pronet_url: fc.constant(`https://pronet.example/in/p${id}`),
      name: fc.option(fc.string(), { nil: null }),
      title: fc.constant(null),
      headline: fc.constant(null),
    }),
    analysis: fc.option(
      fc.record({
        revision: fc.string({ minLength: 1, maxLength: 8 }),
        outcomes: fc.dictionary(fc.constantFrom('c1', 'c2', 'c3'), outcome),
      }),
      { nil: null },
    ),
    full: item,
    activity: item,
    activityObserved: fc.boolean(),
    activityGap: fc.constantFrom(null, 'not_delivered' as const, 'unattributable' as const, 'failed' as const),
    events: fc.dictionary(fc.constantFrom(`e${id}a`, `e${id}b`, `e${id}c`), fc.string({ minLength: 1, maxLength: 8 })),
    latestScan: fc.option(
      fc.record({ since: fc.option(fc.record({ fixed: fc.subarray(['k1', 'k2', 'k3']), opened: fc.subarray(['k2', 'k3', 'k4']) }), { nil: null }) }),
      { nil: null },
    ),
  });

describe('analysis aggregates', () => {
  test('decisions/analysis: totals updated by differences equal totals summed from scratch, in any order of updates', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 1_000_000 })), { minLength: 1, maxLength: 40 }),
        fc.integer(),
        (updates, seed) => {
          const current = new Map<number, Contribution>();
          let totals = emptyTotals();
          for (const [id, n] of updates) {
            const next = personContribution(fc.sample(facts(id), { seed: seed + n, numRuns: 1 })[0]);
            totals = applyContribution(totals, current.get(id) ?? null, next);
            current.set(id, next);
          }
          const fresh = sumContributions(current.values());
          const clean = (t: typeof totals) => ({
            ...t,
            checks: Object.fromEntries(Object.entries(t.checks).filter(([, c]) => c.good || c.optimize || c.unknown)),
          });
          assert.deepEqual(clean(totals), clean(fresh));
          assert.equal(collectionRevision(totals.profiles), collectionRevision(fresh.profiles));
          assert.equal(workState(totals.work) === 'unknown', false, 'maintained work counts stay consistent');
        },
      ),
      { numRuns: 200 },
    );
  });

  test('deltas appended per transition, folded in any order and grouping, equal the totals maintained in place', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 1_000_000 })), { minLength: 1, maxLength: 40 }),
        fc.integer(),
        fc.integer({ min: 1, max: 7 }),
        (updates, seed, batch) => {
          const current = new Map<number, Contribution>();
          let inPlace = emptyTotals();
          const deltas = [];
          for (const [id, n] of updates) {
            const next = personContribution(fc.sample(facts(id), { seed: seed + n, numRuns: 1 })[0]);
            inPlace = applyContribution(inPlace, current.get(id) ?? null, next);
            deltas.push(contributionDelta(current.get(id) ?? null, next));
            current.set(id, next);
          }
          // Folded newest first, in batches of `batch` summed on their own: commutative and associative.
          let folded = emptyTotals();
          const reversed = deltas.reverse();
          for (let i = 0; i < reversed.length; i += batch) folded = addTotals(folded, reversed.slice(i, i + batch).reduce(addTotals, emptyTotals()));
          const clean = (t: typeof inPlace) => ({
            ...t,
            checks: Object.fromEntries(Object.entries(t.checks).filter(([, c]) => c.good || c.optimize || c.unknown)),
          });
          assert.deepEqual(clean(folded), clean(inPlace));
          assert.deepEqual(clean(folded), clean(sumContributions(current.values())));
        },
      ),
      { numRuns: 200 },
    );
  });

  test('decisions/revisions: the profiles revision changes when one record changes and returns when it is restored', () => {
    const base: PersonFacts = {
      profileId: 'p1',
      active: true,
      person: { pronet_url: 'https://pronet.example/in/p1', name: null, title: null, headline: null },
      analysis: null,
      full: { status: 'pending', warning: false },
      activity: null,
      activityObserved: false,
      activityGap: null,
      events: {},
      latestScan: null,
    };
    const a = personContribution(base);
    const b = personContribution({ ...base, full: { status: 'running', warning: false } });
    const t1 = applyContribution(emptyTotals(), null, a);
    const t2 = applyContribution(t1, a, b);
    const t3 = applyContribution(t2, b, a);
    assert.notEqual(collectionRevision(t2.profiles), collectionRevision(t1.profiles));
    assert.equal(collectionRevision(t3.profiles), collectionRevision(t1.profiles));
    const removed = applyContribution(t1, a, personContribution({ ...base, active: false }));
    assert.equal(removed.persons, 0);
    assert.equal(collectionRevision(removed.profiles), collectionRevision(emptyTotals().profiles));
  });

  test('decisions/work.state: queued, processing, completed, completed_with_issues, failed, unknown', () => {
    const w = (o: Partial<Record<string, number>>) => ({
      requested: 0,
      queued: 0,
      processing: 0,
      succeeded: 0,
      failed: 0,
      inaccessible: 0,
      cancelled: 0,
      warnings: 0,
      ...o,
    });
    assert.equal(workState(w({})), 'not_requested');
    assert.equal(workState(w({ requested: 2, queued: 1, succeeded: 1 })), 'queued');
    assert.equal(workState(w({ requested: 2, queued: 1, processing: 1 })), 'processing');
    assert.equal(workState(w({ requested: 2, succeeded: 2, warnings: 1 })), 'completed');
    assert.equal(workState(w({ requested: 2, succeeded: 1, inaccessible: 1 })), 'completed_with_issues');
    assert.equal(workState(w({ requested: 2, failed: 1, cancelled: 1 })), 'failed');
    assert.equal(workState(w({ requested: 3, succeeded: 1 })), 'unknown');
  });
});
