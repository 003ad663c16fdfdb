/** Figures per group (domain/group-summary.ts): each group's figures are its people's, by the summary's own arithmetic. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { addTotals, personContribution, sumContributions, type Outcome } from '../../src/domain/analysis-aggregate.js';
import { CHECKS } from '../../src/domain/checks/catalog.js';
import { optimizationOf } from '../../src/domain/analysis-summary.js';
import { compareChoiceProblem, figuresOf, groupFigures, groupsPeople, type GroupMember } from '../../src/domain/group-summary.js';

const outcome = fc.constantFrom<Outcome>('good', 'optimize', 'unknown');
const member = (i: number): fc.Arbitrary<GroupMember> =>
  fc
    .record({
      department: fc.option(fc.constantFrom('Sales', 'Engineering', 'Support'), { nil: undefined }),
      outcomes: fc.option(fc.dictionary(fc.constantFrom(...CHECKS.slice(0, 6).map((c) => c.id)), outcome), { nil: null }),
      observed: fc.boolean(),
    })
    .map(({ department, outcomes, observed }): GroupMember => ({
      columns: department === undefined ? {} : { Department: department },
      contribution: personContribution({
        profileId: `p${i}`,
        active: true,
        person: { pronet_url: `https://pronet.example/in/p${i}`, name: null, title: null, headline: null },
        analysis: outcomes ? { revision: `r${i}`, outcomes } : null,
        full: { status: outcomes ? 'succeeded' : 'inaccessible', warning: false },
        activity: { status: 'succeeded', warning: false },
        activityObserved: observed,
        activityGap: null,
        events: {},
        latestScan: null,
      }),
    }));
const roster = fc.integer({ min: 0, max: 30 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => member(i))));

describe('figures per group', () => {
  test("each group's counts equal a recount of its own people's outcomes", () => {
    fc.assert(
      fc.property(roster, (people) => {
        for (const g of groupFigures(people, 'Department')) {
          const mine = people.filter((p) => p.columns.Department === g.value);
          assert.equal(g.coverage.person_profiles, mine.length);
          assert.equal(g.coverage.optimization.analyzed_profiles, mine.filter((p) => p.contribution.analyzed === 1).length);
          assert.equal(g.coverage.activity.observed_person_profiles, mine.filter((p) => p.contribution.activity_observed === 1).length);
          for (const kind of ['good', 'optimize', 'unknown'] as const) {
            const recount = mine.reduce((s, p) => s + Object.values(p.contribution.checks).filter((o) => o === kind).length, 0);
            assert.equal(g.optimization.counts[kind], recount, kind);
          }
        }
      }),
    );
  });

  test('the groups of a column add up to everyone who has a value in it, by the same arithmetic as the report', () => {
    fc.assert(
      fc.property(roster, (people) => {
        const grouped = groupFigures(people, 'Department').reduce((sum, g) => addTotals(sum, g.totals), sumContributions([]));
        const valued = people.filter((p) => p.columns.Department !== undefined).map((p) => p.contribution);
        const whole = sumContributions(valued);
        assert.deepEqual(
          optimizationOf(grouped, (b) => b),
          optimizationOf(whole, (b) => b),
        );
        assert.equal(grouped.persons, whole.persons);
      }),
    );
  });

  test('without a choice the largest groups come first; a chosen value nobody has is an empty group', () => {
    const people = [
      ...Array.from({ length: 3 }, () => ({ columns: { Team: 'B' }, contribution: sumless() })),
      { columns: { Team: 'A' }, contribution: sumless() },
    ];
    assert.deepEqual(
      groupFigures(people, 'Team').map((g) => [g.value, g.coverage.person_profiles]),
      [
        ['B', 3],
        ['A', 1],
      ],
    );
    assert.deepEqual(
      groupFigures(people, 'Team', ['A', 'Z']).map((g) => [g.value, g.coverage.person_profiles]),
      [
        ['A', 1],
        ['Z', 0],
      ],
    );
    assert.equal(figuresOf('Z', []).optimization.counts.score_pct, null, 'an empty group has no score');
  });

  test('a comparison takes two to five distinct groups', () => {
    assert.match(compareChoiceProblem(['Sales']) ?? '', /at least 2/);
    assert.match(compareChoiceProblem(['Sales', 'Sales']) ?? '', /at least 2/);
    assert.equal(compareChoiceProblem(['A', 'B']), null);
    assert.equal(compareChoiceProblem(['A', 'B', 'C', 'D', 'E']), null);
    assert.match(compareChoiceProblem(['A', 'B', 'C', 'D', 'E', 'F']) ?? '', /at most 5 groups to compare: 6 were chosen/);
  });
});

function sumless() {
  return personContribution({
    profileId: 'x',
    active: true,
    person: { pronet_url: 'https://pronet.example/in/x', name: null, title: null, headline: null },
    analysis: null,
    full: null,
    activity: null,
    activityObserved: false,
    activityGap: null,
    events: {},
    latestScan: null,
  });
}

describe('which columns group people', () => {
  test('a column whose values repeat groups people, in a team of three too', () => {
    assert.equal(groupsPeople(6, 294), true);
    assert.equal(groupsPeople(2, 4), true);
    assert.equal(groupsPeople(2, 3), true);
  });

  test('a column of one value per person (an employee number) does not', () => {
    assert.equal(groupsPeople(294, 294), false);
    assert.equal(groupsPeople(150, 294), false);
    assert.equal(groupsPeople(3, 3), false);
    assert.equal(groupsPeople(2, 2), false);
  });

  test('a column with the same value for everyone does not', () => {
    assert.equal(groupsPeople(1, 294), false);
  });
});
