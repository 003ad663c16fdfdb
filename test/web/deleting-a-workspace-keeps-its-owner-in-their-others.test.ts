/**
 * Deleting one of an account's workspaces (Settings → Privacy): the account
 * stays signed in, in another of its workspaces, and nothing of the deleted
 * one is left to it; an account with no other workspace is signed out.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/app.js';
import { webUser, type WebUser } from '../support/web.js';

describe('web: deleting one of several workspaces', () => {
  let t: TestApp;
  let owner: WebUser;

  before(async () => {
    t = await startTestApp();
    const home = await t.tenant({ name: 'Agency home' });
    owner = await webUser(t, home.workspaceId, 'owner', 'Agnes Agency');
  });
  after(() => t?.close());

  test('the owner stays signed in, in their other workspace, which the notice names', async () => {
    const created = await owner.client.submit('/workspaces', '/workspaces', { name: 'Client to drop' });
    assert.equal(created.status, 303);
    const dropped = await t.runtime.db.selectFrom('workspaces').select('id').where('name', '=', 'Client to drop').executeTakeFirstOrThrow();
    const done = await owner.client.submit('/settings/privacy', '/settings/privacy/delete-workspace', { name: 'Client to drop' });
    assert.equal(done.status, 303, done.text);
    assert.equal(done.location, '/workspaces?deleted=1');
    const page = await owner.client.get(done.location);
    assert.equal(page.status, 200);
    assert.match(page.text, /The workspace was deleted, with everything of it\. You are now in “Agency home”\./);
    assert.doesNotMatch(page.text, /Client to drop/);
    assert.equal((await owner.client.get('/reports')).status, 200, 'still signed in');
    assert.equal((await t.runtime.db.selectFrom('workspaces').select('id').where('id', '=', dropped.id).execute()).length, 0);
  });

  test('an owner whose only workspace it was is signed out with it', async () => {
    const alone = await t.tenant({ name: 'Only one' });
    const solo = await webUser(t, alone.workspaceId, 'owner', 'Solo Owner');
    const done = await solo.client.submit('/settings/privacy', '/settings/privacy/delete-workspace', { name: 'Only one' });
    assert.equal(done.status, 303, done.text);
    assert.equal(done.location, '/sign-in');
    const after = await solo.client.get('/reports');
    assert.notEqual(after.status, 200, 'the session went with the workspace');
  });
});
