/**
 * Web workspace, sign-in and sessions ("People and sign-in",
 * "Security"), through a real server and PostgreSQL: the first-run link,
 * password sign-in, session fixation, CSRF and Origin checks, `?next=`,
 * throttled sign-in with a retry time, password change ending sessions.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { firstRun } from '../../src/use-cases/first-run.js';
import { SIGN_IN_ATTEMPTS_PER_MINUTE_PER_ADDRESS } from '../../src/domain/web-limits.js';
import { accessLinkPath } from '../../src/use-cases/workspace-members.js';
import { SESSION_IDLE_MS } from '../../src/use-cases/sign-in.js';
// Maintenance's prune of idle sessions, run now instead of on its schedule.
import { pruneSessions } from '../../src/store/session-repository.js';
import { type ManualClock } from '../../src/clock.js';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';
import { csrfOf, WebClient, webUser } from '../support/web.js';

describe('web workspace: sign-in and sessions', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  /** A fresh UTC minute: the per-address sign-in counter of earlier tests is behind us. */
  const freshWindow = () => {
    const clock = t.clock as ManualClock;
    clock.set(new Date(Math.floor(clock.now().getTime() / 60_000) * 60_000 + 60_000));
  };

  const sessionRows = async (userId: string) =>
    Number((await sql<{ n: number }>`select count(*)::int as n from web_sessions where user_id = ${userId}`.execute(t.runtime.db)).rows[0].n);

  test('first run: the printed one-time link sets up the first owner, signs them in and works only once', async () => {
    const created = await firstRun(t.runtime.db, t.clock);
    assert.ok(created, 'the store was empty');
    const client = new WebClient(t.baseUrl);
    const linkPath = accessLinkPath(created.signInToken);
    const page = await client.get(linkPath);
    assert.equal(page.status, 200);
    assert.match(page.text, /Set up your account/);
    assert.equal(page.headers.get('referrer-policy'), 'same-origin', 'the token is never sent to another site');
    const posted = await client.post(linkPath, {
      _csrf: csrfOf(page.text),
      name: 'Olivia Owner',
      email: 'Olivia@Example.test',
      password: 'a long enough password',
    });
    assert.equal(posted.status, 303);
    assert.equal(posted.location, '/reports');
    const cookie = posted.headers.getSetCookie().find((c) => c.startsWith('ps_session='))!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    assert.doesNotMatch(cookie, /Secure/i, 'not Secure over http');
    const list = await client.get('/reports');
    assert.equal(list.status, 200);
    assert.match(list.text, /Olivia Owner/);
    assert.match(list.text, /Default/);

    const again = await new WebClient(t.baseUrl).get(linkPath);
    assert.equal(again.status, 404, 'the link works once');
    // The owner signs in with the email (case-insensitive) and password chosen.
    const other = new WebClient(t.baseUrl);
    const signedIn = await other.signIn('olivia@example.test', 'a long enough password');
    assert.equal(signedIn.status, 303);
  });

  test('pages need a session: signed out, a page redirects to sign-in with next', async () => {
    const res = await new WebClient(t.baseUrl).get('/account?changed=1');
    assert.equal(res.status, 303);
    assert.equal(res.location, `/sign-in?next=${encodeURIComponent('/account?changed=1')}`);
  });

  test('wrong password: 401 on the form, no session', async () => {
    freshWindow();
    const { workspaceId } = await t.tenant();
    const user = await webUser(t, workspaceId);
    const client = new WebClient(t.baseUrl);
    const res = await client.signIn(user.email, 'not the password');
    assert.equal(res.status, 401);
    assert.match(res.text, /do not match an account/);
    assert.ok(!client.cookies.has('ps_session'));
    const unknown = await client.signIn('nobody@example.test', 'whatever it is');
    assert.equal(unknown.status, 401, 'an unknown email gets the same answer');
    assert.match(unknown.text, /do not match an account/);
  });

  test('session fixation: the session id changes at sign-in; a planted cookie never becomes a session', async () => {
    freshWindow();
    const { workspaceId } = await t.tenant();
    const user = await webUser(t, workspaceId);
    const client = new WebClient(t.baseUrl);
    const planted = 'A'.repeat(43);
    client.cookies.set('ps_session', planted);
    const res = await client.signIn(user.email, user.password);
    assert.equal(res.status, 303);
    const issued = client.cookies.get('ps_session')!;
    assert.notEqual(issued, planted);
    assert.match(issued, /^[A-Za-z0-9_-]{43}$/);
    const attacker = new WebClient(t.baseUrl);
    attacker.cookies.set('ps_session', planted);
    assert.equal((await attacker.get('/reports')).status, 303, 'the planted id is not signed in');

    // Signing in again from a signed-in browser replaces its session too.
    const before = client.cookies.get('ps_session')!;
    const token = csrfOf((await client.get('/account')).text);
    assert.equal((await client.post('/sign-in', { _csrf: token, email: user.email, password: user.password })).status, 303);
    assert.notEqual(client.cookies.get('ps_session'), before);
    const old = new WebClient(t.baseUrl);
    old.cookies.set('ps_session', before);
    assert.equal((await old.get('/reports')).status, 303, 'the previous session ended');
  });

  test('?next= after sign-in stays on this site', async () => {
    freshWindow();
    const { workspaceId } = await t.tenant();
    const user = await webUser(t, workspaceId);
    const cases: Array<[string, string]> = [
      ['/settings', '/settings'],
      ['/reports?domain=acme.com', '/reports?domain=acme.com'],
      ['https://evil.example/', '/reports'],
      ['//evil.example/x', '/reports'],
      ['/\\evil.example', '/reports'],
      ['\\\\evil.example', '/reports'],
      ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
      ['javascript:alert(1)', '/reports'],
      ['/\t/evil.example', '/reports'],
    ];
    for (const [next, expected] of cases) {
      const client = new WebClient(t.baseUrl);
      const page = await client.get(`/sign-in?next=${encodeURIComponent(next)}`);
      const res = await client.post('/sign-in', { _csrf: csrfOf(page.text), email: user.email, password: user.password, next });
      assert.equal(res.status, 303, next);
      assert.equal(res.location, expected, `next=${JSON.stringify(next)}`);
      // Already signed in: GET /sign-in?next= redirects the same way.
      const again = await client.get(`/sign-in?next=${encodeURIComponent(next)}`);
      assert.equal(again.location, expected, `signed in, next=${JSON.stringify(next)}`);
    }
  });

  test('CSRF: a form posted without its token, with a forged one or from another origin is refused and changes nothing', async () => {
    freshWindow();
    const { workspaceId } = await t.tenant();
    const user = await webUser(t, workspaceId);
    const account = await user.client.get('/account');
    const token = csrfOf(account.text);
    const change = { current: user.password, next: 'another long password' };

    const missing = await user.client.post('/account/password', change);
    assert.equal(missing.status, 403);
    assert.match(missing.text, /expired or did not come from this site/);
    const forged = await user.client.post('/account/password', { ...change, _csrf: 'forged-token' });
    assert.equal(forged.status, 403);
    const otherOrigin = await user.client.post('/account/password', { ...change, _csrf: token }, { origin: 'https://evil.example' });
    assert.equal(otherOrigin.status, 403);
    assert.match(otherOrigin.text, /another site/);
    const otherReferer = await user.client.post('/account/password', { ...change, _csrf: token }, { origin: '', referer: 'https://evil.example/page' });
    assert.equal(otherReferer.status, 403);
    // A token of another session does not fit this one.
    const other = await webUser(t, workspaceId);
    const otherToken = csrfOf((await other.client.get('/account')).text);
    const crossed = await user.client.post('/account/password', { ...change, _csrf: otherToken }, {});
    assert.equal(crossed.status, 403);

    // Nothing changed: the old password still signs in, the session still works.
    assert.equal((await user.client.get('/account')).status, 200);
    assert.equal((await new WebClient(t.baseUrl).signIn(user.email, user.password)).status, 303);
    // Sign-out without a token does not end the session either.
    assert.equal((await user.client.post('/sign-out', {})).status, 403);
    assert.equal((await user.client.get('/reports')).status, 200);
  });

  test('password change ends every session, and this browser gets a new one', async () => {
    freshWindow();
    const { workspaceId } = await t.tenant();
    const user = await webUser(t, workspaceId);
    const second = new WebClient(t.baseUrl);
    await second.signIn(user.email, user.password);
    assert.equal((await second.get('/reports')).status, 200);
    assert.equal(await sessionRows(user.userId), 2);

    const wrong = await user.client.submit('/account', '/account/password', { current: 'not it at all', next: 'another long password' });
    assert.equal(wrong.status, 422);
    assert.match(wrong.text, /current password is not right/);
    const short = await user.client.submit('/account', '/account/password', { current: user.password, next: 'short' });
    assert.equal(short.status, 422);

    const oldCookie = user.client.cookies.get('ps_session');
    const changed = await user.client.submit('/account', '/account/password', { current: user.password, next: 'another long password' });
    assert.equal(changed.status, 303);
    assert.notEqual(user.client.cookies.get('ps_session'), oldCookie, 'a new session for this browser');
    assert.equal((await user.client.get('/account?changed=1')).status, 200);
    assert.equal((await second.get('/reports')).status, 303, 'the other session ended');
    assert.equal(await sessionRows(user.userId), 1);
    assert.equal((await new WebClient(t.baseUrl).signIn(user.email, user.password)).status, 401);
    assert.equal((await new WebClient(t.baseUrl).signIn(user.email, 'another long password')).status, 303);
  });

  test('sign-out ends the session on the server', async () => {
    const { workspaceId } = await t.tenant();
    const user = await webUser(t, workspaceId);
    const token = user.client.cookies.get('ps_session')!;
    const res = await user.client.submit('/reports', '/sign-out');
    assert.equal(res.status, 303);
    assert.equal(res.location, '/sign-in?signed_out=1');
    const replay = new WebClient(t.baseUrl);
    replay.cookies.set('ps_session', token);
    assert.equal((await replay.get('/reports')).status, 303);
  });

  test('sign-in attempts are limited per client address, with a retry time', async () => {
    freshWindow();
    const { workspaceId } = await t.tenant();
    const user = await webUser(t, workspaceId);
    const client = new WebClient(t.baseUrl);
    let refused = null;
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_MINUTE_PER_ADDRESS + 1; i++) {
      const res = await client.signIn(`guess${i}@example.test`, 'wrong password!');
      if (res.status === 429) {
        refused = res;
        break;
      }
      assert.equal(res.status, 401);
    }
    assert.ok(refused, 'refused within the limit + 1 attempts');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, 'Retry-After in whole seconds');
    assert.match(refused.text, /Too many sign-in attempts\. Try again in \d+ seconds?\./);
    // Even the right password is refused from this address until the window ends.
    assert.equal((await client.signIn(user.email, user.password)).status, 429);
  });

  test('security headers: strict CSP, no framing, nosniff; the report list shows only this workspace', async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    for (const [tenant, name] of [
      [a, 'Alpha report'],
      [b, 'Bravo report'],
    ] as const) {
      const res = await t.request('POST', '/api/v1/reports', {
        key: tenant.secret,
        headers: { 'idempotency-key': `k-${name.replace(' ', '-')}` },
        body: reportBody({ name }),
      });
      assert.equal(res.status, 201);
    }
    const user = await webUser(t, a.workspaceId);
    const page = await user.client.get('/reports');
    assert.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.match(page.text, /Alpha report/);
    assert.doesNotMatch(page.text, /Bravo report/);
    assert.doesNotMatch(page.text, /<script>|style=/, 'no inline script or style');
  });

  test('sessions end after 12 idle hours, and maintenance removes them', async () => {
    const { workspaceId } = await t.tenant();
    const user = await webUser(t, workspaceId);
    assert.equal((await user.client.get('/reports')).status, 200);
    (t.clock as ManualClock).advance(SESSION_IDLE_MS + 60_000);
    assert.equal((await user.client.get('/reports')).status, 303, 'idle too long: sign in again');
    assert.equal(await sessionRows(user.userId), 1);
    assert.ok((await pruneSessions(t.runtime.db, t.clock.now(), new Date(t.clock.now().getTime() - SESSION_IDLE_MS))) >= 1);
    assert.equal(await sessionRows(user.userId), 0);
  });
});
