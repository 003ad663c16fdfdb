/**
 * Observed values in words (src/domain/observed-value.ts): every check's value
 * carries its unit or its meaning.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHECKS } from '../../src/domain/checks/catalog.js';
import { FORMATTED_CHECKS, observedValueText } from '../../src/domain/observed-value.js';

test('every catalog check has a format of its own, and no format names a check that does not exist', () => {
  assert.deepEqual(new Set(FORMATTED_CHECKS), new Set(CHECKS.map((c) => c.key)));
});

test('a count says what it counts, a flag what it means', () => {
  assert.equal(observedValueText('headline.length', 20), '20 characters');
  assert.equal(observedValueText('headline.length', 1), '1 character');
  assert.equal(observedValueText('identity.has_photo', false), 'no photo');
  assert.equal(observedValueText('identity.has_photo', true), 'a profile photo');
  assert.equal(observedValueText('activity.regular_posting', 3), '3 posts in 90 days');
  assert.equal(observedValueText('network.connections', 1500), '1,500 connections');
  assert.equal(observedValueText('experience.descriptions', 50), '50 % of positions described');
  assert.equal(observedValueText('headline.present', 'Engineer at Acme'), '“Engineer at Acme”');
});

test('nothing observed says so, and a value of an unexpected type is shown as it is', () => {
  assert.equal(observedValueText('headline.length', null), 'not observed');
  assert.equal(observedValueText('headline.length', undefined), 'not observed');
  assert.equal(observedValueText('headline.length', 'odd'), 'odd');
  assert.equal(observedValueText('no.such_check', true), 'yes');
});

test('no number is shown bare: every numeric value has words after it', () => {
  for (const check of CHECKS) {
    const text = observedValueText(check.key, 7);
    if (text === '7') continue;
    assert.match(text, /^7(\.0)? \D/, `${check.key}: ${text}`);
  }
});
