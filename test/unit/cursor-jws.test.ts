/**
 * Cursors are signed with node:crypto (src/domain/cursor.ts) but must stay
 * the compact JWS that jose writes and verifies: the same bytes as jose's
 * CompactSign for { alg: 'HS256' }, for any payload.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CompactSign } from 'jose';
import { CursorCodec } from '../../src/domain/cursor.js';

test('an encoded cursor is byte for byte the token jose signs for its payload, and decodes', async () => {
  const codec = new CursorCodec('a cursor secret');
  const key = new Uint8Array(createHash('sha256').update('cursor:a cursor secret').digest());
  const binding = { workspace: 'w', route: 'GET /reports/{report_id}/analysis/profiles', filters: { report_id: 'r', limit: 25, q: 'é … "x"' } };
  for (const state of [
    { watermark: '', last: ['00000000-0000-0000-0000-000000000001'], issuedAt: 1, extra: { revision: 'rév' } },
    { watermark: '2026-01-31T00:00:00.000Z', last: [42, 'ü\u2028'], issuedAt: Date.now() },
  ]) {
    const token = await codec.encode(binding, state);
    const payload = Buffer.from(token.split('.')[1], 'base64url');
    const jose = await new CompactSign(payload).setProtectedHeader({ alg: 'HS256' }).sign(key);
    assert.equal(token, jose);
    assert.deepEqual(await codec.decode(token, binding), { ...state, extra: state.extra ?? undefined });
  }
});
