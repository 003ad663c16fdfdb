/**
 * The rules of progress between two scans (domain/progress.ts): what is a
 * fixed gap and a new one, a person's state, the team's counts, and a
 * retention window in calendar months.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gapChanges, personProgress, sincePrevious, teamProgress, type Outcomes } from '../../src/domain/progress.js';
import { addPersonMoves, emptyProgressTotals } from '../../src/domain/progress-state.js';
import { monthsBefore } from '../../src/maintenance.js';

/** A person's progress from their previous scan's outcomes to their latest's. */
const rescanned = (previous: Outcomes, current: Outcomes) =>
  personProgress({ scanned: true, since: sincePrevious(previous, current), latestScanFailed: false });

test('a check that moved from optimize to unknown is neither fixed nor a new gap', () => {
  assert.deepEqual(gapChanges({ 'identity.has_banner': 'optimize' }, { 'identity.has_banner': 'unknown' }), { fixed: [], opened: [] });
});

test('a gap is fixed only when the check is now good; a new gap is a check now optimize that was good or unknown', () => {
  const before = { 'identity.has_photo': 'optimize', 'identity.has_banner': 'good', 'headline.present': 'unknown' } as const;
  const after = { 'identity.has_photo': 'good', 'identity.has_banner': 'optimize', 'headline.present': 'optimize' } as const;
  assert.deepEqual(gapChanges(before, after), { fixed: ['identity.has_photo'], opened: ['identity.has_banner', 'headline.present'] });
});

test('a person whose latest scan failed is not compared, whatever their history says', () => {
  const p = personProgress({
    scanned: true,
    since: sincePrevious({ 'identity.has_photo': 'optimize' }, { 'identity.has_photo': 'good' }),
    latestScanFailed: true,
  });
  assert.deepEqual(p, { state: 'not_rescanned', fixed: [], opened: [], previousScorePct: null, changePct: null });
});

test('a person with one scan is a first scan; with none, not analyzed', () => {
  assert.equal(personProgress({ scanned: true, since: null, latestScanFailed: false }).state, 'first_scan');
  assert.equal(personProgress({ scanned: false, since: null, latestScanFailed: true }).state, 'not_analyzed');
});

test('the team counts each state and each check that moved, most fixed first', () => {
  const fixedTwo = rescanned(
    { 'identity.has_photo': 'optimize', 'identity.has_banner': 'optimize' },
    { 'identity.has_photo': 'good', 'identity.has_banner': 'good' },
  );
  const regressed = rescanned({ 'identity.has_photo': 'good' }, { 'identity.has_photo': 'optimize' });
  assert.equal(fixedTwo.state, 'improved');
  assert.equal(fixedTwo.changePct, 100);
  assert.equal(regressed.state, 'regressed');
  const totals = emptyProgressTotals();
  for (const person of [fixedTwo, regressed]) addPersonMoves(totals, person, 1);
  const team = teamProgress(totals);
  assert.equal(team.counts.improved, 1);
  assert.equal(team.counts.regressed, 1);
  assert.equal(team.counts.unchanged, 0);
  assert.deepEqual(
    team.checks.map((c) => [c.check.key, c.fixed, c.opened]),
    [
      ['identity.has_photo', 1, 1],
      ['identity.has_banner', 1, 0],
    ],
  );
  assert.deepEqual([team.fixedTotal, team.openedTotal], [2, 1]);
});

test('a retention of N months starts N calendar months back, a missing day falling to the month end', () => {
  assert.equal(monthsBefore(new Date('2028-11-20T12:00:30Z'), 24).toISOString(), '2026-11-20T12:00:30.000Z');
  assert.equal(monthsBefore(new Date('2026-03-31T00:00:00Z'), 1).toISOString(), '2026-02-28T00:00:00.000Z');
});

test("taking a person's moves away again leaves the team's totals as they were, with no check counted at zero", () => {
  const totals = emptyProgressTotals();
  const fixedOne = rescanned({ 'identity.has_photo': 'optimize' }, { 'identity.has_photo': 'good' });
  addPersonMoves(totals, fixedOne, 1);
  assert.deepEqual(totals.fixed, { 'identity.has_photo': 1 });
  addPersonMoves(totals, fixedOne, -1);
  assert.deepEqual(totals, emptyProgressTotals());
});
