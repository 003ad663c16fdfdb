/**
 * The audit log records API keys issued and revoked, role changes and
 * member removals, and sharing changes (the report's public link, the
 * private person links), each with who, what kind of object and when, and
 * never a value (no secret, name, URL or e-mail address); owners read it on
 * the privacy page, the operator with `admin audit list` (docs/privacy.md).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { runAdmin } from '../support/processes.js';
import { csrfOf, webUser, type WebUser } from '../support/web.js';

const PEOPLE = [
  { pronet_url: 'https://pronet.example/in/audited-person-one', name: 'Audited Person One' },
  { pronet_url: 'https://pronet.example/in/audited-person-two', name: 'Audited Person Two' },
];

describe('audit log: keys, roles and sharing', () => {
  let t: TestApp;
  let tenant: Tenant;
  let owner: WebUser;
  let other: WebUser;
  let reportId: string;

  const entries = async (action: string) =>
    t.runtime.db.selectFrom('audit_log').selectAll().where('workspace_ref', '=', tenant.workspaceId).where('action', '=', action).orderBy('id').execute();
  const since = () =>
    t.runtime.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirstOrThrow();

  before(async () => {
    t = await startTestApp();
    tenant = await t.tenant({ name: 'Audited workspace' });
    owner = await webUser(t, tenant.workspaceId, 'owner');
    other = await webUser(t, tenant.workspaceId, 'member', 'Audited Colleague');
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': randomUUID() },
      body: reportBody({ profiles: PEOPLE }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
  });
  after(async () => t?.close());

  test('the operator issuing a key is recorded as the operator, naming the key', async () => {
    const [entry] = await entries('issue_key');
    assert.equal(entry.actor_kind, 'operator');
    assert.equal(entry.object_kind, 'api_key');
    assert.equal(entry.object_ref, tenant.keyId);
  });

  test('an owner issuing and revoking a key in the settings: two entries by that owner, naming the key, never its secret', async () => {
    const page = await owner.client.submit('/settings', '/settings/keys', { mode: 'test', scopes: ['*'] });
    assert.equal(page.status, 200);
    const secret = /id="new-secret"[^>]*value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const keyId = (await t.request('GET', '/api/v1/context', { key: secret })).body.data.key_id as string;
    const issued = (await entries('issue_key')).at(-1)!;
    assert.deepEqual([issued.actor_kind, issued.actor_ref, issued.object_ref], ['user', owner.userId, keyId]);
    assert.equal((await owner.client.confirm('/settings', `/settings/keys/${keyId}/revoke`)).status, 303);
    const revoked = await entries('revoke_key');
    assert.equal(revoked.length, 1);
    assert.deepEqual([revoked[0].actor_ref, revoked[0].object_kind, revoked[0].object_ref], [owner.userId, 'api_key', keyId]);
    const rows = JSON.stringify(await t.runtime.db.selectFrom('audit_log').selectAll().execute());
    assert.ok(!rows.includes(secret) && !rows.includes(secret.slice(0, 13)), 'no secret nor its prefix');
  });

  test('revoking a key that is already revoked records nothing more', async () => {
    const before = (await entries('revoke_key')).length;
    await runAdmin(t, 'key', 'revoke', (await entries('revoke_key'))[0].object_ref!);
    assert.equal((await entries('revoke_key')).length, before);
  });

  test('the operator revoking a key from the command line is recorded as the operator', async () => {
    await runAdmin(t, 'key', 'revoke', tenant.keyId);
    const revoked = (await entries('revoke_key')).at(-1)!;
    assert.deepEqual([revoked.actor_kind, revoked.actor_ref, revoked.object_ref], ['operator', null, tenant.keyId]);
  });

  test('a role change is recorded with the new role and the member it changed; the same role again records nothing', async () => {
    const res = await owner.client.post(`/settings/members/${other.userId}/role`, { _csrf: csrfOf((await owner.client.get('/settings')).text), role: 'admin' });
    assert.equal(res.status, 303, res.text.slice(0, 300));
    const [entry] = await entries('role_to_admin');
    assert.deepEqual([entry.actor_ref, entry.object_kind, entry.object_ref], [owner.userId, 'member', other.userId]);
    const mark = await since();
    await owner.client.post(`/settings/members/${other.userId}/role`, { _csrf: csrfOf((await owner.client.get('/settings')).text), role: 'admin' });
    assert.equal((await since()).id, mark.id);
  });

  test("the report's public link turned on and off: two entries naming the report", async () => {
    for (const value of ['1', '0']) {
      const res = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/share`, { public: value });
      assert.equal(res.status, 303);
    }
    const on = await entries('share_report');
    const off = await entries('unshare_report');
    assert.equal(on.length, 1);
    assert.equal(off.length, 1);
    for (const e of [...on, ...off]) assert.deepEqual([e.actor_ref, e.object_kind, e.object_ref], [owner.userId, 'report', reportId]);
  });

  test('private links made for everyone, one revoked, then the rest: entries with counts, naming the report or the link, never a person', async () => {
    const page = await owner.client.get(`/reports/${reportId}/links`);
    const made = await owner.client.post(`/reports/${reportId}/links`, { _csrf: csrfOf(page.text), person: 'everyone', days: '30' });
    assert.equal(made.status, 200);
    const [created] = await entries('create_person_links');
    assert.deepEqual([created.actor_ref, created.object_kind, created.object_ref, created.count], [owner.userId, 'report', reportId, PEOPLE.length]);

    const list = await owner.client.get(`/reports/${reportId}/links`);
    const one = [...list.text.matchAll(/action="\/reports\/[^"]+\/links\/([0-9a-f-]+)\/revoke"/g)].map((m) => m[1])[0];
    assert.equal((await owner.client.post(`/reports/${reportId}/links/${one}/revoke`, { _csrf: csrfOf(list.text) })).status, 303);
    assert.equal((await owner.client.post(`/reports/${reportId}/links/revoke-all`, { _csrf: csrfOf(list.text) })).status, 303);
    const revoked = await entries('revoke_person_links');
    assert.deepEqual(
      revoked.map((e) => [e.object_kind, e.object_ref, e.count]),
      [
        ['person_link', one, 1],
        ['report', reportId, PEOPLE.length - 1],
      ],
    );
  });

  test('removing a member is recorded', async () => {
    assert.equal((await owner.client.confirm('/settings', `/settings/members/${other.userId}/remove`)).status, 303);
    const [entry] = await entries('remove_member');
    assert.deepEqual([entry.actor_ref, entry.object_kind, entry.object_ref], [owner.userId, 'member', other.userId]);
  });

  test('owners read every kind on the privacy page and the operator with `admin audit list`; neither shows a name, URL or e-mail address', async () => {
    const page = await owner.client.get('/settings/privacy');
    assert.equal(page.status, 200);
    for (const label of [
      'API key issued',
      'API key revoked',
      'Role changed to admin',
      'Member removed',
      'Public link turned on',
      'Public link turned off',
      'Private links made',
      'Private links revoked',
    ])
      assert.ok(page.text.includes(label), label);
    const { stdout } = await runAdmin(t, 'audit', 'list', '--workspace', tenant.workspaceId, '--json');
    const actions = new Set((JSON.parse(stdout).entries as { action: string }[]).map((e) => e.action));
    for (const action of [
      'issue_key',
      'revoke_key',
      'role_to_admin',
      'remove_member',
      'share_report',
      'unshare_report',
      'create_person_links',
      'revoke_person_links',
    ])
      assert.ok(actions.has(action), action);
    const values = [...PEOPLE.flatMap((p) => [p.pronet_url, p.name, 'audited-person']), 'Audited Colleague', '@'];
    for (const text of [stdout, JSON.stringify(await t.runtime.db.selectFrom('audit_log').selectAll().execute())])
      for (const value of values) assert.ok(!text.includes(value), value);
  });
});
