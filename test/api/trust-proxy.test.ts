/**
 * TRUST_PROXY (docs/operations.md, "Behind a reverse proxy"): per-address
 * limits use the client `X-Forwarded-For` names only when the request came
 * from a trusted proxy, and then the rightmost address that is not a trusted
 * proxy (what the proxy itself appended), never a value the client wrote.
 * Sign-in attempts are limited per address (10 a minute): the test's socket
 * address is 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { WebClient } from '../support/web.js';

/** 11 failed sign-ins as `forwardedFor`: the 11th is refused by the per-address limit. */
async function exhaust(t: TestApp, forwardedFor: string, email: string): Promise<number[]> {
  const client = new WebClient(t.baseUrl);
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) {
    const page = await client.get('/sign-in', { 'x-forwarded-for': forwardedFor });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
    const res = await client.post('/sign-in', { _csrf: csrf, email, password: 'wrong password', next: '/reports' }, { 'x-forwarded-for': forwardedFor });
    statuses.push(res.status);
  }
  return statuses;
}

async function oneAttempt(t: TestApp, forwardedFor: string, email: string): Promise<number> {
  const client = new WebClient(t.baseUrl);
  const page = await client.get('/sign-in', { 'x-forwarded-for': forwardedFor });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
  return (await client.post('/sign-in', { _csrf: csrf, email, password: 'wrong password', next: '/reports' }, { 'x-forwarded-for': forwardedFor })).status;
}

describe('TRUST_PROXY off (the default)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t?.close());

  test('a spoofed X-Forwarded-For is ignored: the limit keys on the socket address, so another "client" is refused too', async () => {
    const statuses = await exhaust(t, '203.0.113.10', 'a@example.com');
    assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401));
    assert.equal(statuses[10], 429);
    assert.equal(await oneAttempt(t, '198.51.100.20', 'b@example.com'), 429);
  });
});

describe('TRUST_PROXY=127.0.0.1 (the test connects from it, as a proxy would)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: '127.0.0.1' } });
  });
  after(async () => t?.close());

  test('one client locked out does not lock out another behind the same proxy', async () => {
    const statuses = await exhaust(t, '203.0.113.10', 'a@example.com');
    assert.equal(statuses[10], 429);
    assert.equal(await oneAttempt(t, '198.51.100.20', 'b@example.com'), 401);
  });

  test('a client cannot escape its limit by writing its own X-Forwarded-For: the rightmost untrusted address counts', async () => {
    await exhaust(t, '203.0.113.30', 'c@example.com');
    // The client sent "X-Forwarded-For: 192.0.2.99"; the proxy appended the client's real address.
    assert.equal(await oneAttempt(t, '192.0.2.99, 203.0.113.30', 'd@example.com'), 429);
  });
});

describe('TRUST_PROXY settings', () => {
  test('addresses, CIDR ranges and the named ranges are accepted; anything else stops the start naming the setting', () => {
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,::1,loopback' }).trustProxy, ['10.0.0.1', '192.168.0.0/16', '::1', 'loopback']);
    assert.equal(loadConfig({}).trustProxy, null);
    for (const bad of ['proxy.example', '10.0.0.0/33', '*', '10.0.0.1;rm']) assert.throws(() => loadConfig({ TRUST_PROXY: bad }), /TRUST_PROXY must be/);
  });
});
