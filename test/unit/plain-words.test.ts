/** States in plain words (src/web/components/plain-words.ts): what happened and what to do. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { explainCoverage, explainReport, PERSON_ADVICE, peopleStates, SHARED_PERSON_ADVICE } from '../../src/web/components/plain-words.js';
import { PERSON_REASON } from '../../src/web/components/labels.js';

const statuses = (counts: Record<string, number>) => Object.entries(counts).flatMap(([status, n]) => Array<string>(n).fill(status));

describe('plain words', () => {
  test('a finished report with 2 of 30 people inaccessible says so, why, and what to do', () => {
    const explained = explainReport(peopleStates(statuses({ analyzed: 28, profile_inaccessible: 2 })));
    assert.equal(explained.tone, 'attention');
    assert.equal(explained.title, 'Done');
    assert.equal(explained.summary, '28 of 30 people analyzed.');
    assert.equal(explained.advice.length, 1);
    assert.match(explained.advice[0], /^2 people could not be scanned: their profiles are not public/);
    assert.match(explained.advice[0], /choose “Try these again” under the people table/);
  });

  test('every group that needs attention gets its own sentence, in the singular for one person', () => {
    const explained = explainReport(peopleStates(statuses({ analyzed: 3, profile_inaccessible: 1, scan_failed: 2, scan_cancelled: 1, no_usable_analysis: 1 })));
    assert.equal(explained.advice.length, 4);
    assert.match(explained.advice[0], /^1 person could not be scanned: their profile is not public/);
    assert.match(explained.advice[1], /^The scan of 2 people failed after several attempts/);
    assert.match(explained.advice[2], /^1 person was not scanned because the report was archived/);
    assert.match(explained.advice[3], /^1 person was scanned without enough data/);
  });

  test('while anyone is queued or being scanned, the report is "Scanning" with how many are done, and no advice yet', () => {
    const explained = explainReport(peopleStates(statuses({ analyzed: 5, scan_queued: 3, scan_in_progress: 2, profile_inaccessible: 1 })));
    assert.deepEqual({ tone: explained.tone, title: explained.title, advice: explained.advice }, { tone: 'progress', title: 'Scanning', advice: [] });
    assert.equal(explained.summary, '5 of 11 people analyzed so far; 5 to go. Results appear as each person finishes.');
  });

  test('everyone analyzed: done, nothing to do; nobody: say how to start', () => {
    assert.deepEqual(explainReport(peopleStates(statuses({ analyzed: 4 }))), { tone: 'ok', title: 'Done', summary: 'All 4 people are analyzed.', advice: [] });
    assert.match(explainReport(peopleStates([])).summary, /add people/);
  });

  test('every reason a person may have no analysis has a title and advice', () => {
    for (const reason of Object.keys(PERSON_REASON)) {
      assert.ok(PERSON_ADVICE[reason]?.title && PERSON_ADVICE[reason].advice.endsWith('.'), reason);
    }
  });

  test('the public page says how many people the results cover, without naming anyone', () => {
    assert.equal(explainCoverage({ people: 30, analyzed: 30, scanning: false }), 'Results cover all 30 people.');
    assert.match(explainCoverage({ people: 30, analyzed: 28, scanning: false }), /^Results cover 28 of 30 people; the others could not be scanned/);
    assert.match(explainCoverage({ people: 30, analyzed: 10, scanning: true }), /^Scanning is under way: results cover 10 of 30 people so far\.$/);
  });

  test('the advice never sends anyone to remove and add a person again: scanning again is a button', () => {
    const words = [...Object.values(PERSON_ADVICE).map((a) => a.advice), ...Object.values(SHARED_PERSON_ADVICE)];
    for (const advice of words) assert.doesNotMatch(advice, /add (them|the person) again|remove (them|this person)/i, advice);
  });

  test("a shared person page's advice names no button its reader lacks, for every reason that needs someone to act", () => {
    for (const reason of ['not_requested', 'profile_inaccessible', 'scan_failed', 'scan_cancelled', 'no_usable_analysis']) {
      assert.ok(SHARED_PERSON_ADVICE[reason], reason);
      assert.doesNotMatch(SHARED_PERSON_ADVICE[reason], /Scan again|Try these again/, reason);
    }
  });

  test('while people who were analyzed are scanned again, the report says so and that their previous results stay shown', () => {
    const explained = explainReport(
      peopleStates(statuses({ analyzed: 290, scan_queued: 4 }), { warnings: 0, unknownChecks: 0, restricted: 0, rescanning: 280 }),
    );
    assert.equal(explained.title, 'Scanning again');
    assert.equal(explained.summary, '284 of 294 people still to scan; until each finishes, their previous results are shown.');
    assert.deepEqual(explained.advice, []);
  });
});
