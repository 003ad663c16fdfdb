/**
 * What to fix first (src/domain/fix-first.ts): a person's gaps by impact then
 * catalog order; a team's most common gaps by people, then impact.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CHECKS } from '../../src/domain/checks/catalog.js';
import { commonGaps, fixFirst, personalFixFirst, TEAM_ACTION_SHARE, teamActions, weightedScorePct } from '../../src/domain/fix-first.js';

const impact = (key: string) => CHECKS.find((c) => c.key === key)!.impact;

describe('fix first', () => {
  test('every check has an impact weight of 1, 2 or 3, and every weight is used', () => {
    assert.deepEqual([...new Set(CHECKS.map((c) => c.impact))].sort(), [1, 2, 3]);
  });

  test("a person's gaps are only their optimize outcomes, higher impact first, then in catalog order", () => {
    const outcomes = CHECKS.map((c, i) => ({
      key: c.key,
      outcome: i % 3 === 0 ? ('good' as const) : i % 3 === 1 ? ('optimize' as const) : ('unknown' as const),
    }));
    const ranked = fixFirst(outcomes);
    const expected = outcomes.filter((o) => o.outcome === 'optimize').map((o) => o.key);
    assert.deepEqual(new Set(ranked.map((c) => c.key)), new Set(expected));
    for (let i = 1; i < ranked.length; i++) {
      const [a, b] = [ranked[i - 1], ranked[i]];
      assert.ok(a.impact > b.impact || (a.impact === b.impact && CHECKS.indexOf(a) < CHECKS.indexOf(b)), `${a.key} before ${b.key}`);
    }
  });

  test('a high-impact gap comes before a low-impact gap that precedes it in the catalog', () => {
    const low = CHECKS.find((c) => c.impact === 1)!;
    const high = [...CHECKS].reverse().find((c) => c.impact === 3)!;
    assert.ok(CHECKS.indexOf(low) < CHECKS.indexOf(high));
    assert.deepEqual(
      fixFirst([
        { key: low.key, outcome: 'optimize' },
        { key: high.key, outcome: 'optimize' },
      ]).map((c) => c.key),
      [high.key, low.key],
    );
  });

  test('checks unknown to the catalog are ignored', () => {
    assert.deepEqual(fixFirst([{ key: 'retired.check', outcome: 'optimize' }]), []);
  });

  test('common gaps: most people first, ties by impact, checks nobody should optimize left out, shares of the analyzed people', () => {
    const [high] = CHECKS.filter((c) => c.impact === 3);
    const [low] = CHECKS.filter((c) => c.impact === 1);
    const [medium] = CHECKS.filter((c) => c.impact === 2);
    const gaps = commonGaps(
      [
        { key: low.key, optimize: 4 },
        { key: high.key, optimize: 4 },
        { key: medium.key, optimize: 7 },
        { key: CHECKS[5].key, optimize: 0 },
      ],
      8,
      10,
    );
    assert.deepEqual(
      gaps.map((g) => [g.check.key, g.people, g.share]),
      [
        [medium.key, 7, 7 / 8],
        [high.key, 4, 0.5],
        [low.key, 4, 0.5],
      ],
    );
    assert.equal(impact(high.key), 3);
  });

  test('common gaps: at most `limit`, and none before anyone is analyzed', () => {
    const all = CHECKS.map((c) => ({ key: c.key, optimize: 1 }));
    assert.equal(commonGaps(all, 3, 5).length, 5);
    assert.deepEqual(commonGaps(all, 0, 5), []);
  });
});

describe('team actions and the weighted score', () => {
  const keys = CHECKS.map((c) => c.key);
  test('a check is a team action when at least 60 % of the analyzed people should optimize it, and only from three people on', () => {
    assert.equal(TEAM_ACTION_SHARE, 0.6);
    const counts = [
      { key: keys[0], optimize: 6 },
      { key: keys[1], optimize: 5 },
      { key: keys[2], optimize: 10 },
    ];
    assert.deepEqual(
      teamActions(counts, 10).map((g) => g.check.key),
      [keys[2], keys[0]],
    );
    assert.deepEqual(teamActions([{ key: keys[0], optimize: 2 }], 2), [], 'two people are no team');
  });

  test("a person's own list leaves out the team's actions and keeps the rest in impact order", () => {
    const outcomes = CHECKS.map((c) => ({ key: c.key, outcome: 'optimize' as const }));
    const own = personalFixFirst(outcomes, new Set([keys[0]]));
    assert.equal(own.length, CHECKS.length - 1);
    assert.ok(!own.some((c) => c.key === keys[0]));
    assert.deepEqual(
      own,
      fixFirst(outcomes).filter((c) => c.key !== keys[0]),
    );
  });

  test('the weighted score weighs each answered check by its impact; unknown checks do not count', () => {
    const high = CHECKS.find((c) => c.impact === 3)!;
    const low = CHECKS.find((c) => c.impact === 1)!;
    const unknown = CHECKS.find((c) => c.key !== high.key && c.key !== low.key)!;
    assert.equal(
      weightedScorePct([
        { key: high.key, outcome: 'good' },
        { key: low.key, outcome: 'optimize' },
        { key: unknown.key, outcome: 'unknown' },
      ]),
      75,
    );
    assert.equal(
      weightedScorePct([
        { key: high.key, outcome: 'optimize' },
        { key: low.key, outcome: 'good' },
      ]),
      25,
    );
    assert.equal(weightedScorePct([{ key: unknown.key, outcome: 'unknown' }]), null);
  });
});
