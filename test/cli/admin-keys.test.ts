/**
 * `profile-scan admin key create` and `admin key revoke`, run as real
 * processes against the test database: the operator's key works on the API
 * with exactly its scopes, and a revoked key is refused by the next request.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/app.js';
import { runAdmin } from '../support/processes.js';

describe('admin key create / key revoke', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  const admin = (...args: string[]) => runAdmin(t, ...args, '--json');

  test('a key issued on the command line reads with its scopes, and is refused once revoked', async () => {
    const { workspaceId } = await t.tenant({ name: 'Keys workspace' });
    const key = JSON.parse((await admin('key', 'create', '--workspace', workspaceId, '--scopes', 'reports:read', '--mode', 'test')).stdout);
    assert.equal(key.workspace_id, workspaceId);
    assert.deepEqual(key.scopes, ['reports:read']);
    assert.equal((await t.request('GET', '/api/v1/reports', { key: key.secret })).status, 200);
    assert.equal((await t.request('GET', '/api/v1/workspace', { key: key.secret })).status, 403);

    const revoked = JSON.parse((await admin('key', 'revoke', key.id)).stdout);
    assert.equal(revoked.id, key.id);
    assert.ok(!Number.isNaN(Date.parse(revoked.revoked_at)));
    const refused = await t.request('GET', '/api/v1/reports', { key: key.secret });
    assert.equal(refused.status, 401);
  });

  test('revoking a key that does not exist fails with a clear message', async () => {
    await assert.rejects(admin('key', 'revoke', '00000000-0000-4000-8000-000000000000'), (error: { stderr?: string; stdout?: string }) => {
      assert.match(`${error.stderr ?? ''}${error.stdout ?? ''}`, /no key 00000000-0000-4000-8000-000000000000/);
      return true;
    });
  });
});
