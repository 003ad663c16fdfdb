/**
 * decisions "Writes" — idempotency fingerprint: SHA-256 of the canonical
 * request (method, route, query flags, body with object keys sorted; array
 * order kept). Contract 4.4/4.8/8: Idempotency-Key is 1-128 chars from
 * letters, digits, `.`, `_`, `:`, `-`.
 * decisions "Analysis" — revisions are a hash of visible content: equal
 * content, equal revision.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_TTL_MS, requestFingerprint } from '../../src/domain/fingerprint.js';
import { revisionOf } from '../../src/domain/revision.js';

const BASE = {
  method: 'POST',
  route: '/api/v1/reports/:report_id/profile-imports',
  flags: { validation_only: false },
  body: { profiles: [{ pronet_url: 'https://pronet.example/in/jane', name: 'Jane' }, { pronet_url: 'https://pronet.example/in/bob' }] },
};

/** Rebuilds a JSON value with every object's keys in a shuffled order. */
function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v, i) => shuffleKeys(v, seed + i + 1));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const order = entries.map((e, i) => ({ e, k: Math.sin(seed * 9301 + i * 49297) })).sort((a, b) => a.k - b.k);
    return Object.fromEntries(order.map(({ e: [k, v] }, i) => [k, shuffleKeys(v, seed + i + 7)]));
  }
  return value;
}

/** Independent oracle: JSON with object keys sorted (arrays kept in order). */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(record[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });

describe('requestFingerprint', () => {
  test('decisions/writes: fingerprint is a SHA-256 hex digest and is deterministic', () => {
    const fp = requestFingerprint(BASE);
    assert.match(fp, /^[0-9a-f]{64}$/);
    assert.equal(requestFingerprint(structuredClone(BASE)), fp);
  });

  test('decisions/writes: object key order does not change the fingerprint', () => {
    const reordered = {
      body: { profiles: [{ name: 'Jane', pronet_url: 'https://pronet.example/in/jane' }, { pronet_url: 'https://pronet.example/in/bob' }] },
      flags: { validation_only: false },
      route: BASE.route,
      method: 'POST',
    };
    assert.equal(requestFingerprint(reordered), requestFingerprint(BASE));
  });

  test('decisions/writes: array order changes the fingerprint', () => {
    const swapped = { ...BASE, body: { profiles: [...BASE.body.profiles].reverse() } };
    assert.notEqual(requestFingerprint(swapped), requestFingerprint(BASE));
  });

  test('decisions/writes: method changes the fingerprint', () => {
    assert.notEqual(requestFingerprint({ ...BASE, method: 'PUT' }), requestFingerprint(BASE));
  });

  test('decisions/writes: route changes the fingerprint', () => {
    assert.notEqual(requestFingerprint({ ...BASE, route: '/api/v1/reports' }), requestFingerprint(BASE));
  });

  test('decisions/writes: query flags change the fingerprint', () => {
    assert.notEqual(requestFingerprint({ ...BASE, flags: { validation_only: true } }), requestFingerprint(BASE));
    assert.notEqual(requestFingerprint({ ...BASE, flags: {} }), requestFingerprint(BASE));
  });

  test('decisions/writes: body content changes the fingerprint', () => {
    const changed = { ...BASE, body: { profiles: [{ ...BASE.body.profiles[0], name: 'Janet' }, BASE.body.profiles[1]] } };
    assert.notEqual(requestFingerprint(changed), requestFingerprint(BASE));
  });

  test('decisions/writes: key order never changes the fingerprint (property)', () => {
    fc.assert(
      fc.property(jsonValue, fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.boolean(), fc.string({ maxLength: 5 }))), fc.nat(), (body, flags, seed) => {
        const a = requestFingerprint({ method: 'POST', route: '/r', flags, body });
        const b = requestFingerprint({
          method: 'POST',
          route: '/r',
          flags: shuffleKeys(flags, seed) as Record<string, unknown>,
          body: shuffleKeys(body, seed + 1),
        });
        assert.equal(a, b);
      }),
      { numRuns: 200 },
    );
  });

  test('decisions/writes: array order is kept in the fingerprint (property)', () => {
    fc.assert(
      fc.property(fc.array(jsonValue, { minLength: 2, maxLength: 6 }), (items) => {
        const reversed = [...items].reverse();
        fc.pre(sortedJson(reversed) !== sortedJson(items));
        assert.notEqual(
          requestFingerprint({ method: 'POST', route: '/r', flags: {}, body: { profiles: items } }),
          requestFingerprint({ method: 'POST', route: '/r', flags: {}, body: { profiles: reversed } }),
        );
      }),
      { numRuns: 200 },
    );
  });

  test('decisions/writes: idempotency records live 30 days', () => {
    assert.equal(IDEMPOTENCY_TTL_MS, 30 * 24 * 60 * 60 * 1000);
  });
});

describe('IDEMPOTENCY_KEY_PATTERN', () => {
  const allowed = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-';

  test('contract 4.4/8: Idempotency-Key accepts 1-128 of [A-Za-z0-9._:-]', () => {
    for (const key of [
      'a',
      'Z',
      '0',
      '.',
      '_',
      ':',
      '-',
      'create-report:2026-11-01T12:00:00.000Z',
      'a'.repeat(128),
      allowed,
      '550e8400-e29b-41d4-a716-446655440000',
    ]) {
      assert.ok(IDEMPOTENCY_KEY_PATTERN.test(key), key);
    }
  });

  test('contract 4.4/8: Idempotency-Key rejects empty, 129 chars, space, slash, unicode and others', () => {
    for (const key of [
      '',
      'a'.repeat(129),
      'a b',
      ' a',
      'a ',
      'a/b',
      'a\\b',
      'é',
      'keyé',
      'ключ',
      '🔑',
      'a\n',
      '\na',
      'a\tb',
      'a+b',
      'a=b',
      'a,b',
      'a;b',
      'a@b',
      'a#b',
      'a%20b',
      '"a"',
    ]) {
      assert.ok(!IDEMPOTENCY_KEY_PATTERN.test(key), JSON.stringify(key));
    }
  });

  test('contract 4.4/8: Idempotency-Key pattern matches exactly the allowed alphabet and lengths (property)', () => {
    const validKey = fc.string({ unit: fc.constantFrom(...allowed.split('')), minLength: 1, maxLength: 128 });
    fc.assert(
      fc.property(validKey, (key) => {
        assert.ok(IDEMPOTENCY_KEY_PATTERN.test(key));
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 140 }), (key) => {
        const expected = key.length >= 1 && key.length <= 128 && [...key].every((c) => allowed.includes(c));
        assert.equal(IDEMPOTENCY_KEY_PATTERN.test(key), expected, JSON.stringify(key));
      }),
    );
    fc.assert(
      fc.property(validKey, fc.nat(), fc.constantFrom(' ', '/', 'é', '\n', '+', '\u0000'), (key, at, bad) => {
        const i = at % (key.length + 1);
        const broken = key.slice(0, i) + bad + key.slice(i);
        assert.ok(!IDEMPOTENCY_KEY_PATTERN.test(broken), JSON.stringify(broken));
      }),
    );
  });
});

describe('revisionOf', () => {
  test('decisions/analysis: equal content has an equal revision regardless of key order', () => {
    const a = { id: 'p1', findings: [{ check: 'photo', outcome: 'good' }], name: 'Jane' };
    const b = { name: 'Jane', findings: [{ outcome: 'good', check: 'photo' }], id: 'p1' };
    assert.equal(revisionOf(a), revisionOf(b));
    assert.match(revisionOf(a), /^[A-Za-z0-9_-]{32}$/);
  });

  test('decisions/analysis: changed content changes the revision', () => {
    const a = { id: 'p1', findings: [{ check: 'photo', outcome: 'good' }] };
    assert.notEqual(revisionOf(a), revisionOf({ ...a, findings: [{ check: 'photo', outcome: 'optimize' }] }));
    assert.notEqual(revisionOf([1, 2]), revisionOf([2, 1]));
  });

  test('decisions/analysis: revision is equal for equal content regardless of key order (property)', () => {
    fc.assert(
      fc.property(jsonValue, fc.nat(), (value, seed) => {
        assert.equal(revisionOf(shuffleKeys(value, seed)), revisionOf(value));
        assert.equal(revisionOf(structuredClone(value)), revisionOf(value));
      }),
      { numRuns: 200 },
    );
  });
});
