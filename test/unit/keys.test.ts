/**
 * Contract section 5 and decisions "Keys": secrets are `psk_test_<32 base62>`
 * or `psk_live_<32 base62>`; only a SHA-256 hash is stored; scopes are `*`
 * (all permissions, including analysis:read and imports:read) or named
 * scopes; the required scopes of an endpoint are a conjunction.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { SCOPES, generateSecret, hashSecret, isScope, missingScopes, parseScopes, secretMode, type Scope } from '../../src/domain/keys.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62Body = fc.string({ unit: fc.constantFrom(...BASE62.split('')), minLength: 32, maxLength: 32 });

describe('secrets', () => {
  test('decisions/keys: generated secrets are psk_test_/psk_live_ + 32 base62', () => {
    for (let i = 0; i < 50; i++) {
      assert.match(generateSecret('test'), /^psk_test_[0-9A-Za-z]{32}$/);
      assert.match(generateSecret('live'), /^psk_live_[0-9A-Za-z]{32}$/);
    }
  });

  test('decisions/keys: generated secrets are distinct', () => {
    const secrets = new Set(Array.from({ length: 200 }, () => generateSecret('live')));
    assert.equal(secrets.size, 200);
  });

  test('contract 5.1: secretMode tells test and live keys apart by prefix', () => {
    assert.equal(secretMode(generateSecret('test')), 'test');
    assert.equal(secretMode(generateSecret('live')), 'live');
    assert.equal(secretMode(`psk_test_${'a'.repeat(32)}`), 'test');
    assert.equal(secretMode(`psk_live_${'Z9'.repeat(16)}`), 'live');
  });

  test('decisions/keys: malformed secrets have no mode', () => {
    const body = 'aB3'.repeat(10) + 'xy';
    assert.equal(body.length, 32);
    for (const bad of [
      '',
      `psk_test_${body.slice(1)}`, // 31
      `psk_test_${body}x`, // 33
      `psk_prod_${body}`,
      `PSK_TEST_${body}`,
      `psk_Test_${body}`,
      `sk_test_${body}`,
      `psk_test_${body.slice(1)}-`,
      `psk_test_${body.slice(1)}_`,
      `psk_test_${body.slice(1)}é`,
      ` psk_test_${body}`,
      `psk_test_${body}\n`,
      `Bearer psk_test_${body}`,
    ]) {
      assert.equal(secretMode(bad), null, JSON.stringify(bad));
    }
  });

  test('decisions/keys: secretMode accepts exactly prefix + 32 base62 (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom('test', 'live'), base62Body, (mode, body) => {
        assert.equal(secretMode(`psk_${mode}_${body}`), mode);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 50 }), (text) => {
        const mode = secretMode(text);
        assert.equal(mode !== null, /^psk_(test|live)_[0-9A-Za-z]{32}$/.test(text));
      }),
    );
  });

  test('decisions/keys: hashSecret is SHA-256 (32 bytes) of the secret', () => {
    const secret = `psk_test_${'a'.repeat(32)}`;
    const hash = hashSecret(secret);
    assert.equal(hash.length, 32);
    assert.deepEqual(hash, createHash('sha256').update(secret, 'utf8').digest());
    assert.equal(hashSecret('abc').toString('hex'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  test('decisions/keys: hashSecret differs per secret and is stable (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom('test', 'live'), base62Body, base62Body, (mode, a, b) => {
        fc.pre(a !== b);
        const ha = hashSecret(`psk_${mode}_${a}`);
        assert.equal(ha.length, 32);
        assert.deepEqual(hashSecret(`psk_${mode}_${a}`), ha);
        assert.notDeepEqual(hashSecret(`psk_${mode}_${b}`), ha);
      }),
    );
  });
});

describe('scopes', () => {
  test('contract 5.3: the known scopes are *, the five named ones, analysis:read and imports:read', () => {
    assert.deepEqual([...SCOPES].sort(), [
      '*',
      'analysis:read',
      'imports:read',
      'profiles:add',
      'profiles:read',
      'reports:create',
      'reports:read',
      'workspace:read',
    ]);
    for (const s of SCOPES) assert.ok(isScope(s));
    assert.ok(!isScope('reports:write'));
    assert.ok(!isScope('REPORTS:READ'));
  });

  test('decisions/keys: parseScopes sorts and de-duplicates', () => {
    assert.deepEqual(parseScopes('reports:read,profiles:read, reports:read ,workspace:read'), ['profiles:read', 'reports:read', 'workspace:read']);
    assert.deepEqual(parseScopes('*'), ['*']);
    assert.deepEqual(parseScopes('reports:read,,reports:read,'), ['reports:read']);
  });

  test('decisions/keys: parseScopes rejects unknown and empty scope lists', () => {
    assert.throws(() => parseScopes('reports:read,reports:write'), /unknown scope/);
    assert.throws(() => parseScopes('admin'), /unknown scope/);
    assert.throws(() => parseScopes('Reports:Read'), /unknown scope/);
    assert.throws(() => parseScopes(''));
    assert.throws(() => parseScopes(' , ,'));
  });

  test('decisions/keys: parseScopes output is sorted, unique and order-independent (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...SCOPES), { minLength: 1, maxLength: 12 }), (list) => {
        const parsed = parseScopes(list.join(','));
        assert.deepEqual(parsed, [...new Set(list)].sort());
        assert.deepEqual(parseScopes([...list].reverse().join(' , ')), parsed);
      }),
    );
  });

  test('contract 4: required scopes are a conjunction — every missing one is reported', () => {
    assert.deepEqual(missingScopes(['reports:read'], ['reports:read', 'analysis:read', 'profiles:read']), ['analysis:read', 'profiles:read']);
    assert.deepEqual(missingScopes(['reports:read', 'profiles:add'], ['reports:read', 'profiles:add']), []);
    assert.deepEqual(missingScopes([], ['workspace:read']), ['workspace:read']);
    assert.deepEqual(missingScopes(['reports:read'], []), []);
  });

  test('contract 5.3: * grants every scope, including analysis:read and imports:read', () => {
    assert.deepEqual(missingScopes(['*'], ['analysis:read']), []);
    assert.deepEqual(missingScopes(['*'], ['imports:read']), []);
    assert.deepEqual(
      missingScopes(
        ['*'],
        SCOPES.filter((s) => s !== '*'),
      ),
      [],
    );
  });

  test('contract 5.3: explicitly restricted keys need analysis:read / imports:read', () => {
    const restricted: Scope[] = ['workspace:read', 'reports:read', 'profiles:read', 'reports:create', 'profiles:add'];
    assert.deepEqual(missingScopes(restricted, ['reports:read', 'analysis:read']), ['analysis:read']);
    assert.deepEqual(missingScopes(restricted, ['imports:read']), ['imports:read']);
  });

  test('contract 4: missingScopes is exactly required minus granted (property)', () => {
    const named = SCOPES.filter((s) => s !== '*');
    fc.assert(
      fc.property(fc.subarray([...SCOPES]), fc.subarray(named), (granted, required) => {
        const missing = missingScopes(granted, required);
        if (granted.includes('*')) assert.deepEqual(missing, []);
        else
          assert.deepEqual(
            missing,
            required.filter((s) => !granted.includes(s)),
          );
        assert.equal(missing.length === 0, granted.includes('*') || required.every((s) => granted.includes(s)));
      }),
    );
  });
});
