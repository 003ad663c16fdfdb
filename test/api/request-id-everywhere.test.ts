/**
 * Contract 2.1: every answer carries `X-Request-ID` equal to the body's
 * `request_id`, including the answers the framework gives before any route
 * runs (a malformed percent-encoding, an over-long path segment), parser
 * errors, unknown routes, 405s, oversized bodies, refused keys and
 * successes, and `Cache-Control: no-store`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reportBody, startTestApp, type Response, type TestApp } from '../support/app.js';

function assertRequestId(res: Response, status: number, what: string): void {
  assert.equal(res.status, status, `${what}: ${res.text.slice(0, 200)}`);
  const header = res.headers.get('x-request-id');
  assert.ok(header && /^[0-9a-f-]{36}$/.test(header), `${what}: X-Request-ID ${header}`);
  assert.equal(res.body?.request_id, header, `${what}: the header equals the body's request_id`);
  assert.equal(res.headers.get('cache-control'), 'no-store', what);
}

describe('X-Request-ID on every answer', () => {
  let t: TestApp;
  let secret: string;
  before(async () => {
    t = await startTestApp();
    secret = (await t.tenant()).secret;
  });
  after(async () => t?.close());

  test('a malformed percent-encoding (answered by the router)', async () => {
    assertRequestId(await t.request('GET', '/api/v1/reports/%ZZ/analysis/activity', { key: secret }), 400, 'GET %ZZ');
    assertRequestId(await t.request('POST', '/api/v1/reports/%E0%A4%A/profile-imports', { key: secret, body: {} }), 400, 'POST broken UTF-8');
  });

  test('an over-long path segment (answered by the router)', async () => {
    assertRequestId(await t.request('GET', `/api/v1/reports/${'a'.repeat(500)}`, { key: secret }), 404, 'over-long id');
  });

  test('an unknown route and a known route with another method', async () => {
    assertRequestId(await t.request('GET', '/api/v1/no-such-thing', { key: secret }), 404, 'unknown route');
    assertRequestId(await t.request('DELETE', '/api/v1/reports', { key: secret }), 405, 'DELETE /reports');
  });

  test('a body that is not JSON, of another type, or too large', async () => {
    const post = (rawBody: string, headers: Record<string, string>) =>
      t.request('POST', '/api/v1/reports', { key: secret, rawBody, headers: { 'idempotency-key': `k-${Math.random()}`, ...headers } });
    assertRequestId(await post('{"name":', { 'content-type': 'application/json' }), 400, 'invalid JSON');
    assertRequestId(await post('name=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'form body');
    assertRequestId(await post(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }), { 'content-type': 'application/json' }), 413, 'oversized body');
  });

  test('a refused key, a validation error and a success', async () => {
    assertRequestId(await t.request('GET', '/api/v1/context', { key: 'psk_test_not-a-key' }), 401, 'bad key');
    assertRequestId(await t.request('POST', '/api/v1/reports', { key: secret, headers: { 'idempotency-key': 'v-1' }, body: { name: '' } }), 422, 'validation');
    const created = await t.request('POST', '/api/v1/reports', { key: secret, headers: { 'idempotency-key': 'ok-1' }, body: reportBody() });
    assert.equal(created.status, 201);
    assert.ok(created.headers.get('x-request-id'));
  });
});
