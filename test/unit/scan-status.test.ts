/**
 * decisions "Scans" — run status: `queued` until an item is claimed; `running`
 * while any item is unfinished; when all are finished: `completed` (all
 * succeeded), `partial` (some succeeded), `inaccessible` (none succeeded and
 * all were inaccessible), `failed` (none succeeded otherwise), `cancelled`
 * (cancelled before finishing). `terminal_reason` is failed / inaccessible /
 * cancelled for those three statuses, else null.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { isTerminal, runStatus, terminalReason, type ItemCounts, type RunStatus } from '../../src/domain/scan-status.js';

const counts = (c: Partial<ItemCounts>): ItemCounts => ({
  pending: 0,
  running: 0,
  succeeded: 0,
  failed: 0,
  inaccessible: 0,
  cancelled: 0,
  ...c,
});
const ALL_STATUSES: RunStatus[] = ['queued', 'running', 'completed', 'partial', 'failed', 'inaccessible', 'cancelled'];

describe('run status — every case of the rule', () => {
  test('decisions/scans: queued until an item is claimed', () => {
    assert.equal(runStatus(counts({ pending: 1 })), 'queued');
    assert.equal(runStatus(counts({ pending: 7 })), 'queued');
  });

  test('decisions/scans: running once an item is claimed (in progress)', () => {
    assert.equal(runStatus(counts({ running: 1 })), 'running');
    assert.equal(runStatus(counts({ pending: 3, running: 1 })), 'running');
  });

  test('decisions/scans: running while any item is unfinished after others finished', () => {
    assert.equal(runStatus(counts({ pending: 1, succeeded: 1 })), 'running');
    assert.equal(runStatus(counts({ pending: 2, failed: 1 })), 'running');
    assert.equal(runStatus(counts({ pending: 1, inaccessible: 4 })), 'running');
    assert.equal(runStatus(counts({ running: 1, succeeded: 5, failed: 2 })), 'running');
    assert.equal(runStatus(counts({ pending: 1, cancelled: 1 })), 'running');
  });

  test('decisions/scans: completed when all items finished and all succeeded', () => {
    assert.equal(runStatus(counts({ succeeded: 1 })), 'completed');
    assert.equal(runStatus(counts({ succeeded: 12 })), 'completed');
  });

  test('decisions/scans: partial when all finished and some (not all) succeeded', () => {
    assert.equal(runStatus(counts({ succeeded: 1, failed: 1 })), 'partial');
    assert.equal(runStatus(counts({ succeeded: 3, inaccessible: 1 })), 'partial');
    assert.equal(runStatus(counts({ succeeded: 1, failed: 2, inaccessible: 2 })), 'partial');
  });

  test('decisions/scans: inaccessible when none succeeded and all were inaccessible', () => {
    assert.equal(runStatus(counts({ inaccessible: 1 })), 'inaccessible');
    assert.equal(runStatus(counts({ inaccessible: 9 })), 'inaccessible');
  });

  test('decisions/scans: failed when none succeeded otherwise', () => {
    assert.equal(runStatus(counts({ failed: 1 })), 'failed');
    assert.equal(runStatus(counts({ failed: 2, inaccessible: 3 })), 'failed');
  });

  test('decisions/scans: cancelled when work was cancelled before finishing', () => {
    assert.equal(runStatus(counts({ cancelled: 1 })), 'cancelled');
    assert.equal(runStatus(counts({ cancelled: 2, succeeded: 3 })), 'cancelled');
    assert.equal(runStatus(counts({ cancelled: 1, failed: 1, inaccessible: 1 })), 'cancelled');
  });

  test('decisions/scans: terminal_reason is failed/inaccessible/cancelled for those statuses, else null', () => {
    assert.equal(terminalReason('failed'), 'failed');
    assert.equal(terminalReason('inaccessible'), 'inaccessible');
    assert.equal(terminalReason('cancelled'), 'cancelled');
    for (const status of ['queued', 'running', 'completed', 'partial'] as const) assert.equal(terminalReason(status), null, status);
  });

  test('decisions/scans: only queued and running are not terminal', () => {
    assert.deepEqual(
      ALL_STATUSES.filter((s) => !isTerminal(s)),
      ['queued', 'running'],
    );
  });
});

describe('run status — properties', () => {
  const n = fc.nat({ max: 20 });
  const itemCounts = fc.record({ pending: n, running: n, succeeded: n, failed: n, inaccessible: n, cancelled: n });

  test('decisions/scans: the run is terminal iff pending + running is 0', () => {
    fc.assert(
      fc.property(itemCounts, (c) => {
        assert.equal(isTerminal(runStatus(c)), c.pending + c.running === 0, JSON.stringify(c));
      }),
      { numRuns: 500 },
    );
  });

  test('decisions/scans: a finished run status follows the succeeded / inaccessible / cancelled counts', () => {
    fc.assert(
      fc.property(itemCounts, (raw) => {
        const c = { ...raw, pending: 0, running: 0 };
        fc.pre(c.succeeded + c.failed + c.inaccessible + c.cancelled > 0);
        const status = runStatus(c);
        if (c.cancelled > 0) assert.equal(status, 'cancelled');
        else if (c.failed + c.inaccessible === 0) assert.equal(status, 'completed');
        else if (c.succeeded > 0) assert.equal(status, 'partial');
        else if (c.failed === 0) assert.equal(status, 'inaccessible');
        else assert.equal(status, 'failed');
        assert.equal(terminalReason(status), status === 'failed' || status === 'inaccessible' || status === 'cancelled' ? status : null);
      }),
      { numRuns: 500 },
    );
  });

  test('decisions/scans: an unfinished run is queued exactly when nothing was claimed yet', () => {
    fc.assert(
      fc.property(itemCounts, (c) => {
        fc.pre(c.pending + c.running > 0);
        const claimed = c.running + c.succeeded + c.failed + c.inaccessible + c.cancelled > 0;
        assert.equal(runStatus(c), claimed ? 'running' : 'queued');
        assert.equal(terminalReason(runStatus(c)), null);
      }),
      { numRuns: 500 },
    );
  });
});
