/** When a snapshot's progress is asked again (src/domain/snapshot-polling.ts): soon at first, then a share of its age, never beyond the setting. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FIRST_POLL_MS, POLL_AGE_SHARE, pollsUntilReady, snapshotPollPauseMs } from '../../src/domain/snapshot-polling.js';

describe('snapshot polling schedule', () => {
  test('the first poll of a fresh snapshot comes after the short first pause, not after the whole interval', () => {
    assert.equal(snapshotPollPauseMs(0, 10_000), FIRST_POLL_MS);
  });

  test('the pause grows with the snapshot age and stops at the configured interval', () => {
    assert.equal(snapshotPollPauseMs(30_000, 10_000), 30_000 * POLL_AGE_SHARE);
    assert.equal(snapshotPollPauseMs(600_000, 10_000), 10_000);
  });

  test('an interval shorter than the first pause is kept (an operator asked for it)', () => {
    assert.equal(snapshotPollPauseMs(0, 100), 100);
    assert.equal(snapshotPollPauseMs(60_000, 100), 100);
  });

  test('property: a ready snapshot is seen no later than the larger of the first pause, a share of its age, or the interval', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3_600_000 }), fc.integer({ min: 10, max: 600_000 }), (readyMs, capMs) => {
        let age = 0;
        while (age < readyMs) age += snapshotPollPauseMs(age, capMs);
        const late = age - readyMs;
        assert.ok(late <= Math.max(FIRST_POLL_MS, Math.min(capMs, Math.ceil(readyMs * POLL_AGE_SHARE) + 1)), `${late} ms late for ${readyMs} ms`);
      }),
    );
  });

  test('the polls a snapshot costs: bounded by the first second, the share of its age, and then the interval', () => {
    // Ready at the first poll; a minute takes 10 polls at 1 s, then ~19 growing pauses.
    assert.equal(pollsUntilReady(500, 10_000), 1);
    assert.equal(pollsUntilReady(60_000, 10_000), 29);
    // A long job is asked once per interval once the share of its age exceeds it.
    assert.equal(pollsUntilReady(600_000, 10_000) - pollsUntilReady(300_000, 10_000), 30);
  });
});
