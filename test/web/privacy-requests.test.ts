/**
 * Requests about personal data in the web workspace (web/routes/privacy-routes.ts):
 * - erasing a person asks first, naming them, then erases (owners and admins; members are refused);
 * - the export holds every stored value of the person, with the evidence images, and nothing of anyone else;
 * - the privacy page (owners) lists the audit log, which holds no personal value;
 * - deleting the workspace takes its exact name, then leaves nothing of it in the database or the media store.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { findInCatalog } from '../support/catalog.js';
import { handlerContext, scanQueued } from '../support/handler.js';
import { foldsSettled } from '../support/rollups.js';
import { webUser, type WebUser } from '../support/web.js';

const ISO_OR_UUID = /^(\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)?|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{64})$/u;

/** Every string in a JSON value, but timestamps, ids and hashes (their form differs between the database and the export). */
function strings(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') {
    if (value.length >= 3 && !ISO_OR_UUID.test(value)) out.add(value);
  } else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

describe('web: a person erased or exported, the workspace deleted', () => {
  let t: TestApp;
  let tenant: Tenant;
  let owner: WebUser;
  let admin: WebUser;
  let member: WebUser;
  let reportId: string;
  const profile: Record<'jane' | 'john', string> = {} as never;

  before(async () => {
    t = await startTestApp();
    tenant = await t.tenant({ name: 'Privacy workspace' });
    owner = await webUser(t, tenant.workspaceId, 'owner');
    admin = await webUser(t, tenant.workspaceId, 'admin');
    member = await webUser(t, tenant.workspaceId, 'member');
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': randomUUID() },
      body: reportBody({
        profiles: [
          { pronet_url: 'https://pronet.example/in/exported-person', name: 'Exported Person', title: 'Head of Exports' },
          { pronet_url: 'https://pronet.example/in/neighbour-person', name: 'Neighbour Person', title: 'Chief Neighbour' },
        ],
      }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    await scanQueued(t);
    await foldsSettled(t);
    const rows = await t.runtime.db.selectFrom('report_profiles').select(['id', 'pronet_url']).where('report_id', '=', reportId).execute();
    profile.jane = rows.find((r) => r.pronet_url.endsWith('exported-person'))!.id;
    profile.john = rows.find((r) => r.pronet_url.endsWith('neighbour-person'))!.id;
    await t.runtime.db
      .updateTable('report_profiles')
      .set({ imported_columns: JSON.stringify({ office: 'Export Office 42' }) })
      .where('id', '=', profile.jane)
      .execute();
  });
  after(() => t?.close());

  test('the export holds every stored value of the person, the evidence images, and nothing of anyone else', async () => {
    const page = `/reports/${reportId}/people/${profile.jane}`;
    const shown = await owner.client.get(page);
    assert.match(shown.text, /Export stored data \(JSON\)/);
    const exported = await owner.client.get(`${page}/export.json`);
    assert.equal(exported.status, 200, exported.text);
    assert.match(exported.headers.get('content-disposition') ?? '', /attachment/);
    const body = JSON.parse(exported.text);
    assert.equal(body.format, 'profile-scan.person-export/1');
    // Every row that names the person, in every table with a person column: each of its values is in the export.
    const { rows: tables } = await sql<{ table: string }>`
      select table_name as table from information_schema.columns
       where table_schema = 'public' and column_name = 'profile_id' and table_name not in ('person_links') order by 1`.execute(t.runtime.db);
    assert.ok(tables.length >= 6);
    const expected = new Set<string>();
    for (const { table } of tables) {
      const { rows } = await sql<{ row: unknown }>`select to_jsonb(x) as row from ${sql.table(table)} x where profile_id = ${profile.jane}`.execute(
        t.runtime.db,
      );
      for (const { row } of rows) strings(row, expected);
    }
    const person = await t.runtime.db.selectFrom('report_profiles').selectAll().where('id', '=', profile.jane).executeTakeFirstOrThrow();
    strings(person, expected);
    assert.ok(expected.has('Export Office 42') && expected.has('Head of Exports'));
    const text = exported.text;
    const got = strings(body);
    const missing = [...expected].filter((s) => !got.has(s) && !text.includes(JSON.stringify(s).slice(1, -1)));
    assert.deepEqual(missing, []);
    // The images themselves, whole.
    const images = body.people[0].evidence_images as { original_sha256: string; original_base64: string; preview_sha256: string; preview_base64: string }[];
    assert.ok(images.length > 0);
    for (const image of images) {
      assert.equal(createHash('sha256').update(Buffer.from(image.original_base64, 'base64')).digest('hex'), image.original_sha256);
      assert.equal(createHash('sha256').update(Buffer.from(image.preview_base64, 'base64')).digest('hex'), image.preview_sha256);
    }
    // Nothing of the neighbour.
    const neighbour = await t.runtime.db.selectFrom('profile_analyses').select('profile_data').where('profile_id', '=', profile.john).executeTakeFirstOrThrow();
    for (const value of ['neighbour-person', 'Neighbour Person', 'Chief Neighbour', profile.john, String(neighbour.profile_data.name)])
      assert.ok(!text.includes(value), value);
  });

  test('a member may neither export nor erase', async () => {
    const page = `/reports/${reportId}/people/${profile.jane}`;
    assert.doesNotMatch((await member.client.get(page)).text, /Erase this person/);
    assert.equal((await member.client.get(`${page}/export.json`)).status, 403);
    assert.equal((await member.client.submit(page, `${page}/erase`)).status, 403);
    assert.equal((await t.runtime.db.selectFrom('report_profiles').select('id').where('id', '=', profile.jane).execute()).length, 1);
  });

  test('erasing asks first, naming the person, then erases; the audit log records it without any value', async () => {
    const page = `/reports/${reportId}/people/${profile.jane}`;
    const asked = await admin.client.submit(page, `${page}/erase`);
    assert.equal(asked.status, 200);
    assert.match(asked.text, /<h1>Erase Exported Person from this report\?<\/h1>/);
    assert.equal((await t.runtime.db.selectFrom('report_profiles').select('id').where('id', '=', profile.jane).execute()).length, 1, 'asking changes nothing');
    const done = await admin.client.confirm(page, `${page}/erase`);
    assert.equal(done.status, 303);
    assert.equal(done.location, `/reports/${reportId}?done=erased`);
    assert.equal((await t.runtime.db.selectFrom('report_profiles').select('id').where('id', '=', profile.jane).execute()).length, 0);
    assert.equal((await admin.client.get(page)).status, 404);

    const log = await owner.client.get('/settings/privacy');
    assert.equal(log.status, 200, log.text);
    assert.match(log.text, /Person erased/);
    assert.match(log.text, /Person exported/);
    assert.equal((await admin.client.get('/settings/privacy')).status, 403, 'owners only');
    const entries = await t.runtime.db.selectFrom('audit_log').selectAll().where('workspace_ref', '=', tenant.workspaceId).execute();
    // Besides the operator's key of the tenant (issue_key), the two requests about personal data.
    assert.deepEqual(entries.map((e) => e.action).sort(), ['erase_person', 'export_person', 'issue_key']);
    assert.equal(entries.find((e) => e.action === 'erase_person')!.actor_ref, admin.userId);
    const hits = await findInCatalog(t.runtime.db, ['exported-person', 'Exported Person', 'Export Office 42', 'Head of Exports']);
    assert.deepEqual(
      hits.map((h) => h.table),
      [],
    );
  });

  test('deleting the workspace takes its exact name, then leaves nothing of it', async () => {
    const wrong = await owner.client.submit('/settings/privacy', '/settings/privacy/delete-workspace', { name: 'privacy workspace' });
    assert.equal(wrong.status, 422);
    assert.equal((await t.runtime.db.selectFrom('workspaces').select('id').where('id', '=', tenant.workspaceId).execute()).length, 1);
    assert.equal((await admin.client.submit('/settings', '/settings/privacy/delete-workspace', { name: 'Privacy workspace' })).status, 403);
    const hashes = (
      await t.runtime.db.selectFrom('evidence_images').select(['original_sha256', 'preview_sha256']).where('report_id', '=', reportId).execute()
    ).flatMap((e) => [e.original_sha256, e.preview_sha256]);
    assert.ok(hashes.length > 0);
    const done = await owner.client.submit('/settings/privacy', '/settings/privacy/delete-workspace', { name: 'Privacy workspace' });
    assert.equal(done.status, 303, done.text);
    const hits = await findInCatalog(t.runtime.db, [
      tenant.workspaceId,
      reportId,
      profile.john,
      'neighbour-person',
      'Neighbour Person',
      'Privacy workspace',
      owner.email,
      admin.email,
    ]);
    // The audit log keeps its records (the key issued, the export, the erasure, the deletion): who and which object, as ids, nothing else.
    assert.deepEqual(
      hits.map((h) => h.table),
      ['audit_log', 'audit_log', 'audit_log', 'audit_log'],
    );
    const media = handlerContext(t).media;
    for (const h of hashes) assert.equal(await media.get(h), null, h);
    assert.equal((await t.runtime.db.selectFrom('blob_deletions').select('sha256').execute()).length, 0);
  });
});
