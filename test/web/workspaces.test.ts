/**
 * One account in several workspaces (migration 0049), through the real
 * server: an invitation to an existing account adds the workspace, the
 * header's switcher moves the session, the role is the one of the current
 * workspace, an owner renames it, a workspace is created from the web when
 * the operator allows it, and nothing of one workspace is visible from the
 * other.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
// A database stopped at an earlier migration, to see the later one upgrade its rows.
import { createDb, createPool } from '../../src/store/database.js';
import { migrateTo, migrateToLatest } from '../../src/store/migrator.js';
import type { Database } from '../../src/store/schema.js';
import { reportBody, scansFinished, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { createEmptyTestDatabase, type TestDatabase } from '../support/db.js';
import { csrfOf, WebClient, webUser, type WebUser } from '../support/web.js';

/** Invites to the workspace of `inviter` with `role`; returns the link's path. */
async function invitation(inviter: WebUser, role: string): Promise<string> {
  const page = await inviter.client.submit('/settings', '/settings/invitations', { role, label: 'client' });
  assert.equal(page.status, 200);
  const url = /value="(http[^"]+\/links\/[^"]+)"/.exec(page.text)![1];
  return new URL(url).pathname;
}

/** The current workspace's name in the header (the switcher's selected one, also printed). */
function headerWorkspace(html: string): string {
  return /<p class="(?:print-only|workspace-name)">([^<]+)/.exec(html)![1].replace(/ · $/, '').trim();
}

function newSecret(html: string): string {
  return /id="new-secret"[^>]*value="([^"]+)"/.exec(html)![1];
}

describe('web: one account in several workspaces', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let ownerA: WebUser;
  let ownerB: WebUser;
  /** Viewer in A, then invited as owner of B. */
  let ann: WebUser;
  let reportA: string;
  let profileA: string;
  let imageA: string;

  before(async () => {
    t = await startTestApp();
    a = await t.tenant({ name: 'Client Alpha' });
    b = await t.tenant({ name: 'Client Beta' });
    ownerA = await webUser(t, a.workspaceId, 'owner');
    ownerB = await webUser(t, b.workspaceId, 'owner');
    ann = await webUser(t, a.workspaceId, 'viewer', 'Ann Agency');
    const created = await t.request('POST', '/api/v1/reports', {
      key: a.secret,
      headers: { 'idempotency-key': 'alpha' },
      body: reportBody({ name: 'Alpha audit', profiles: [{ pronet_url: 'https://pronet.example/in/alpha-person', name: 'Alpha Person' }] }),
    });
    reportA = created.body.data.report.id;
    await t.startWorker(1);
    await scansFinished(t, a.secret, reportA, 1);
    profileA = (await t.request('GET', `/api/v1/reports/${reportA}/profiles`, { key: a.secret })).body.data[0].id;
    const person = await ownerA.client.get(`/reports/${reportA}/people/${profileA}`);
    imageA = /\/evidence\/([0-9a-f-]{36})/.exec(person.text)![1];
  });
  after(() => t?.close());

  test('an invitation redeemed with an existing account’s email and a wrong password is refused and stays usable', async () => {
    const link = await invitation(ownerB, 'viewer');
    const stranger = new WebClient(t.baseUrl);
    const page = await stranger.get(link);
    const res = await stranger.post(link, { _csrf: csrfOf(page.text), name: 'Ann', email: ann.email.toUpperCase(), password: 'not her password at all' });
    assert.equal(res.status, 422);
    assert.match(res.text, /already belongs to an account: enter its password to add this workspace to it/);
    assert.equal(stranger.cookies.has('ps_session'), false);
    assert.equal((await stranger.get(link)).status, 200, 'the link is not spent');
  });

  test('an invitation to an existing account adds the workspace with its role, keeping the password; the session opens in it', async () => {
    const link = await invitation(ownerB, 'owner');
    const browser = new WebClient(t.baseUrl);
    const page = await browser.get(link);
    const res = await browser.post(link, { _csrf: csrfOf(page.text), name: 'Ann Agency', email: ann.email, password: ann.password });
    assert.equal(res.status, 303);
    const reports = await browser.get('/reports');
    assert.equal(headerWorkspace(reports.text), 'Client Beta');
    const rows = await t.runtime.db
      .selectFrom('users')
      .innerJoin('accounts', 'accounts.id', 'users.account_id')
      .select(['users.workspace_id', 'users.role'])
      .where('accounts.email', '=', ann.email)
      .orderBy('users.role')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.workspace_id, r.role]),
      [
        [b.workspaceId, 'owner'],
        [a.workspaceId, 'viewer'],
      ],
    );
    // The old session (in A) still works, and the password is unchanged: signing in again works.
    assert.equal(headerWorkspace((await ann.client.get('/reports')).text), 'Client Alpha');
    const again = new WebClient(t.baseUrl);
    assert.equal((await again.signIn(ann.email, ann.password)).status, 303);
    const fresh = csrfOf((await browser.get('/reports')).text);
    assert.equal((await browser.post(link, { _csrf: fresh, name: 'Ann', email: ann.email, password: ann.password })).status, 404, 'spent');
  });

  test('an invitation to a workspace the account already belongs to is refused and not spent', async () => {
    const link = await invitation(ownerB, 'admin');
    const browser = new WebClient(t.baseUrl);
    const page = await browser.get(link);
    const res = await browser.post(link, { _csrf: csrfOf(page.text), name: 'Ann', email: ann.email, password: ann.password });
    assert.equal(res.status, 422);
    assert.match(res.text, /This account already belongs to Client Beta: sign in and switch to it/);
    assert.equal((await browser.get(link)).status, 200);
  });

  test('two invitations to one workspace accepted at once by one account make one membership', async () => {
    const eve = await webUser(t, a.workspaceId, 'member', 'Eve');
    const links = [await invitation(ownerB, 'viewer'), await invitation(ownerB, 'member')];
    const browsers = links.map(() => new WebClient(t.baseUrl));
    const pages = await Promise.all(links.map((link, i) => browsers[i].get(link)));
    const results = await Promise.all(
      links.map((link, i) => browsers[i].post(link, { _csrf: csrfOf(pages[i].text), name: 'Eve', email: eve.email, password: eve.password })),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [303, 422]);
    const memberships = await t.runtime.db
      .selectFrom('users')
      .innerJoin('accounts', 'accounts.id', 'users.account_id')
      .select('users.id')
      .where('accounts.email', '=', eve.email)
      .where('users.workspace_id', '=', b.workspaceId)
      .execute();
    assert.equal(memberships.length, 1);
  });

  test('switcher: the header lists both workspaces; switching moves the session and its pages', async () => {
    const list = await ann.client.get('/reports');
    assert.match(list.text, /<select id="switch-workspace" name="workspace">/);
    assert.match(list.text, /Client Alpha/);
    assert.match(list.text, /Client Beta/);
    assert.match(list.text, /Alpha audit/);
    const csrf = csrfOf(list.text);
    const switched = await ann.client.post('/workspaces/switch', { _csrf: csrf, workspace: b.workspaceId });
    assert.equal(switched.status, 303);
    assert.equal(switched.location, '/reports');
    const inB = await ann.client.get('/reports');
    assert.equal(headerWorkspace(inB.text), 'Client Beta');
    assert.doesNotMatch(inB.text, /Alpha audit/);
    const back = await ann.client.post('/workspaces/switch', { _csrf: csrf, workspace: a.workspaceId });
    assert.equal(back.status, 303);
    assert.equal(headerWorkspace((await ann.client.get('/reports')).text), 'Client Alpha');
  });

  test('switching to a workspace the account does not belong to is 404 and leaves the session where it was', async () => {
    const other = await t.tenant({ name: 'Someone Else' });
    const csrf = csrfOf((await ownerA.client.get('/reports')).text);
    for (const workspace of [other.workspaceId, randomUUID(), 'not-an-id']) {
      const res = await ownerA.client.post('/workspaces/switch', { _csrf: csrf, workspace });
      assert.equal(res.status, 404, workspace);
      assert.doesNotMatch(res.text, /Someone Else/);
    }
    assert.equal(headerWorkspace((await ownerA.client.get('/reports')).text), 'Client Alpha');
  });

  test('roles are per workspace: a viewer in one, an owner in the other', async () => {
    const csrf = csrfOf((await ann.client.get('/reports')).text);
    await ann.client.post('/workspaces/switch', { _csrf: csrf, workspace: a.workspaceId });
    assert.equal((await ann.client.get('/reports/new')).status, 403);
    const settingsA = await ann.client.get('/settings');
    assert.doesNotMatch(settingsA.text, /Rename workspace/);
    const refused = await ann.client.post('/settings/workspace/name', { _csrf: csrf, name: 'Hijacked' });
    assert.equal(refused.status, 403);
    assert.match(refused.text, /Only owners can rename the workspace/);
    await ann.client.post('/workspaces/switch', { _csrf: csrf, workspace: b.workspaceId });
    assert.equal((await ann.client.get('/reports/new')).status, 200);
    assert.match((await ann.client.get('/settings')).text, /Rename workspace/);
    const names = await t.runtime.db.selectFrom('workspaces').select('name').where('id', 'in', [a.workspaceId, b.workspaceId]).orderBy('name').execute();
    assert.deepEqual(
      names.map((n) => n.name),
      ['Client Alpha', 'Client Beta'],
    );
  });

  test('an admin cannot rename the workspace; an owner renames it, the slug and the API keep working', async () => {
    const admin = await webUser(t, b.workspaceId, 'admin');
    const adminCsrf = csrfOf((await admin.client.get('/settings')).text);
    assert.equal((await admin.client.post('/settings/workspace/name', { _csrf: adminCsrf, name: 'By admin' })).status, 403);
    const before = await t.request('GET', '/api/v1/workspace', { key: b.secret });
    const csrf = csrfOf((await ownerB.client.get('/settings')).text);
    const empty = await ownerB.client.post('/settings/workspace/name', { _csrf: csrf, name: '   ' });
    assert.equal(empty.status, 422);
    assert.match(empty.text, /Enter a workspace name/);
    const renamed = await ownerB.client.post('/settings/workspace/name', { _csrf: csrf, name: '  Beta   GmbH ' });
    assert.equal(renamed.status, 303);
    const page = await ownerB.client.get(renamed.location!);
    assert.match(page.text, /The workspace was renamed/);
    assert.equal(headerWorkspace(page.text), 'Beta GmbH');
    const workspace = await t.request('GET', '/api/v1/workspace', { key: b.secret });
    assert.equal(workspace.status, 200);
    assert.equal(workspace.body.data.name, 'Beta GmbH');
    assert.equal(workspace.body.data.slug, before.body.data.slug);
  });

  test('nothing of one workspace is visible from the other: reports, people, evidence, CSV, keys and members are 404 or absent', async () => {
    const csrf = csrfOf((await ann.client.get('/reports')).text);
    await ann.client.post('/workspaces/switch', { _csrf: csrf, workspace: a.workspaceId });
    const ownKey = await ann.client.submit('/settings', '/settings/keys', { scopes: ['*'], mode: 'test' });
    assert.equal(ownKey.status, 403, 'a viewer in A issues no key');
    await ann.client.post('/workspaces/switch', { _csrf: csrf, workspace: b.workspaceId });
    const issued = await ann.client.submit('/settings', '/settings/keys', { scopes: ['*'], mode: 'test' });
    assert.equal(issued.status, 200);
    const secretB = newSecret(issued.text);

    for (const path of [
      `/reports/${reportA}`,
      `/reports/${reportA}/progress`,
      `/reports/${reportA}/people.csv`,
      `/reports/${reportA}/people/${profileA}`,
      `/reports/${reportA}/evidence/${imageA}`,
      `/reports/${reportA}/import`,
    ]) {
      const res = await ann.client.get(path);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(res.text, /Alpha (audit|Person)/, path);
    }
    const settings = await ann.client.get('/settings');
    assert.doesNotMatch(settings.text, new RegExp(a.keyId.slice(0, 8)));
    assert.doesNotMatch(settings.text, new RegExp(ownerA.email.replace('.', '\\.')));
    assert.doesNotMatch((await ann.client.get('/reports')).text, /Alpha audit/);
    // The key issued in B is B's: the API shows B's workspace and none of A's reports.
    const workspace = await t.request('GET', '/api/v1/workspace', { key: secretB });
    assert.equal(workspace.body.data.id, b.workspaceId);
    assert.equal((await t.request('GET', `/api/v1/reports/${reportA}`, { key: secretB })).status, 404);
    // Switching back shows A's report to the same account.
    await ann.client.post('/workspaces/switch', { _csrf: csrf, workspace: a.workspaceId });
    assert.equal((await ann.client.get(`/reports/${reportA}/people.csv`)).status, 200);
  });

  test('removed from one workspace, the account keeps the other: its session there and its keys there go on', async () => {
    const carl = await webUser(t, a.workspaceId, 'owner', 'Carl');
    const link = await invitation(ownerB, 'member');
    const page = await carl.client.get(link);
    assert.match(page.text, /Join with this account/);
    const joined = await carl.client.post(link, { _csrf: csrfOf(page.text), join: '1' });
    assert.equal(joined.status, 303);
    assert.equal(headerWorkspace((await carl.client.get('/reports')).text), 'Beta GmbH');
    const csrf = csrfOf((await carl.client.get('/reports')).text);
    await carl.client.post('/workspaces/switch', { _csrf: csrf, workspace: a.workspaceId });
    const keyA = await carl.client.submit('/settings', '/settings/keys', { scopes: ['*'], mode: 'test' });
    const secretA = newSecret(keyA.text);
    const carlInB = await t.runtime.db
      .selectFrom('users')
      .select('users.id')
      .innerJoin('accounts', 'accounts.id', 'users.account_id')
      .where('accounts.email', '=', carl.email)
      .where('users.workspace_id', '=', b.workspaceId)
      .executeTakeFirstOrThrow();
    const removed = await ownerB.client.confirm('/settings', `/settings/members/${carlInB.id}/remove`);
    assert.equal(removed.status, 303);
    assert.equal(headerWorkspace((await carl.client.get('/reports')).text), 'Client Alpha');
    assert.equal((await t.request('GET', '/api/v1/workspace', { key: secretA })).status, 200);
    const stillCsrf = csrfOf((await carl.client.get('/reports')).text);
    assert.equal((await carl.client.post('/workspaces/switch', { _csrf: stillCsrf, workspace: b.workspaceId })).status, 404);
  });

  test('a password change ends the account’s sessions in every workspace', async () => {
    const dora = await webUser(t, a.workspaceId, 'member', 'Dora');
    const link = await invitation(ownerB, 'member');
    const second = new WebClient(t.baseUrl);
    const page = await second.get(link);
    assert.equal((await second.post(link, { _csrf: csrfOf(page.text), name: 'Dora', email: dora.email, password: dora.password })).status, 303);
    assert.equal(headerWorkspace((await second.get('/reports')).text), 'Beta GmbH');
    const form = await dora.client.get('/account');
    const changed = await dora.client.post('/account/password', { _csrf: csrfOf(form.text), current: dora.password, next: 'a brand new passphrase' });
    assert.equal(changed.status, 303);
    assert.equal((await second.get('/reports')).status, 303, 'the session in the other workspace ended');
    assert.equal((await dora.client.get('/reports')).status, 200, 'this browser has a new session');
  });

  test('a signed-in account creates a workspace from the web: it is its owner and the session switches to it', async () => {
    const page = await ownerA.client.get('/workspaces');
    assert.match(page.text, /Create workspace/);
    const empty = await ownerA.client.post('/workspaces', { _csrf: csrfOf(page.text), name: '' });
    assert.equal(empty.status, 422);
    assert.match(empty.text, /Enter a workspace name/);
    const created = await ownerA.client.post('/workspaces', { _csrf: csrfOf(page.text), name: 'Client Gamma' });
    assert.equal(created.status, 303);
    const after = await ownerA.client.get(created.location!);
    assert.match(after.text, /Workspace “Client Gamma” created: you are its owner/);
    assert.equal(headerWorkspace(after.text), 'Client Gamma');
    assert.match(after.text, /<td>Client Alpha<\/td><td>Owner<\/td>/);
    assert.match((await ownerA.client.get('/settings')).text, /Rename workspace/);
    assert.doesNotMatch((await ownerA.client.get('/reports')).text, /Alpha audit/);
  });
});

describe('web: workspace creation kept to the operator', () => {
  let t: TestApp;
  let owner: WebUser;
  before(async () => {
    t = await startTestApp({ env: { WEB_WORKSPACE_CREATION: 'operator' } });
    const tenant = await t.tenant({ name: 'Only one' });
    owner = await webUser(t, tenant.workspaceId, 'owner');
  });
  after(() => t?.close());

  test('the workspaces page says the operator creates workspaces, and a post is refused with 403, creating nothing', async () => {
    const page = await owner.client.get('/workspaces');
    assert.equal(page.status, 200);
    assert.match(page.text, /new workspaces are created by the operator/);
    assert.doesNotMatch(page.text, /Create workspace/);
    const before = await t.runtime.db.selectFrom('workspaces').select('id').execute();
    const res = await owner.client.post('/workspaces', { _csrf: csrfOf(page.text), name: 'Sneaky' });
    assert.equal(res.status, 403);
    assert.match(res.text, /created by the operator/);
    assert.equal((await t.runtime.db.selectFrom('workspaces').select('id').execute()).length, before.length);
  });
});

describe('migration 0049 on accounts of one workspace each', () => {
  let database: TestDatabase;
  let db: Kysely<Database>;
  let pool: pg.Pool;
  before(async () => {
    database = await createEmptyTestDatabase();
    pool = createPool(database.url, 2);
    db = createDb(pool, { statementCache: null });
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  test('each email becomes one account holding its active row’s password; a user without email is an account of its own; sessions keep working', async () => {
    await migrateTo(db, '0046_viewer_role_and_person_links');
    const at = new Date('2026-01-01T00:00:00Z');
    const [w1, w2, active, removed, noEmail, other] = Array.from({ length: 6 }, () => randomUUID());
    for (const w of [w1, w2]) {
      await sql`insert into workspaces (id, name, slug, created_at, updated_at) values (${w}, ${w}, ${w}, ${at}, ${at})`.execute(db);
    }
    const user = (id: string, ws: string, email: string | null, hash: string | null, removedAt: Date | null) =>
      sql`insert into users (id, workspace_id, name, role, created_at, email, password_hash, removed_at)
          values (${id}, ${ws}, 'N', 'member', ${at}, ${email}, ${hash}, ${removedAt})`.execute(db);
    await user(removed, w1, 'Same@Example.test', 'old-hash', at);
    await user(active, w2, 'same@example.test', 'current-hash', null);
    await user(noEmail, w1, null, null, null);
    await user(other, w1, 'other@example.test', 'other-hash', null);
    await sql`insert into web_sessions (token_hash, user_id, workspace_id, created_at, last_seen_at, expires_at)
              values (${Buffer.from('t')}, ${active}, ${w2}, ${at}, ${at}, ${at})`.execute(db);

    await migrateToLatest(db);

    const rows = await db
      .selectFrom('users as u')
      .innerJoin('accounts as a', 'a.id', 'u.account_id')
      .select(['u.id', 'u.account_id', 'a.email', 'a.password_hash'])
      .execute();
    const of = (id: string) => rows.find((r) => r.id === id)!;
    assert.equal(of(removed).account_id, of(active).account_id, 'one email, one account');
    assert.equal(of(active).password_hash, 'current-hash');
    assert.equal(of(noEmail).email, null);
    assert.notEqual(of(noEmail).account_id, of(other).account_id);
    assert.equal(of(other).password_hash, 'other-hash');
    assert.equal(Number((await sql<{ n: string }>`select count(*) as n from accounts`.execute(db)).rows[0].n), 3);
    assert.equal((await db.selectFrom('web_sessions').select('user_id').executeTakeFirstOrThrow()).user_id, active);
  });
});
