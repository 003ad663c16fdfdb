/**
 * Web workspace settings and their security: keys issued in the
 * settings by owners and admins (5.1), the secret shown once, last use,
 * revocation effective on the next request; members invited by one-time
 * link, roles changed, removed; API access and limits; a member cannot reach
 * any settings action, and nothing of another workspace can be touched.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { redeemLink } from '../../src/use-cases/sign-in.js';
import { createSignInLink, firstOwner } from '../../src/use-cases/workspace-members.js';
import { eventually, startTestApp, type TestApp } from '../support/app.js';
import { csrfOf, WebClient, webUser, type WebUser } from '../support/web.js';

describe('web workspace: settings', () => {
  let t: TestApp;
  let workspaceId: string;
  let owner: WebUser;
  let member: WebUser;

  before(async () => {
    t = await startTestApp();
    workspaceId = (await t.tenant({ name: 'Settings workspace' })).workspaceId;
    owner = await webUser(t, workspaceId, 'owner', 'Olga Owner');
    member = await webUser(t, workspaceId, 'member', 'Mel Member');
  });
  after(async () => t.close());

  const keyCount = async () =>
    Number((await sql<{ n: number }>`select count(*)::int as n from api_keys where workspace_id = ${workspaceId}`.execute(t.runtime.db)).rows[0].n);

  async function createKey(client: WebClient, scopes: string[], mode = 'test') {
    const page = await client.submit('/settings', '/settings/keys', { mode, scopes });
    assert.equal(page.status, 200, page.text.slice(0, 300));
    const secret = /id="new-secret" class="secret" readonly="" value="([^"]+)"|id="new-secret"[^>]*value="([^"]+)"/.exec(page.text);
    return { page, secret: secret?.[1] ?? secret?.[2] };
  }

  test('5.1: an owner creates a key in the settings; the secret is shown once and works against the API as that user', async () => {
    const { page, secret } = await createKey(owner.client, ['*']);
    assert.match(secret ?? '', /^psk_test_[0-9A-Za-z]{32}$/);
    assert.match(page.text, /shown only this once/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    const context = await t.request('GET', '/api/v1/context', { key: secret });
    assert.equal(context.status, 200);
    assert.equal(context.body.data.user_id, owner.userId, '5.2: the key belongs to the user who created it');
    assert.equal(context.body.data.workspace_id, workspaceId);
    // The list never shows the secret again, and shows the last use.
    const list = await owner.client.get('/settings');
    assert.ok(!list.text.includes(secret!), 'the secret is not shown again');
    await eventually(
      async () => !/never<\/span>/.test((await owner.client.get('/settings')).text.split(secret!.slice(0, 13))[1]?.split('</tr>')[0] ?? 'never</span>'),
    );
  });

  test('scopes and kind are honoured; revoking a key refuses its next request', async () => {
    const { secret } = await createKey(owner.client, ['reports:read', 'workspace:read'], 'live');
    assert.match(secret ?? '', /^psk_live_/);
    assert.equal((await t.request('GET', '/api/v1/reports', { key: secret })).status, 200);
    const denied = await t.request('POST', '/api/v1/reports', { key: secret, headers: { 'idempotency-key': 'x1' }, body: {} });
    assert.equal(denied.status, 403);
    const keyId = (await t.request('GET', '/api/v1/context', { key: secret })).body.data.key_id;
    const revoke = await owner.client.confirm('/settings', `/settings/keys/${keyId}/revoke`);
    assert.equal(revoke.status, 303);
    assert.equal(revoke.location, '/settings?done=key_revoked');
    const after = await t.request('GET', '/api/v1/context', { key: secret });
    assert.equal(after.status, 401, '5.6: revocation denies the next request');
    assert.match((await owner.client.get('/settings')).text, /Revoked/);
  });

  test('no scope chosen: the form says so and nothing is created', async () => {
    const before = await keyCount();
    const page = await owner.client.submit('/settings', '/settings/keys', { mode: 'test' });
    assert.equal(page.status, 422);
    assert.match(page.text, /Choose at least one scope/);
    assert.equal(await keyCount(), before);
  });

  test('security: a member sees settings read-only and every settings action is refused, changing nothing', async () => {
    const page = await member.client.get('/settings');
    assert.equal(page.status, 200);
    assert.match(page.text, /You see them read-only/);
    assert.doesNotMatch(page.text, /Create key|Create invitation link|Save workspace settings|Change role/);
    const keysBefore = await keyCount();
    const token = csrfOf(page.text);
    const ownerKey = (await createKey(owner.client, ['*'])).secret!;
    const ownerKeyId = (await t.request('GET', '/api/v1/context', { key: ownerKey })).body.data.key_id;
    const attempts: Array<[string, Record<string, string | string[]>]> = [
      ['/settings/keys', { mode: 'test', scopes: ['*'] }],
      [`/settings/keys/${ownerKeyId}/revoke`, {}],
      ['/settings/invitations', { role: 'admin' }],
      [`/settings/members/${member.userId}/role`, { role: 'owner' }],
      [`/settings/members/${owner.userId}/remove`, {}],
      ['/settings/workspace', { api_access: '' }],
    ];
    for (const [path, fields] of attempts) {
      const res = await member.client.post(path, { _csrf: token, ...fields });
      assert.equal(res.status, 403, path);
      assert.match(res.text, /Only owners and admins/);
    }
    assert.equal(await keyCount(), keysBefore + 1, "only the owner's key was added");
    assert.equal((await t.request('GET', '/api/v1/context', { key: ownerKey })).status, 200, "the owner's key still works");
    const roles = await sql<{ role: string }>`select role from users where id = ${member.userId}`.execute(t.runtime.db);
    assert.equal(roles.rows[0].role, 'member');
    const access = await sql<{ api_access: boolean }>`select api_access from workspaces where id = ${workspaceId}`.execute(t.runtime.db);
    assert.equal(access.rows[0].api_access, true);
    assert.equal((await t.request('GET', '/api/v1/context', { key: ownerKey })).status, 200);
  });

  test('invitation: an owner creates a one-time link; the invitee joins with the role, signs in, and the link is spent', async () => {
    const created = await owner.client.submit('/settings', '/settings/invitations', { role: 'admin', label: 'Ann from marketing' });
    assert.equal(created.status, 200);
    const url = /id="new-invitation"[^>]*value="([^"]+)"/.exec(created.text)?.[1];
    assert.ok(url, 'the link is shown once');
    assert.match(created.text, /Ann from marketing/);
    const path = new URL(url).pathname;
    const ann = new WebClient(t.baseUrl);
    const form = await ann.get(path);
    assert.match(form.text, /Join Settings workspace/);
    const weak = await ann.post(path, { _csrf: csrfOf(form.text), name: 'Ann', email: 'ann@example.test', password: 'short' });
    assert.equal(weak.status, 422);
    assert.match(weak.text, /at least 10 characters/);
    const taken = await ann.post(path, { _csrf: csrfOf(form.text), name: 'Ann', email: owner.email, password: 'long enough password' });
    assert.equal(taken.status, 422);
    assert.match(taken.text, /already belongs to an account/);
    const joined = await ann.post(path, {
      _csrf: csrfOf(form.text),
      name: 'Ann Admin',
      email: 'ann@example.test',
      password: 'long enough password',
    });
    assert.equal(joined.status, 303);
    const settings = await ann.get('/settings');
    assert.match(settings.text, /Create key/, 'an admin manages keys');
    assert.match((await owner.client.get('/settings')).text, /Ann Admin/);
    assert.equal((await new WebClient(t.baseUrl).get(path)).status, 404, 'spent');

    // An admin cannot invite an owner nor change an owner.
    const annToken = csrfOf(settings.text);
    assert.equal((await ann.post('/settings/invitations', { _csrf: annToken, role: 'owner' })).status, 403);
    assert.equal((await ann.post(`/settings/members/${owner.userId}/role`, { _csrf: annToken, role: 'member' })).status, 403);
    assert.equal((await ann.post(`/settings/members/${owner.userId}/remove`, { _csrf: annToken })).status, 403);
  });

  test('a revoked invitation cannot be used', async () => {
    const created = await owner.client.submit('/settings', '/settings/invitations', { role: 'member', label: 'Revoke me' });
    const path = new URL(/id="new-invitation"[^>]*value="([^"]+)"/.exec(created.text)![1]).pathname;
    const id = /action="\/settings\/invitations\/([0-9a-f-]+)\/revoke"/.exec(created.text)![1];
    assert.equal((await owner.client.submit('/settings', `/settings/invitations/${id}/revoke`)).status, 303);
    assert.equal((await new WebClient(t.baseUrl).get(path)).status, 404);
  });

  test('roles: the last owner cannot be demoted; removing a member ends their sessions and revokes their keys', async () => {
    // A workspace whose only owner is the one createWorkspace made (as on first start).
    const solo = await t.tenant({ name: 'Solo' });
    const ctx = { db: t.runtime.db, clock: t.clock };
    const first = (await firstOwner(ctx, solo.workspaceId))!;
    const link = (await createSignInLink(ctx, first.id))!;
    const only = new WebClient(t.baseUrl);
    only.cookies.set(
      'ps_session',
      await redeemLink(ctx, link.token, { name: 'Only Owner', email: 'only.owner@example.test', password: 'long enough password' }),
    );
    const demote = await only.submit('/settings', `/settings/members/${first.id}/role`, { role: 'admin' });
    assert.equal(demote.status, 422);
    assert.match(demote.text, /at least one owner/);
    const leave = await only.confirm('/settings', `/settings/members/${first.id}/remove`);
    assert.equal(leave.status, 422);
    assert.match(leave.text, /last owner cannot be removed/);

    const bob = await webUser(t, workspaceId, 'member', 'Bob Leaving');
    const promote = await owner.client.submit('/settings', `/settings/members/${bob.userId}/role`, { role: 'admin' });
    assert.equal(promote.status, 303);
    const bobKey = (await createKey(bob.client, ['*'])).secret!;
    assert.equal((await t.request('GET', '/api/v1/context', { key: bobKey })).status, 200);
    const removed = await owner.client.confirm('/settings', `/settings/members/${bob.userId}/remove`);
    assert.equal(removed.status, 303);
    assert.equal((await bob.client.get('/reports')).status, 303, 'their session ended');
    assert.equal((await t.request('GET', '/api/v1/context', { key: bobKey })).status, 401, 'their keys were revoked');
    assert.equal((await new WebClient(t.baseUrl).signIn(bob.email, bob.password)).status, 401);
    const members = (await owner.client.get('/settings')).text.split('id="members-heading"')[1];
    assert.doesNotMatch(members, /Bob Leaving/, 'gone from the members (their revoked key still names them)');
  });

  test('workspace: API access off refuses the API; write limits show in /context', async () => {
    const key = (await createKey(owner.client, ['*'])).secret!;
    const saved = await owner.client.submit('/settings', '/settings/workspace', {
      writes_per_minute_per_key: '7',
      writes_per_minute_per_workspace: '',
      submitted_profiles_per_minute_per_workspace: '500',
      api_access: '1',
    });
    assert.equal(saved.status, 303);
    const context = await t.request('GET', '/api/v1/context', { key });
    assert.equal(context.body.data.limits.writes_per_minute_per_key, 7);
    assert.equal(context.body.data.limits.writes_per_minute_per_workspace, 50);
    assert.equal(context.body.data.limits.submitted_profiles_per_minute_per_workspace, 500);
    const bad = await owner.client.submit('/settings', '/settings/workspace', { writes_per_minute_per_key: '0', api_access: '1' });
    assert.equal(bad.status, 422);
    const off = await owner.client.submit('/settings', '/settings/workspace', {});
    assert.equal(off.status, 303);
    const refused = await t.request('GET', '/api/v1/context', { key });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'api_access_disabled');
    await owner.client.submit('/settings', '/settings/workspace', {
      api_access: '1',
      writes_per_minute_per_key: '100000',
      writes_per_minute_per_workspace: '100000',
      submitted_profiles_per_minute_per_workspace: '1000000',
    });
    assert.equal((await t.request('GET', '/api/v1/context', { key })).status, 200);
  });

  test('security: nothing of another workspace can be revoked, changed or removed (404)', async () => {
    const other = await t.tenant({ name: 'Elsewhere' });
    const stranger = await webUser(t, other.workspaceId, 'owner', 'Stranger');
    const token = csrfOf((await owner.client.get('/settings')).text);
    assert.equal((await owner.client.post(`/settings/keys/${other.keyId}/revoke`, { _csrf: token })).status, 404);
    assert.equal((await owner.client.post(`/settings/members/${stranger.userId}/role`, { _csrf: token, role: 'member' })).status, 404);
    assert.equal((await owner.client.post(`/settings/members/${stranger.userId}/remove`, { _csrf: token })).status, 404);
    assert.equal((await t.request('GET', '/api/v1/context', { key: other.secret })).status, 200);
    assert.equal((await stranger.client.get('/reports')).status, 200);
    assert.doesNotMatch((await owner.client.get('/settings')).text, /Stranger/);
  });
});
