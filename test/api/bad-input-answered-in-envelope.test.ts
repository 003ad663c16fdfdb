/**
 * Section 7: bad input gets the contract's error envelope, never a 500 or a
 * framework's own shape. Errors the router raises before a route runs (bad
 * percent-encoding), and text PostgreSQL cannot store (NUL, lone surrogates),
 * are answered like any other invalid request; a property test sends
 * arbitrary strings in every text field of the two write bodies.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { reportBody, startTestApp, type Response, type TestApp } from '../support/app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function assertEnvelope(res: Response, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body?.error?.code, code, res.text);
  assert.match(res.body.request_id, UUID);
  assert.equal(res.headers.get('content-type')?.split(';')[0], 'application/json');
}

/** A valid URL path segment that stands for any string (the free-text fields carry the raw string). */
const hex = (text: string) => Buffer.from(text, 'utf16le').toString('hex');

/** Any UTF-16 code units, NUL and unpaired surrogate halves included. */
const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), minLength: 0, maxLength: 40 });

describe('bad input never breaks the envelope', () => {
  let t: TestApp;
  let secret: string;
  let reportId: string;
  before(async () => {
    t = await startTestApp();
    secret = (await t.tenant()).secret;
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'bad-input-base' },
      body: reportBody(),
    });
    assert.equal(res.status, 201, res.text);
    reportId = res.body.data.report.id;
  });
  after(async () => t.close());

  test('7: a malformed percent-encoding in the path → 400 invalid_request in the envelope, with a request id', async () => {
    assertEnvelope(await t.request('GET', '/api/v1/reports/%ZZ/analysis/activity', { key: secret }), 400, 'invalid_request');
    const post = await t.request('POST', '/api/v1/reports/%ZZ/profile-imports', {
      key: secret,
      headers: { 'idempotency-key': 'bad-url-1' },
      body: { profiles: [{ pronet_url: 'https://pronet.example/in/a' }] },
    });
    assertEnvelope(post, 400, 'invalid_request');
    assert.ok(!post.text.includes('%ZZ'), 'the path is not echoed');
  });

  test('7: an overlong path parameter → 404 not_found in the envelope', async () => {
    assertEnvelope(await t.request('GET', `/api/v1/reports/${'a'.repeat(500)}`, { key: secret }), 404, 'not_found');
  });

  test('2.8: a NUL character in company.name is refused at validation, naming the field and echoing nothing', async () => {
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'nul-company' },
      body: reportBody({
        company: { name: 'Ac\u0000me secret-value', domain: 'acme.com', pronet_company_url: 'https://pronet.example/company/acme' },
      }),
    });
    assert.ok(res.status === 400 || res.status === 422, res.text);
    assert.ok(
      res.body.error.details.some((d: { field: string }) => d.field === 'company.name'),
      res.text,
    );
    assert.ok(!res.text.includes('secret-value'));
  });

  test("2.8: a lone surrogate in a person's name in an import is refused at validation with its row number", async () => {
    const res = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
      key: secret,
      headers: { 'idempotency-key': 'surrogate-import' },
      body: {
        profiles: [{ pronet_url: 'https://pronet.example/in/ok-one' }, { pronet_url: 'https://pronet.example/in/bad-two', name: 'Ann \ud800' }],
      },
    });
    assert.ok(res.status === 400 || res.status === 422, res.text);
    assert.ok(
      res.body.error.details.some((d: { row_number?: number; field: string }) => d.row_number === 2 && d.field === 'name'),
      res.text,
    );
  });

  test('property: arbitrary strings in every text field of POST /reports never give a 5xx or a foreign shape', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(anyText, anyText, anyText, anyText, anyText, anyText, anyText, async (reportName, company, domain, url, name, title, headline) => {
        const res = await t.request('POST', '/api/v1/reports', {
          key: secret,
          headers: { 'idempotency-key': `prop-create-${n++}` },
          body: {
            name: reportName,
            company: { name: company, domain, pronet_company_url: `https://pronet.example/company/c${hex(company)}` },
            profiles: [{ pronet_url: `https://pronet.example/in/p${hex(url)}`, name, title, headline }],
          },
        });
        assert.ok(res.status < 500, `${res.status}: ${res.text}`);
        assert.ok(res.body && (res.body.data || res.body.error) && UUID.test(res.body.request_id), res.text);
      }),
      { numRuns: 120 },
    );
  });

  test('property: arbitrary strings in every text field of an import never give a 5xx or a foreign shape', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(anyText, anyText, anyText, anyText, async (url, name, title, headline) => {
        const res = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
          key: secret,
          headers: { 'idempotency-key': `prop-import-${n++}` },
          body: { profiles: [{ pronet_url: `https://pronet.example/in/i${hex(url)}`, name, title, headline }] },
        });
        assert.ok(res.status < 500, `${res.status}: ${res.text}`);
        assert.ok(res.body && (res.body.data || res.body.error) && UUID.test(res.body.request_id), res.text);
      }),
      { numRuns: 120 },
    );
  });
});
