/**
 * The operator's privacy commands (`profile-scan admin export-person`,
 * `erase-person`, `workspace delete`, `audit list`), as run from a shell:
 * the export names the person and is written where asked, the erasure leaves
 * no attachment, the deletion takes the exact name, and the audit log lists
 * each action without any value of the person.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { runAdmin } from '../support/processes.js';

describe('admin privacy commands', () => {
  let t: TestApp;
  let owner: Tenant;
  let dir: string;
  const URL = 'https://pronet.example/in/cli-erased-person';

  before(async () => {
    t = await startTestApp();
    owner = await t.tenant({ name: 'CLI privacy' });
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-cli-privacy-'));
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': randomUUID() },
      body: reportBody({ profiles: [{ pronet_url: URL, name: 'Cli Erased Person' }] }),
    });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => {
    await t?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  test('export, erase, delete and the audit log, from the command line', async () => {
    const out = path.join(dir, 'person.json');
    await runAdmin(t, 'export-person', '--workspace', owner.workspaceId, '--url', URL, '--out', out, '--json');
    const exported = JSON.parse(await fs.readFile(out, 'utf8'));
    assert.equal(exported.people[0].profile.pronet_url, URL);
    assert.equal(exported.people[0].profile.name, 'Cli Erased Person');

    const erased = JSON.parse((await runAdmin(t, 'erase-person', '--workspace', owner.workspaceId, '--url', URL, '--json')).stdout);
    assert.equal(erased.erased, 1);
    assert.equal((await t.runtime.db.selectFrom('report_profiles').select('id').where('pronet_url', '=', URL).execute()).length, 0);
    await assert.rejects(runAdmin(t, 'erase-person', '--workspace', owner.workspaceId, '--url', URL), /does not exist/);

    await assert.rejects(runAdmin(t, 'workspace', 'delete', owner.workspaceId, '--confirm', 'cli privacy'), /typed name/);
    await runAdmin(t, 'workspace', 'delete', owner.workspaceId, '--confirm', 'CLI privacy');
    assert.equal((await t.runtime.db.selectFrom('workspaces').select('id').where('id', '=', owner.workspaceId).execute()).length, 0);

    const { stdout } = await runAdmin(t, 'audit', 'list', '--workspace', owner.workspaceId, '--json');
    const actions = (JSON.parse(stdout).entries as { action: string; actor_kind: string }[]).map((e) => `${e.actor_kind}:${e.action}`);
    assert.deepEqual(actions, ['operator:delete_workspace', 'operator:erase_person', 'operator:export_person', 'operator:issue_key']);
    assert.ok(!stdout.includes('cli-erased-person') && !stdout.includes('Cli Erased Person'));
  });
});
