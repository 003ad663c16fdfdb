/**
 * The served OpenAPI document passes Spectral's OpenAPI rules and OWASP's API
 * Security rules (the repository's ruleset, .spectral.js): no error, no
 * warning, no hint. Linted as a deployment serves it (GET /api/v1/openapi.json
 * on a real server, PUBLIC_BASE_URL an https address). A rule switched off in
 * the ruleset carries its reason.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { Document, Spectral, type ISpectralDiagnostic } from '@stoplight/spectral-core';
import Parsers from '@stoplight/spectral-parsers';
import ruleset from '../../.spectral.js';
import { startTestApp, type TestApp } from '../support/app.js';

type Json = any;

async function lint(doc: Json): Promise<ISpectralDiagnostic[]> {
  const spectral = new Spectral();
  spectral.setRuleset(ruleset);
  return spectral.run(new Document(JSON.stringify(doc, null, 2), Parsers.Json, 'openapi.json'));
}

const show = (problems: ISpectralDiagnostic[]) =>
  problems
    .slice(0, 30)
    .map((p) => `${p.code} ${p.path.join('.')}: ${p.message}`)
    .join('\n');

describe('the OpenAPI document under Spectral (spectral:oas, OWASP API Security)', () => {
  let t: TestApp;
  let served: Json;

  before(async () => {
    t = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://profile-scan.acme.test' } });
    const res = await t.request('GET', '/api/v1/openapi.json');
    assert.equal(res.status, 200);
    served = res.body;
  });
  after(async () => {
    await t?.close();
  });

  test('the served document passes every rule of .spectral.js: no error, warning or hint', async () => {
    const problems = await lint(served);
    assert.equal(problems.length, 0, show(problems));
  });

  test('a counted response without RateLimit fails the rate-limit rule (the rule bites)', async () => {
    const doc = structuredClone(served);
    delete doc.paths['/api/v1/reports/{report_id}'].get.responses['404'].headers.RateLimit;
    const problems = await lint(doc);
    assert.deepEqual(
      problems.map((p) => [p.code, p.path.join('/')]),
      [['profile-scan:rate-limit', 'paths//api/v1/reports/{report_id}/get/responses/404/headers']],
    );
  });

  test('what the document says of RateLimit holds: errors of a counted request carry it, a 401 does not', async () => {
    const { secret } = await t.tenant();
    const answers = {
      400: await t.request('GET', '/api/v1/reports?limit=1000', { key: secret }),
      404: await t.request('GET', '/api/v1/reports/00000000-0000-4000-8000-000000000000', { key: secret }),
      422: await t.request('POST', '/api/v1/reports', { key: secret, headers: { 'idempotency-key': 'rl-422' }, body: { name: '' } }),
      401: await t.request('GET', '/api/v1/reports'),
    };
    for (const status of [400, 404, 422] as const) {
      assert.equal(answers[status].status, status);
      assert.match(answers[status].headers.get('ratelimit') ?? '', /^"[a-z-]+";r=[0-9]+;t=[0-9]+$/, `${status}`);
      assert.match(answers[status].headers.get('ratelimit-policy') ?? '', /;q=[0-9]+;w=60/, `${status}`);
    }
    assert.equal(answers[401].status, 401);
    assert.equal(answers[401].headers.get('ratelimit'), null);
  });

  test('a cursor that is not even well-formed is 400 invalid_cursor, like a tampered one', async () => {
    const { secret } = await t.tenant();
    const res = await t.request('GET', '/api/v1/reports?cursor=not%20a%20cursor!', { key: secret });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_cursor');
  });

  test('every rule switched off in .spectral.js says why, in a comment just above it', async () => {
    const lines = (await fs.readFile(new URL('../../.spectral.js', import.meta.url), 'utf8')).split('\n');
    const off = lines.flatMap((line, i) => (/^\s*'[^']+': 'off',$/.test(line) ? [i] : []));
    assert.ok(off.length > 0);
    for (const i of off) assert.match(lines[i - 1], /^\s*\/\/ /, `no reason above: ${lines[i].trim()}`);
  });
});
