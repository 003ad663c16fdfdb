/** The scan allowance's rules (src/domain/scan-allowance.ts): the UTC month, what is left, the headers, the operator's input. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { allowanceAdmits, allowanceHeaders, allowanceMonth, allowanceStatus, parseAllowance } from '../../src/domain/scan-allowance.js';

describe('scan allowance rules', () => {
  test('the month is the UTC calendar month: its first day, and the next first day as the reset', () => {
    assert.deepEqual(allowanceMonth(new Date('2026-11-30T23:59:59.999Z')), { month: '2026-11-01', resetsAt: new Date('2026-12-01T00:00:00Z') });
    assert.deepEqual(allowanceMonth(new Date('2026-12-01T00:00:00.000Z')), { month: '2026-12-01', resetsAt: new Date('2027-01-01T00:00:00Z') });
    // 23:30 on the 31st in New York is already the 1st in UTC.
    assert.equal(allowanceMonth(new Date('2027-01-01T04:30:00Z')).month, '2027-01-01');
    assert.equal(allowanceMonth(new Date('2028-02-29T12:00:00Z')).resetsAt.toISOString(), '2028-03-01T00:00:00.000Z');
  });

  test('property: every instant lies in its month, before the reset', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (now) => {
        const { month, resetsAt } = allowanceMonth(now);
        assert.ok(Date.parse(`${month}T00:00:00Z`) <= now.getTime() && now.getTime() < resetsAt.getTime());
        assert.equal(resetsAt.getUTCDate(), 1);
      }),
    );
  });

  test('what is left never goes below 0; unlimited admits anything; the edge is admitted', () => {
    const now = new Date('2026-11-20T00:00:00Z');
    assert.deepEqual(allowanceStatus(10, 4, now), { limit: 10, used: 4, remaining: 6, resets_at: '2026-12-01T00:00:00.000Z' });
    assert.equal(allowanceStatus(3, 5, now).remaining, 0, 'lowered below this month’s use');
    assert.equal(allowanceStatus(null, 5, now).remaining, null);
    assert.ok(allowanceAdmits(allowanceStatus(10, 4, now), 6));
    assert.ok(!allowanceAdmits(allowanceStatus(10, 4, now), 7));
    assert.ok(allowanceAdmits(allowanceStatus(null, 1e9, now), 100));
  });

  test('headers: numbers, or `unlimited`, and the reset instant', () => {
    const now = new Date('2026-11-20T00:00:00Z');
    assert.deepEqual(allowanceHeaders(allowanceStatus(500, 120, now)), {
      'Scan-Allowance-Limit': '500',
      'Scan-Allowance-Used': '120',
      'Scan-Allowance-Remaining': '380',
      'Scan-Allowance-Reset': '2026-12-01T00:00:00.000Z',
    });
    const open = allowanceHeaders(allowanceStatus(null, 7, now));
    assert.equal(open['Scan-Allowance-Limit'], 'unlimited');
    assert.equal(open['Scan-Allowance-Remaining'], 'unlimited');
  });

  test("the operator's input: a whole number of profile scans (0 included) or `unlimited`", () => {
    assert.equal(parseAllowance('0'), 0);
    assert.equal(parseAllowance('500'), 500);
    assert.equal(parseAllowance('unlimited'), null);
    for (const bad of ['-1', '1.5', '', 'lots', '1e3', '9999999999', ' 5']) assert.equal(parseAllowance(bad), undefined, bad);
  });
});
