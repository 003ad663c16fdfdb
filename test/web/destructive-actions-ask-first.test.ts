/**
 * Destructive actions ask first, without JavaScript (src/web/pages/confirm.tsx):
 * archive, remove a person, revoke a key and remove a member answer with a
 * confirmation page that changes nothing; its form does the action; "Cancel"
 * goes back; someone who could not do the action is refused at once, not asked.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';
import { webUser, type WebUser } from '../support/web.js';

describe('web: confirmations', () => {
  let t: TestApp;
  let owner: WebUser;
  let member: WebUser;
  let outsider: WebUser;
  let secret: string;
  let reportId: string;
  let profileId: string;

  before(async () => {
    t = await startTestApp();
    const tenant = await t.tenant();
    secret = tenant.secret;
    owner = await webUser(t, tenant.workspaceId, 'owner');
    member = await webUser(t, tenant.workspaceId, 'member');
    outsider = await webUser(t, (await t.tenant()).workspaceId, 'owner');
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'confirm' },
      body: reportBody({ profiles: [{ pronet_url: 'https://pronet.example/in/jane-doe' }] }),
    });
    reportId = created.body.data.report.id;
    profileId = created.body.data.profiles.rows[0].profile_id;
  });
  after(() => t?.close());

  const archived = async () => (await t.request('GET', `/api/v1/reports/${reportId}`, { key: secret })).body.data.archived as boolean;

  test('archive answers with a confirmation page that says what happens and changes nothing', async () => {
    const asked = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/archive`, { archived: '1' });
    assert.equal(asked.status, 200);
    assert.match(asked.text, /<h1>Archive the report “Quarterly audit”\?<\/h1>/, 'it names the report');
    assert.match(asked.text, /cancels its unfinished scans/);
    assert.match(asked.text, new RegExp(`<a class="button secondary" href="/reports/${reportId}">Cancel</a>`));
    assert.equal(await archived(), false);
  });

  test('the confirmation page carries the action: sending it archives', async () => {
    const done = await owner.client.confirm(`/reports/${reportId}`, `/reports/${reportId}/archive`, { archived: '1' });
    assert.equal(done.status, 303);
    assert.equal(done.location, `/reports/${reportId}?done=archived`);
    assert.equal(await archived(), true);
    // Unarchiving is not destructive: no question.
    const back = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/archive`, { archived: '0' });
    assert.equal(back.status, 303);
    assert.equal(await archived(), false);
  });

  test('removing a person asks first, then removes', async () => {
    const asked = await owner.client.submit(`/reports/${reportId}/people/${profileId}`, `/reports/${reportId}/people/${profileId}/remove`);
    assert.equal(asked.status, 200);
    assert.match(asked.text, /Remove jane-doe from the report “Quarterly audit”\?/, 'it names the person and the report');
    assert.equal((await t.request('GET', `/api/v1/reports/${reportId}/profiles`, { key: secret })).body.data.length, 1);
    const done = await owner.client.confirm(`/reports/${reportId}/people/${profileId}`, `/reports/${reportId}/people/${profileId}/remove`);
    assert.equal(done.status, 303);
    assert.equal((await t.request('GET', `/api/v1/reports/${reportId}/profiles`, { key: secret })).body.data.length, 0);
  });

  test('revoking a key and removing a member ask first', async () => {
    const page = await owner.client.get('/settings');
    const keyId = new RegExp(`action="/settings/keys/([0-9a-f-]+)/revoke"`).exec(page.text)![1];
    const revoke = await owner.client.submit('/settings', `/settings/keys/${keyId}/revoke`);
    assert.equal(revoke.status, 200);
    assert.match(revoke.text, /Revoke the (test|live) API key [^ ]+… of [^?]+\?/, 'it names the key and its owner');
    assert.equal((await t.request('GET', '/api/v1/context', { key: secret })).status, 200, 'the key still works');
    const remove = await owner.client.submit('/settings', `/settings/members/${member.userId}/remove`);
    assert.equal(remove.status, 200);
    assert.match(remove.text, new RegExp(`Remove [^<]*\\(${member.email.replace(/\./g, '\\.')}\\) from the workspace\\?`), 'it names the member');
    assert.equal((await member.client.get('/reports')).status, 200, 'the member is still in');
  });

  test('someone who could not do the action is refused at once: a member gets 403, another workspace 404, and no question', async () => {
    const page = await owner.client.get('/settings');
    const keyId = new RegExp(`action="/settings/keys/([0-9a-f-]+)/revoke"`).exec(page.text)![1];
    assert.equal((await member.client.submit('/reports', `/settings/members/${owner.userId}/remove`)).status, 403);
    for (const [path, fields] of [
      [`/reports/${reportId}/archive`, { archived: '1' }],
      [`/reports/${reportId}/people/${profileId}/remove`, {}],
      [`/settings/keys/${keyId}/revoke`, {}],
      [`/settings/members/${owner.userId}/remove`, {}],
    ] as const) {
      const res = await outsider.client.submit('/reports', path, fields);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(res.text, /name="confirmed"/, `${path}: no confirmation page`);
    }
  });
});
