/** The typed client's jitter stays inside its documented ranges, even for the largest value Math.random can return. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jittered } from '../../packages/client/src/index.js';

test('jittered(base) is in [base/2, base): never base itself', () => {
  const almostOne = 1 - Number.EPSILON;
  assert.equal(
    jittered(1000, () => 0),
    500,
  );
  assert.ok(jittered(1000, () => almostOne) < 1000);
  assert.ok(jittered(3, () => almostOne) < 3);
});
