/**
 * `profile-scan admin user create` and `admin user link`:
 * run as a real process against the test database; the printed one-time
 * link signs the user in through the web workspace, once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/app.js';
import { runAdmin } from '../support/processes.js';
import { csrfOf, WebClient } from '../support/web.js';

describe('admin user create / user link', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  const admin = (...args: string[]) => runAdmin(t, ...args, '--json');

  test('a user made on the command line signs in with the printed link; user link prints a new one', async () => {
    const { workspaceId } = await t.tenant({ name: 'CLI workspace' });
    const created = JSON.parse(
      (await admin('user', 'create', '--workspace', workspaceId, '--role', 'admin', '--name', 'Cora CLI', '--email', 'cora@example.test')).stdout,
    );
    assert.equal(created.role, 'admin');
    assert.match(created.sign_in_url, new RegExp(`^${t.baseUrl}/links/[A-Za-z0-9_-]{43}$`));
    const client = new WebClient(t.baseUrl);
    const path1 = new URL(created.sign_in_url).pathname;
    const form = await client.get(path1);
    assert.match(form.text, /Choose a new password/);
    assert.equal((await client.post(path1, { _csrf: csrfOf(form.text), password: 'first long password' })).status, 303);
    assert.match((await client.get('/settings')).text, /Cora CLI/);

    const link = JSON.parse((await admin('user', 'link', created.user_id)).stdout);
    const other = new WebClient(t.baseUrl);
    const path2 = new URL(link.sign_in_url).pathname;
    const page = await other.get(path2);
    assert.equal((await other.post(path2, { _csrf: csrfOf(page.text), password: 'second long password' })).status, 303);
    assert.equal((await client.get('/reports')).status, 303, 'a reset ends the other sessions');
    assert.equal((await new WebClient(t.baseUrl).signIn('cora@example.test', 'second long password')).status, 303);

    await assert.rejects(admin('user', 'create', '--workspace', workspaceId, '--role', 'boss', '--name', 'X'), /--role takes/);
    await assert.rejects(admin('user', 'link', '00000000-0000-4000-8000-000000000000'), /no user/);
  });
});
