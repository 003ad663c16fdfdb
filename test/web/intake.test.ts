/**
 * Web workspace, creating a report and adding people:
 * pasted URLs or an uploaded CSV, the preview before the commit with the
 * API's rules and counts, idempotent commits, archived reports refusing
 * people, and bad input answered on the form without saving anything.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../support/app.js';
import { csrfOf, webUser, type WebUser } from '../support/web.js';

describe('web workspace: create a report, add people', () => {
  let t: TestApp;
  let user: WebUser;
  let admin: WebUser;
  let secret: string;
  before(async () => {
    t = await startTestApp();
    const tenant = await t.tenant({ name: 'Intake' });
    secret = tenant.secret;
    user = await webUser(t, tenant.workspaceId, 'member', 'Mia Member');
    admin = await webUser(t, tenant.workspaceId, 'admin', 'Ada Admin');
  });
  after(async () => t.close());

  const reportCount = async () => Number((await sql<{ n: number }>`select count(*)::int as n from reports`.execute(t.runtime.db)).rows[0].n);

  function createForm(token: string, csv: string | null, pasted = '') {
    const form = new FormData();
    form.set('_csrf', token);
    form.set('step', 'preview');
    form.set('name', 'Spring audit');
    form.set('company_name', 'Acme');
    form.set('company_domain', 'www.acme.co.uk');
    form.set('company_page', 'https://pronet.example/company/acme');
    form.set('mode', 'test');
    form.set('people', pasted);
    form.set('csv', new Blob(csv === null ? [] : [csv], { type: 'text/csv' }), csv === null ? '' : 'people.csv');
    return form;
  }

  test('create from a CSV: the preview shows the plan (duplicates kept once), the commit creates the report once', async () => {
    const token = csrfOf((await user.client.get('/reports/new')).text);
    const csv =
      'pronet_url,name,title\n' +
      'https://pronet.example/in/jane-doe,Jane Doe,CTO\n' +
      'https://www.pronet.example/in/Jane-Doe/,Jane again,\n' +
      'https://pronet.example/in/quiet-bob,Bob,\n';
    const before = await reportCount();
    const preview = await user.client.postMultipart('/reports/new', createForm(token, csv));
    assert.equal(preview.status, 200, /role="alert">(.*?)<\/div>/s.exec(preview.text)?.[1]);
    assert.match(preview.text, /Check and create/);
    assert.match(preview.text, /<dt>People submitted<\/dt><dd>3<\/dd>/);
    assert.match(preview.text, /<dt>Will be added and scanned<\/dt><dd>2<\/dd>/);
    assert.match(preview.text, /<td>Row 3<\/td><td>Jane again.*?Duplicate of row 2/, 'rows are named as the spreadsheet shows them');
    assert.equal(await reportCount(), before, 'the preview changes nothing');

    const payload = /name="payload" value="([^"]+)"/
      .exec(preview.text)![1]
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<');
    const key = /name="idempotency_key" value="([^"]+)"/.exec(preview.text)![1];
    const commit = () => {
      const form = new FormData();
      form.set('_csrf', csrfOf(preview.text));
      form.set('step', 'commit');
      form.set('payload', payload);
      form.set('idempotency_key', key);
      return user.client.postMultipart('/reports/new', form);
    };
    const created = await commit();
    assert.equal(created.status, 303);
    const reportId = /^\/reports\/([0-9a-f-]+)\?done=created$/.exec(created.location ?? '')?.[1];
    assert.ok(reportId, created.location ?? '');
    const again = await commit();
    assert.equal(again.location, created.location, 'a second click replays, it does not create another report');
    assert.equal(await reportCount(), before + 1);

    const api = await t.request('GET', `/api/v1/reports/${reportId}`, { key: secret });
    assert.equal(api.body.data.profile_count, 2);
    assert.equal(api.body.data.company.root_domain, 'acme.co.uk');
    assert.equal(api.body.data.analysis_state, 'queued');
    const page = await user.client.get(created.location!);
    assert.match(page.text, /The report was created/);
    assert.match(page.text, /live\.js/, 'live progress while scans are queued');
    assert.match(page.text, /data-progress-url="\/reports\/[0-9a-f-]+\/progress"/);
    const progress = await user.client.get(`/reports/${reportId}/progress`);
    assert.equal(progress.status, 200);
    const body = JSON.parse(progress.text);
    assert.equal(body.done, false);
    assert.equal(body.runs.length, 2);
  });

  test('bad input is answered on the form, naming the row and field, and saves nothing', async () => {
    const token = csrfOf((await user.client.get('/reports/new')).text);
    const before = await reportCount();
    const res = await user.client.postMultipart(
      '/reports/new',
      createForm(token, null, 'https://pronet.example/in/ok\nftp://pronet.example/in/bad\nnot a url at all'),
    );
    assert.equal(res.status, 422);
    assert.match(res.text, /Line 2 of the pasted list: “ftp:\/\/pronet\.example\/in\/bad” is not a profile URL/);
    assert.match(res.text, /Line 3 of the pasted list: “not a url at all” is not a profile URL/);
    assert.match(res.text, /ftp:\/\/pronet\.example\/in\/bad/, 'the form keeps what was typed');
    const many = Array.from({ length: 501 }, (_, i) => `https://pronet.example/in/p-${i}`).join('\n');
    const tooMany = await user.client.postMultipart('/reports/new', createForm(token, null, many));
    assert.equal(tooMany.status, 422);
    assert.match(tooMany.text, /At most 500 people at a time \(you sent 501\)/);
    const noCompany = createForm(token, null, '');
    noCompany.set('company_page', 'not a url');
    const badCompany = await user.client.postMultipart('/reports/new', noCompany);
    assert.equal(badCompany.status, 422);
    assert.match(badCompany.text, /company page URL/);
    assert.equal(await reportCount(), before);
  });

  test('add people: the API preview (added, restored, already present, duplicates), then the commit', async () => {
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'intake-import-1' },
      body: {
        name: 'Import target',
        company: { name: 'Acme', domain: 'acme.com', pronet_company_url: 'https://pronet.example/company/acme' },
        profiles: [{ pronet_url: 'https://pronet.example/in/already' }, { pronet_url: 'https://pronet.example/in/gone' }],
      },
    });
    const reportId = created.body.data.report.id;
    const gone = created.body.data.profiles.rows[1].profile_id;
    // Remove one through the page (an admin: members may not remove), so the member's import restores it.
    await admin.client.confirm(`/reports/${reportId}/people/${gone}`, `/reports/${reportId}/people/${gone}/remove`);

    const page = await user.client.get(`/reports/${reportId}/import`);
    assert.equal(page.status, 200);
    const form = new FormData();
    form.set('_csrf', csrfOf(page.text));
    form.set('step', 'preview');
    form.set('mode', 'test');
    form.set(
      'people',
      'https://pronet.example/in/already\nhttps://pronet.example/in/gone\nhttps://pronet.example/in/new-one\nhttps://pronet.example/in/new-one',
    );
    form.set('csv', new Blob([]), '');
    const preview = await user.client.postMultipart(`/reports/${reportId}/import`, form);
    assert.equal(preview.status, 200, preview.text.slice(0, 300));
    // Same counts as the API's validation_only preview of the same rows.
    const api = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports?validation_only=true`, {
      key: secret,
      body: { profiles: ['already', 'gone', 'new-one', 'new-one'].map((s) => ({ pronet_url: `https://pronet.example/in/${s}` })) },
    });
    const c = api.body.data.counts;
    for (const [label, value] of [
      ['Will be added', c.would_add],
      ['Will be restored', c.would_restore],
      ['Already on the report', c.already_present],
      ['Duplicates \\(skipped\\)', c.duplicate_in_input],
    ] as const) {
      assert.match(preview.text, new RegExp(`<dt>${label}</dt><dd>${value}</dd>`), label);
    }
    assert.deepEqual([c.would_add, c.would_restore, c.already_present, c.duplicate_in_input], [1, 1, 1, 1]);
    assert.match(preview.text, /restored with its details and history/);

    const commit = new FormData();
    commit.set('_csrf', csrfOf(preview.text));
    commit.set('step', 'commit');
    commit.set(
      'payload',
      /name="payload" value="([^"]+)"/
        .exec(preview.text)![1]
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&'),
    );
    const done = await user.client.postMultipart(`/reports/${reportId}/import`, commit);
    assert.equal(done.status, 303);
    assert.match(done.location ?? '', /done=imported&added=1&restored=1&present=1$/);
    assert.equal((await t.request('GET', `/api/v1/reports/${reportId}`, { key: secret })).body.data.profile_count, 3);

    // An archived report (archived by an admin) refuses people.
    await admin.client.confirm(`/reports/${reportId}`, `/reports/${reportId}/archive`, { archived: '1' });
    assert.equal((await user.client.get(`/reports/${reportId}/import`)).status, 409);
  });
});
