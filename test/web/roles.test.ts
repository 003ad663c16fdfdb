/**
 * The role matrix (docs/web.md, "Roles"), through the real server with a
 * signed-in session per role: every page and form post of the workspace is
 * allowed or answered with the 403 page, as the matrix says, and the pages
 * show only the controls the role may use. A refused post changes nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Role } from '../../src/domain/web-tokens.js';
import { ROUTE_ACTIONS } from '../../src/web/route-permissions.js';
import { reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { csrfOf, webUser, type WebUser } from '../support/web.js';

/** The matrix of docs/web.md, written out: who may do each action. */
const ALLOWED: Record<string, Role[]> = {
  read: ['owner', 'admin', 'member', 'viewer'],
  add_people: ['owner', 'admin', 'member'],
  refresh_report: ['owner', 'admin', 'member'],
  archive_report: ['owner', 'admin'],
  remove_person: ['owner', 'admin'],
  share_report: ['owner', 'admin'],
  manage_workspace: ['owner', 'admin'],
  erase_person: ['owner', 'admin'],
  own_workspace: ['owner'],
  rename_workspace: ['owner'],
};
const ROLES: Role[] = ['viewer', 'member', 'admin', 'owner'];

describe('web: what each role may do', () => {
  let t: TestApp;
  let users: Record<Role, WebUser>;
  let reportId: string;
  let profileId: string;
  let imageId: string;

  before(async () => {
    t = await startTestApp();
    const tenant = await t.tenant();
    users = {
      owner: await webUser(t, tenant.workspaceId, 'owner'),
      admin: await webUser(t, tenant.workspaceId, 'admin'),
      member: await webUser(t, tenant.workspaceId, 'member'),
      viewer: await webUser(t, tenant.workspaceId, 'viewer'),
    };
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': 'roles' },
      body: reportBody({ profiles: [{ pronet_url: 'https://pronet.example/in/grace-hopper', name: 'Grace Hopper' }] }),
    });
    reportId = created.body.data.report.id;
    await t.startWorker(1);
    await scansFinished(t, tenant.secret, reportId, 1);
    const roster = await t.request('GET', `/api/v1/reports/${reportId}/profiles`, { key: tenant.secret });
    profileId = roster.body.data[0].id;
    const person = await users.owner.client.get(`/reports/${reportId}/people/${profileId}`);
    imageId = /\/evidence\/([0-9a-f-]{36})/.exec(person.text)![1];
  });
  after(() => t?.close());

  /** Every page, by the action it is; the signed-in routes not in ROUTE_ACTIONS read. */
  const pages = (): [string, string][] => [
    ['/reports', 'read'],
    [`/reports/${reportId}`, 'read'],
    [`/reports/${reportId}/progress`, 'read'],
    [`/reports/${reportId}/people.csv`, 'read'],
    [`/reports/${reportId}/people/${profileId}`, 'read'],
    [`/reports/${reportId}/evidence/${imageId}`, 'read'],
    ['/settings', 'read'],
    ['/account', 'read'],
    ['/reports/new', 'add_people'],
    [`/reports/${reportId}/import`, 'add_people'],
    [`/reports/${reportId}/links`, 'share_report'],
    [`/reports/${reportId}/people/${profileId}/export.json`, 'erase_person'],
    ['/settings/privacy', 'own_workspace'],
  ];

  /**
   * Every form post, each with fields that change nothing when allowed (a
   * confirmation page, a form error, an unknown id), so the roles can run in
   * any order.
   */
  const forms = (): [string, string, Record<string, string>][] => [
    ['/reports/new', 'add_people', {}],
    [`/reports/${reportId}/import`, 'add_people', {}],
    [`/reports/${reportId}/refresh`, 'refresh_report', {}],
    [`/reports/${reportId}/people/${profileId}/refresh`, 'refresh_report', {}],
    [`/reports/${reportId}/refresh-schedule`, 'refresh_report', { cadence: 'nonsense' }],
    [`/reports/${reportId}/archive`, 'archive_report', { archived: '1' }],
    [`/reports/${reportId}/people/${profileId}/remove`, 'remove_person', {}],
    [`/reports/${reportId}/share`, 'share_report', { public: '0' }],
    [`/reports/${reportId}/links`, 'share_report', { person: 'everyone', days: '0' }],
    [`/reports/${reportId}/links/${randomUUID()}/revoke`, 'share_report', {}],
    [`/reports/${reportId}/links/revoke-all`, 'share_report', {}],
    [`/reports/${reportId}/links/people-export`, 'share_report', { format: 'csv' }],
    [`/reports/${reportId}/company-name`, 'share_report', { display_company_name: '' }],
    ['/settings/keys', 'manage_workspace', { mode: 'nonsense' }],
    [`/settings/keys/${randomUUID()}/revoke`, 'manage_workspace', {}],
    ['/settings/invitations', 'manage_workspace', { role: 'nonsense' }],
    [`/settings/invitations/${randomUUID()}/revoke`, 'manage_workspace', {}],
    [`/settings/members/${randomUUID()}/role`, 'manage_workspace', { role: 'viewer' }],
    [`/settings/members/${randomUUID()}/remove`, 'manage_workspace', {}],
    ['/settings/workspace', 'manage_workspace', { writes_per_minute_per_key: 'nonsense' }],
    [`/reports/${reportId}/people/${profileId}/erase`, 'erase_person', {}],
    ['/settings/privacy/delete-workspace', 'own_workspace', { name: 'not the name' }],
    ['/settings/workspace/name', 'rename_workspace', { name: ' ' }],
  ];

  test('every form post of the workspace is in the matrix', () => {
    const posted = new Set(Object.keys(ROUTE_ACTIONS).filter((k) => k.startsWith('POST ')));
    assert.equal(forms().length, posted.size);
  });

  for (const role of ROLES) {
    test(`${role}: every page is shown or refused with 403 as the matrix says`, async () => {
      for (const [path, action] of pages()) {
        const res = await users[role].client.get(path);
        if (ALLOWED[action].includes(role)) assert.equal(res.status, 200, `${role} GET ${path}`);
        else {
          assert.equal(res.status, 403, `${role} GET ${path}`);
          assert.match(res.text, /Not allowed/);
        }
      }
    });

    test(`${role}: every form post is done or refused with 403 as the matrix says`, async () => {
      const csrf = csrfOf((await users[role].client.get('/account')).text);
      for (const [path, action, fields] of forms()) {
        const res = await users[role].client.post(path, { _csrf: csrf, ...fields });
        if (ALLOWED[action].includes(role)) assert.notEqual(res.status, 403, `${role} POST ${path}: ${res.text.slice(0, 300)}`);
        else {
          assert.equal(res.status, 403, `${role} POST ${path}`);
          assert.match(res.text, /Nothing was changed/);
        }
      }
    });
  }

  test('a refused archive changes nothing: the report stays active', async () => {
    const csrf = csrfOf((await users.member.client.get('/account')).text);
    assert.equal((await users.member.client.post(`/reports/${reportId}/archive`, { _csrf: csrf, archived: '1', confirmed: '1' })).status, 403);
    const page = await users.owner.client.get(`/reports/${reportId}`);
    assert.match(page.text, /value="1"\/><button type="submit" class="danger"[^>]*>Archive</);
  });

  test('a viewer sees no control to change anything', async () => {
    const list = await users.viewer.client.get('/reports');
    assert.doesNotMatch(list.text, /href="\/reports\/new"/);
    const report = await users.viewer.client.get(`/reports/${reportId}`);
    assert.doesNotMatch(report.text, /\/archive"|\/share"|\/import"|\/links"/);
    const person = await users.viewer.client.get(`/reports/${reportId}/people/${profileId}`);
    assert.doesNotMatch(person.text, /\/remove"|\/links"/);
  });

  test('a member sees "Add people" and "New report", but not archive, remove or sharing', async () => {
    assert.match((await users.member.client.get('/reports')).text, /href="\/reports\/new"/);
    const report = await users.member.client.get(`/reports/${reportId}`);
    assert.match(report.text, /\/import"/);
    assert.doesNotMatch(report.text, /\/archive"|\/share"|\/links"/);
    const person = await users.member.client.get(`/reports/${reportId}/people/${profileId}`);
    assert.doesNotMatch(person.text, /\/remove"|\/links"/);
  });

  test('an admin sees archive, sharing, private links and remove', async () => {
    const report = await users.admin.client.get(`/reports/${reportId}`);
    assert.match(report.text, /\/archive"/);
    assert.match(report.text, /\/share"/);
    assert.match(report.text, /\/links"/);
    const person = await users.admin.client.get(`/reports/${reportId}/people/${profileId}`);
    assert.match(person.text, /\/remove"/);
  });

  test('an owner can invite a viewer', async () => {
    const page = await users.owner.client.get('/settings');
    assert.match(page.text, /<option value="viewer">viewer<\/option>/);
    const res = await users.owner.client.post('/settings/invitations', { _csrf: csrfOf(page.text), role: 'viewer', label: 'A reader' });
    assert.equal(res.status, 200);
    assert.match(res.text, /A reader · viewer/);
  });
});
