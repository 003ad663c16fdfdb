/**
 * decisions "Reading" — list cursors are base64url of a JSON payload plus an
 * HMAC-SHA256 tag with a shared server secret; they bind workspace, route,
 * filters (limit where the contract says so), the first page's watermark,
 * the last key and its issue time. Anything else → `invalid_cursor`.
 * Analysis cursors expire after 15 minutes (`cursor_expired`).
 * Contract 2.1 / section 8: cursor length max 2048.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { CursorCodec, CursorError, MAX_CURSOR_LENGTH, type CursorBinding, type CursorState } from '../../src/domain/cursor.js';

const WS_A = '7d0c6f8e-2b1a-4c3d-9e8f-0a1b2c3d4e5f';
const WS_B = '0f1e2d3c-4b5a-4678-9abc-def012345678';
const BINDING: CursorBinding = {
  workspace: WS_A,
  route: 'GET /reports',
  filters: { include_archived: false, company_root_domain: 'acme.com', limit: 50 },
};
const STATE: CursorState = {
  watermark: '2026-11-01T12:00:00.000Z',
  last: ['2026-11-01T11:59:59.123Z', 'a3c1e5f7-1b2d-4e6f-8a9b-0c1d2e3f4a5b'],
  issuedAt: Date.parse('2026-11-01T12:00:00.000Z'),
};
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const FIFTEEN_MINUTES = 15 * 60 * 1000;

const codec = new CursorCodec('server-secret-1');

async function reason(promise: Promise<unknown>): Promise<'invalid' | 'expired'> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof CursorError, `expected CursorError, got ${String(error)}`);
    return error.reason;
  }
  assert.fail('expected the cursor to be rejected');
}

// ---------- generators ----------

const jsonScalar = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null));
const bindingArb: fc.Arbitrary<CursorBinding> = fc.record({
  workspace: fc.uuid(),
  route: fc.constantFrom('GET /reports', 'GET /reports/:report_id/profiles', 'GET /reports/:report_id/analysis/profiles'),
  filters: fc.dictionary(fc.constantFrom('limit', 'include_archived', 'company_root_domain', 'report_id', 'profile_id', 'event_type'), jsonScalar, {
    maxKeys: 4,
  }),
});
const stateArb: fc.Arbitrary<CursorState> = fc.record({
  watermark: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  last: fc
    .tuple(
      fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
      fc.uuid(),
    )
    .map(([a, b]) => [a, b]),
  issuedAt: fc.integer({ min: 946_684_800_000, max: 4_102_444_800_000 }),
});

// ---------- examples ----------

describe('CursorCodec — examples', () => {
  test('decisions/reading: cursor round trip restores watermark, last key and issue time', async () => {
    const cursor = await codec.encode(BINDING, STATE);
    const decoded = await codec.decode(cursor, BINDING);
    assert.equal(decoded.watermark, STATE.watermark);
    assert.deepEqual(decoded.last, STATE.last);
    assert.equal(decoded.issuedAt, STATE.issuedAt);
    assert.equal(decoded.extra, undefined);
  });

  test('decisions/reading: cursor round trip keeps extra bound values (e.g. a revision)', async () => {
    const cursor = await codec.encode(BINDING, { ...STATE, extra: { revision: 'abc123' } });
    assert.deepEqual((await codec.decode(cursor, BINDING)).extra, { revision: 'abc123' });
  });

  test('decisions/reading: cursor is base64url segments only (opaque, URL-safe)', async () => {
    const cursor = await codec.encode(BINDING, STATE);
    assert.match(cursor, /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/);
  });

  test('decisions/reading: cursor bound to the workspace — another workspace is invalid_cursor', async () => {
    const cursor = await codec.encode(BINDING, STATE);
    assert.equal(await reason(codec.decode(cursor, { ...BINDING, workspace: WS_B })), 'invalid');
  });

  test('decisions/reading: cursor bound to the route — another route is invalid_cursor', async () => {
    const cursor = await codec.encode(BINDING, STATE);
    assert.equal(await reason(codec.decode(cursor, { ...BINDING, route: 'GET /reports/:report_id/profiles' })), 'invalid');
  });

  test('decisions/reading: cursor bound to the filters — changed, added or removed filters are invalid_cursor', async () => {
    const cursor = await codec.encode(BINDING, STATE);
    const variants: Record<string, unknown>[] = [
      { ...BINDING.filters, include_archived: true },
      { ...BINDING.filters, company_root_domain: 'other.com' },
      { ...BINDING.filters, limit: 51 },
      { ...BINDING.filters, extra_filter: 'x' },
      { include_archived: false, limit: 50 },
      {},
    ];
    for (const filters of variants) {
      assert.equal(await reason(codec.decode(cursor, { ...BINDING, filters })), 'invalid', JSON.stringify(filters));
    }
  });

  test('decisions/reading: filter key order does not change the binding', async () => {
    const cursor = await codec.encode(BINDING, STATE);
    const reordered = { limit: 50, company_root_domain: 'acme.com', include_archived: false };
    assert.equal((await codec.decode(cursor, { ...BINDING, filters: reordered })).watermark, STATE.watermark);
  });

  test('decisions/reading: cursor signed with another server secret is invalid_cursor', async () => {
    const cursor = await new CursorCodec('server-secret-2').encode(BINDING, STATE);
    assert.equal(await reason(codec.decode(cursor, BINDING)), 'invalid');
    // and every instance sharing the secret accepts it
    assert.equal((await new CursorCodec('server-secret-2').decode(cursor, BINDING)).watermark, STATE.watermark);
  });

  test('decisions/reading: analysis cursor older than maxAgeMs is cursor_expired', async () => {
    const cursor = await codec.encode(BINDING, STATE);
    const at = (ms: number) => new Date(STATE.issuedAt + ms);
    assert.equal(await reason(codec.decode(cursor, BINDING, { maxAgeMs: FIFTEEN_MINUTES, now: at(FIFTEEN_MINUTES + 1) })), 'expired');
    assert.equal(await reason(codec.decode(cursor, BINDING, { maxAgeMs: FIFTEEN_MINUTES, now: at(24 * 3600_000) })), 'expired');
    // still valid up to and including 15 minutes
    assert.equal((await codec.decode(cursor, BINDING, { maxAgeMs: FIFTEEN_MINUTES, now: at(FIFTEEN_MINUTES) })).issuedAt, STATE.issuedAt);
    assert.equal((await codec.decode(cursor, BINDING, { maxAgeMs: FIFTEEN_MINUTES, now: at(0) })).issuedAt, STATE.issuedAt);
    // list cursors (no maxAgeMs) do not expire
    assert.equal((await codec.decode(cursor, BINDING, { now: at(365 * 24 * 3600_000) })).issuedAt, STATE.issuedAt);
  });

  test('decisions/reading: a tampered cursor is invalid_cursor even when expired (signature checked first)', async () => {
    const cursor = await codec.encode(BINDING, STATE);
    const [h, p, s] = cursor.split('.');
    const tampered = `${h}.${p.slice(0, -2)}${p.at(-2) === 'A' ? 'B' : 'A'}${p.at(-1)}.${s}`;
    assert.equal(await reason(codec.decode(tampered, BINDING, { maxAgeMs: 1, now: new Date(STATE.issuedAt + 10 * FIFTEEN_MINUTES) })), 'invalid');
  });

  test('contract 2.1: cursor length at most 2048 — longer input is invalid_cursor without parsing', async () => {
    assert.equal(MAX_CURSOR_LENGTH, 2048);
    const cursor = await codec.encode(BINDING, STATE);
    assert.ok(cursor.length <= MAX_CURSOR_LENGTH);
    assert.equal(await reason(codec.decode(cursor + '.'.repeat(MAX_CURSOR_LENGTH), BINDING)), 'invalid');
    assert.equal(await reason(codec.decode('a'.repeat(MAX_CURSOR_LENGTH + 1), BINDING)), 'invalid');
  });

  test('contract 2.1: encode never returns a cursor longer than 2048', async () => {
    const huge: CursorState = { ...STATE, last: ['x'.repeat(3000)] };
    await assert.rejects(codec.encode(BINDING, huge));
  });

  test('decisions/reading: empty and unsigned cursors are invalid_cursor', async () => {
    const cursor = await codec.encode(BINDING, STATE);
    const [, payload] = cursor.split('.');
    const noneHeader = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const inputs = ['', `${noneHeader}.${payload}.`, `${noneHeader}.${payload}`, payload, cursor.split('.').slice(0, 2).join('.') + '.', `${cursor}.x`];
    for (const input of inputs) assert.equal(await reason(codec.decode(input, BINDING)), 'invalid', input);
  });

  test('decisions/reading: single-character changes are invalid_cursor — every position, every character at segment edges', async () => {
    const cursor = await codec.encode(BINDING, STATE);
    const edges = new Set<number>([0, cursor.length - 1]);
    for (let i = 0; i < cursor.length; i++) if (cursor[i] === '.') [i - 1, i, i + 1].forEach((e) => edges.add(e));
    const accepted: string[] = [];
    for (let i = 0; i < cursor.length; i++) {
      const index = BASE64URL.indexOf(cursor[i]);
      const candidates = edges.has(i) ? (BASE64URL + '.=+/ ').split('') : index < 0 ? ['A'] : [BASE64URL[index ^ 1], BASE64URL[index ^ 32]];
      for (const ch of candidates) {
        if (ch === cursor[i]) continue;
        const tampered = cursor.slice(0, i) + ch + cursor.slice(i + 1);
        try {
          await codec.decode(tampered, BINDING);
          accepted.push(`position ${i} (of ${cursor.length}) ${cursor[i]}->${ch}`);
        } catch (error) {
          assert.ok(error instanceof CursorError && error.reason === 'invalid');
        }
      }
    }
    assert.deepEqual(accepted, []);
  });
});

// ---------- properties ----------

describe('CursorCodec — properties', () => {
  test('decisions/reading: round trip for any binding and state', async () => {
    await fc.assert(
      fc.asyncProperty(bindingArb, stateArb, async (binding, state) => {
        const cursor = await codec.encode(binding, state);
        assert.ok(cursor.length <= MAX_CURSOR_LENGTH);
        const decoded = await codec.decode(cursor, binding);
        assert.deepEqual(
          { watermark: decoded.watermark, last: decoded.last, issuedAt: decoded.issuedAt },
          { watermark: state.watermark, last: state.last, issuedAt: state.issuedAt },
        );
      }),
      { numRuns: 100 },
    );
  });

  test('decisions/reading: any single-character tamper is invalid_cursor (over positions)', async () => {
    await fc.assert(
      fc.asyncProperty(
        bindingArb,
        stateArb,
        // positions anywhere, with the segment edges (first/last character of each segment) always in reach
        fc.oneof(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.constantFrom(0, 1 - Number.EPSILON)),
        // a replacement: flip some of the 6 bits the base64url character carries (low bits weighted), or a separator/padding
        fc.oneof(fc.constantFrom(1, 2, 3), fc.integer({ min: 1, max: 63 }), fc.constantFrom('.', '=')),
        async (binding, state, where, change) => {
          const cursor = await codec.encode(binding, state);
          const i = Math.min(cursor.length - 1, Math.floor(where * cursor.length));
          const original = BASE64URL.indexOf(cursor[i]);
          const replacement = typeof change === 'string' ? change : original < 0 ? 'A' : BASE64URL[original ^ change];
          fc.pre(cursor[i] !== replacement);
          const tampered = cursor.slice(0, i) + replacement + cursor.slice(i + 1);
          assert.equal(await reason(codec.decode(tampered, binding)), 'invalid', `position ${i}: ${cursor[i]} -> ${replacement}`);
        },
      ),
      { numRuns: 150 },
    );
  });

  test('decisions/reading: a cursor decoded with any other binding is invalid_cursor', async () => {
    await fc.assert(
      fc.asyncProperty(bindingArb, bindingArb, stateArb, async (a, b, state) => {
        const same =
          a.workspace === b.workspace &&
          a.route === b.route &&
          JSON.stringify(Object.entries(a.filters).sort()) === JSON.stringify(Object.entries(b.filters).sort());
        fc.pre(!same);
        const cursor = await codec.encode(a, state);
        assert.equal(await reason(codec.decode(cursor, b)), 'invalid');
      }),
      { numRuns: 100 },
    );
  });

  test('decisions/reading: garbage cursors never throw anything but CursorError', async () => {
    const validCursor = await codec.encode(BINDING, STATE);
    const segment = fc.string({ unit: fc.constantFrom(...BASE64URL.split('')), maxLength: 60 });
    const garbage = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'grapheme', maxLength: 50 }),
      fc.tuple(segment, segment, segment).map((parts) => parts.join('.')),
      fc.tuple(segment, segment).map(([p, s]) => `${validCursor.split('.')[0]}.${p}.${s}`),
      fc.json().map((j) => `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(j).toString('base64url')}.${validCursor.split('.')[2]}`),
      fc.string({ maxLength: 10 }).map((s) => validCursor + s),
    );
    await fc.assert(
      fc.asyncProperty(garbage, async (input) => {
        fc.pre(input !== validCursor);
        try {
          await codec.decode(input, BINDING, { maxAgeMs: FIFTEEN_MINUTES, now: new Date(STATE.issuedAt) });
        } catch (error) {
          assert.ok(error instanceof CursorError, `non-CursorError for ${JSON.stringify(input)}: ${String(error)}`);
          return;
        }
        // only the genuine cursor (or a byte-equivalent of it) may be accepted
        assert.ok(input.startsWith(validCursor.slice(0, -1)), `accepted garbage ${JSON.stringify(input)}`);
      }),
      { numRuns: 150 },
    );
  });
});
