/**
 * Contract sections 2.2 and 8, decisions "Errors and limits": fixed UTC-minute
 * windows; `Retry-After` is the whole seconds left in the window, at least 1;
 * write limits are workspace settings over the contract's defaults; RateLimit
 * headers per draft-ietf-httpapi-ratelimit-headers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_LIMITS, effectiveLimits, minuteWindow, rateLimitHeaders, requestBuckets, rowsBucket, type Bucket } from '../../src/domain/rate-limits.js';

const NO_SETTINGS = {
  writes_per_minute_per_key: null,
  writes_per_minute_per_workspace: null,
  submitted_profiles_per_minute_per_workspace: null,
};
const KEY = 'b3b1c1d2-0000-4000-8000-000000000001';
const WS = 'a1a1a1a1-0000-4000-8000-000000000002';

const dateArb = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true });

describe('minuteWindow', () => {
  test('decisions/limits: window starts at the UTC minute', () => {
    const w = minuteWindow(new Date('2026-11-01T12:34:56.789Z'));
    assert.equal(w.start.toISOString(), '2026-11-01T12:34:00.000Z');
    assert.equal(w.secondsLeft, 4);
  });

  test('decisions/limits: at exactly :00.000 the whole window (60 s) is left', () => {
    const w = minuteWindow(new Date('2026-11-01T12:34:00.000Z'));
    assert.equal(w.start.toISOString(), '2026-11-01T12:34:00.000Z');
    assert.equal(w.secondsLeft, 60);
  });

  test('decisions/limits: at :59.999 Retry-After is 1 (at least 1, never 0)', () => {
    const w = minuteWindow(new Date('2026-11-01T12:34:59.999Z'));
    assert.equal(w.start.toISOString(), '2026-11-01T12:34:00.000Z');
    assert.equal(w.secondsLeft, 1);
  });

  test('decisions/limits: at :59.000 one whole second is left; at :00.001 60 (rounded up)', () => {
    assert.equal(minuteWindow(new Date('2026-11-01T12:34:59.000Z')).secondsLeft, 1);
    assert.equal(minuteWindow(new Date('2026-11-01T12:34:00.001Z')).secondsLeft, 60);
  });

  test('decisions/limits: windows are UTC minutes regardless of the local offset of the input', () => {
    const w = minuteWindow(new Date('2026-11-01T14:04:30.000+05:30'));
    assert.equal(w.start.toISOString(), '2026-11-01T08:34:00.000Z');
  });

  test('decisions/limits: window start is the UTC minute and secondsLeft is in [1, 60] (property)', () => {
    fc.assert(
      fc.property(dateArb, (now) => {
        const w = minuteWindow(now);
        assert.equal(w.start.getUTCSeconds(), 0);
        assert.equal(w.start.getUTCMilliseconds(), 0);
        assert.ok(w.start.getTime() <= now.getTime());
        assert.ok(now.getTime() - w.start.getTime() < 60_000);
        assert.ok(Number.isInteger(w.secondsLeft));
        assert.ok(w.secondsLeft >= 1 && w.secondsLeft <= 60, String(w.secondsLeft));
        // the window ends within secondsLeft seconds, and not a whole second earlier
        const endsIn = w.start.getTime() + 60_000 - now.getTime();
        assert.ok(endsIn <= w.secondsLeft * 1000 && endsIn > (w.secondsLeft - 1) * 1000);
      }),
      { numRuns: 500 },
    );
  });
});

describe('effectiveLimits', () => {
  test('contract 2.2/8: defaults equal the contract numbers', () => {
    const limits = effectiveLimits(NO_SETTINGS);
    assert.deepEqual(limits, {
      reads_per_minute_per_key: 60,
      reads_per_minute_per_workspace: 300,
      page_size_max: 100,
      writes_per_minute_per_key: 10,
      writes_per_minute_per_workspace: 50,
      submitted_profiles_per_minute_per_workspace: 1000,
      profiles_per_write_max: 100,
    });
    assert.deepEqual(DEFAULT_LIMITS, limits);
  });

  test('decisions/limits: workspace settings override the three write limits only', () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 0, max: 100_000 })),
        fc.option(fc.integer({ min: 0, max: 100_000 })),
        fc.option(fc.integer({ min: 0, max: 100_000 })),
        (perKey, perWorkspace, rows) => {
          const limits = effectiveLimits({
            writes_per_minute_per_key: perKey,
            writes_per_minute_per_workspace: perWorkspace,
            submitted_profiles_per_minute_per_workspace: rows,
          });
          assert.equal(limits.writes_per_minute_per_key, perKey ?? 10);
          assert.equal(limits.writes_per_minute_per_workspace, perWorkspace ?? 50);
          assert.equal(limits.submitted_profiles_per_minute_per_workspace, rows ?? 1000);
          assert.equal(limits.reads_per_minute_per_key, 60);
          assert.equal(limits.reads_per_minute_per_workspace, 300);
          assert.equal(limits.page_size_max, 100);
          assert.equal(limits.profiles_per_write_max, 100);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('decisions/limits: an explicit workspace setting of 0 is kept, not replaced by the default', () => {
    const limits = effectiveLimits({
      writes_per_minute_per_key: 0,
      writes_per_minute_per_workspace: 0,
      submitted_profiles_per_minute_per_workspace: 0,
    });
    assert.equal(limits.writes_per_minute_per_key, 0);
    assert.equal(limits.writes_per_minute_per_workspace, 0);
    assert.equal(limits.submitted_profiles_per_minute_per_workspace, 0);
  });
});

describe('requestBuckets', () => {
  test('decisions/limits: reads count per key and per workspace', () => {
    const buckets = requestBuckets('read', KEY, WS, effectiveLimits(NO_SETTINGS));
    assert.deepEqual(
      buckets.map((b) => [b.policy, b.limit, b.amount]),
      [
        ['reads-per-key', 60, 1],
        ['reads-per-workspace', 300, 1],
      ],
    );
  });

  test('decisions/limits: writes count per key and per workspace with the effective limits', () => {
    const limits = effectiveLimits({ ...NO_SETTINGS, writes_per_minute_per_key: 3 });
    const buckets = requestBuckets('write', KEY, WS, limits);
    assert.deepEqual(
      buckets.map((b) => [b.policy, b.limit, b.amount]),
      [
        ['writes-per-key', 3, 1],
        ['writes-per-workspace', 50, 1],
      ],
    );
  });

  test('decisions/limits: submitted rows count per workspace by the number of rows', () => {
    const bucket = rowsBucket(WS, effectiveLimits(NO_SETTINGS), 37);
    assert.equal(bucket.limit, 1000);
    assert.equal(bucket.amount, 37);
    assert.equal(bucket.policy, 'submitted-profiles-per-workspace');
  });

  test('decisions/limits: buckets come in a stable sorted order with unique ids (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom<'read' | 'write'>('read', 'write'), fc.uuid(), fc.uuid(), (kind, keyId, workspaceId) => {
        const limits = effectiveLimits(NO_SETTINGS);
        const buckets = requestBuckets(kind, keyId, workspaceId, limits);
        const ids = buckets.map((b) => b.id);
        assert.deepEqual(ids, [...ids].sort());
        assert.equal(new Set(ids).size, ids.length);
        assert.deepEqual(requestBuckets(kind, keyId, workspaceId, limits), buckets);
        // key and workspace counters are distinct even when the ids coincide
        assert.equal(new Set(requestBuckets(kind, keyId, keyId, limits).map((b) => b.id)).size, 2);
        // reads and writes never share a counter
        const other = requestBuckets(kind === 'read' ? 'write' : 'read', keyId, workspaceId, limits).map((b) => b.id);
        assert.ok(ids.every((id) => !other.includes(id)));
      }),
      { numRuns: 200 },
    );
  });
});

describe('rateLimitHeaders', () => {
  const window = { start: new Date('2026-11-01T12:34:00Z'), secondsLeft: 17 };
  const bucket = (policy: string, limit: number): Bucket => ({ policy, id: `x:${policy}`, limit, amount: 1 });

  test('draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy lists every policy as "name";q=N;w=60', () => {
    const headers = rateLimitHeaders([bucket('reads-per-key', 60), bucket('reads-per-workspace', 300)], [5, 10], window);
    assert.equal(headers['RateLimit-Policy'], '"reads-per-key";q=60;w=60, "reads-per-workspace";q=300;w=60');
  });

  test('draft-ietf-httpapi-ratelimit-headers: RateLimit reports the tightest policy as "name";r=R;t=T', () => {
    // per key: 60-5 = 55 left; per workspace: 300-290 = 10 left -> workspace is tightest
    const headers = rateLimitHeaders([bucket('reads-per-key', 60), bucket('reads-per-workspace', 300)], [5, 290], window);
    assert.equal(headers.RateLimit, '"reads-per-workspace";r=10;t=17');
    const other = rateLimitHeaders([bucket('reads-per-key', 60), bucket('reads-per-workspace', 300)], [59, 10], window);
    assert.equal(other.RateLimit, '"reads-per-key";r=1;t=17');
  });

  test('draft-ietf-httpapi-ratelimit-headers: remaining is never negative', () => {
    const headers = rateLimitHeaders([bucket('writes-per-key', 10), bucket('writes-per-workspace', 50)], [14, 20], window);
    assert.equal(headers.RateLimit, '"writes-per-key";r=0;t=17');
  });

  test('draft-ietf-httpapi-ratelimit-headers: header syntax and tightest choice hold for any counts (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ limit: fc.integer({ min: 1, max: 5000 }), count: fc.integer({ min: 0, max: 6000 }) }), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.integer({ min: 1, max: 60 }),
        (specs, secondsLeft) => {
          const buckets = specs.map((s, i) => bucket(`policy-${i}`, s.limit));
          const headers = rateLimitHeaders(
            buckets,
            specs.map((s) => s.count),
            { start: window.start, secondsLeft },
          );
          const policyItems = headers['RateLimit-Policy'].split(', ');
          assert.equal(policyItems.length, buckets.length);
          policyItems.forEach((item, i) => assert.equal(item, `"policy-${i}";q=${specs[i].limit};w=60`));
          const match = /^"(policy-\d+)";r=(\d+);t=(\d+)$/.exec(headers.RateLimit);
          assert.ok(match, headers.RateLimit);
          const remaining = specs.map((s) => Math.max(0, s.limit - s.count));
          assert.equal(Number(match[2]), Math.min(...remaining));
          assert.equal(remaining[Number(match[1].slice('policy-'.length))], Math.min(...remaining));
          assert.equal(Number(match[3]), secondsLeft);
        },
      ),
      { numRuns: 300 },
    );
  });
});
