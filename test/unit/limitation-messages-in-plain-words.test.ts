/**
 * The summary's limitation messages are in the plain words of the pages
 * (docs/web.md, "Glossary"): no internal term and no hedging where the data
 * is verified, for the API says them and the report page shows them as is.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LIMITATION_MESSAGES } from '../../src/domain/analysis-summary.js';

/** The glossary's forbidden words and the hedges it names. */
const FORBIDDEN = [/cohort/i, /active people/i, /attachment/i, /roll-?up/i, /does not prove/i, /for some work/i, /not visible to this key/i, /\busable\b/i];

test('no limitation message uses an internal term or a hedge the glossary forbids', () => {
  const codes = Object.keys(LIMITATION_MESSAGES);
  assert.ok(codes.includes('incomplete_profile_coverage') && codes.includes('incomplete_activity_coverage') && codes.includes('latest_attempt_failed'));
  for (const [code, message] of Object.entries(LIMITATION_MESSAGES)) {
    for (const word of FORBIDDEN) assert.doesNotMatch(message, word, code);
  }
});
