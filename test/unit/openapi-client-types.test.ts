/**
 * packages/client/src/openapi-types.ts is what openapi-typescript generates from the
 * current OpenAPI document: a route or schema change without
 * `npm run gen:client-types` fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CLIENT_TYPES_PATH, generateClientTypes } from '../../scripts/gen-client-types.js';

test('the committed client types equal the types generated from the served OpenAPI document (run npm run gen:client-types)', async () => {
  const generated = await generateClientTypes();
  assert.ok(generated.includes('export interface operations'), 'generated from the operations');
  for (const id of ['getContext', 'listReports', 'createReport', 'createProfileImport', 'listAnalysisProfiles', 'listAnalysisActivity', 'downloadEvidence']) {
    assert.ok(generated.includes(`    ${id}: {`), id);
  }
  const committed = readFileSync(CLIENT_TYPES_PATH, 'utf8');
  assert.ok(committed === generated, 'packages/client/src/openapi-types.ts is stale: run `npm run gen:client-types` and commit the result');
});
