/**
 * The other columns of a web CSV import (department, office …): kept per
 * person, shown on the people table and the person page, a group filter and
 * the search over them, repeated by the CSV export, kept through the
 * preview's edit step and a restore; never accepted nor shown by the API
 * (docs/web.md, "Imported columns"). Real server and PostgreSQL.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/app.js';
import { csrfOf, webUser, type WebUser } from '../support/web.js';

/** What Excel writes in a German locale: semicolons, a byte order mark, CRLF. */
const CSV =
  '\uFEFFProfile URL;Name;Department;Office\r\n' +
  'https://pronet.example/in/ada-lovelace;Ada Lovelace;Engineering;Berlin\r\n' +
  'https://pronet.example/in/grace-hopper;Grace Hopper;Engineering;Lisbon\r\n' +
  'https://pronet.example/in/mary-parker;Mary Parker;Sales;Berlin\r\n' +
  'https://pronet.example/in/bob-quiet;Bob Quiet;;\r\n';

/** The people table's names, in its order. */
function names(html: string): string[] {
  return [...html.matchAll(/<a href="\/reports\/[0-9a-f-]+\/people\/[0-9a-f-]+">([^<]*)<\/a>/g)].map((m) => m[1]);
}

function unescape(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

describe('web: the other columns of a CSV import', () => {
  let t: TestApp;
  let user: WebUser;
  let secret: string;
  let reportId: string;

  /** Posts the form's preview step, then commits what it shows; returns the report page's address. */
  async function previewAndCommit(path: string, fields: Record<string, string>, csv: string): Promise<string> {
    const form = new FormData();
    form.set('_csrf', csrfOf((await user.client.get(path === '/reports/new' ? path : `${path}`)).text));
    form.set('step', 'preview');
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    form.set('people', '');
    form.set('csv', new Blob([csv], { type: 'text/csv' }), 'people.csv');
    const preview = await user.client.postMultipart(path, form);
    assert.equal(preview.status, 200, preview.text.slice(0, 800));
    const commit = new FormData();
    commit.set('_csrf', csrfOf(preview.text));
    commit.set('step', 'commit');
    commit.set('payload', unescape(/name="payload" value="([^"]+)"/.exec(preview.text)![1]));
    // The new report's preview fixes a key; an import's keys are derived from the people it carries.
    const key = /name="idempotency_key" value="([^"]+)"/.exec(preview.text)?.[1];
    if (key) commit.set('idempotency_key', key);
    const done = await user.client.postMultipart(path, commit);
    assert.equal(done.status, 303, done.text.slice(0, 500));
    return done.location!;
  }

  before(async () => {
    t = await startTestApp();
    const tenant = await t.tenant({ name: 'Columns' });
    secret = tenant.secret;
    user = await webUser(t, tenant.workspaceId);
    const location = await previewAndCommit(
      '/reports/new',
      { name: 'Team audit', company_name: 'Acme', company_domain: 'acme.com', company_page: 'https://pronet.example/company/acme', mode: 'test' },
      CSV,
    );
    reportId = /^\/reports\/([0-9a-f-]+)\?/.exec(location)![1];
  });
  after(() => t?.close());

  test("each person's other columns are shown under their name in the table and on their page, by column name", async () => {
    const page = await user.client.get(`/reports/${reportId}`);
    assert.match(page.text, /Ada Lovelace<\/a><span class="sub">Department: Engineering · Office: Berlin<\/span>/);
    assert.match(page.text, /Bob Quiet<\/a>(?!<span class="sub">Department)/, 'empty cells are left out');
    const ada = /href="(\/reports\/[0-9a-f-]+\/people\/[0-9a-f-]+)">Ada Lovelace</.exec(page.text)![1];
    const person = await user.client.get(ada);
    assert.match(person.text, /<dt>Department<\/dt><dd>Engineering<\/dd><dt>Office<\/dt><dd>Berlin<\/dd>/);
  });

  test('the group filter offers every value of every imported column and keeps only that group', async () => {
    const page = await user.client.get(`/reports/${reportId}`);
    const select = /<select id="group" name="group">([\s\S]*?)<\/select>/.exec(page.text)![1];
    assert.match(select, /^<option[^>]*>Everyone<\/option>/);
    assert.deepEqual(
      [...select.matchAll(/<optgroup label="([^"]+)">/g)].map((m) => m[1]),
      ['Department', 'Office'],
    );
    assert.deepEqual(
      [...select.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]),
      ['Department=Engineering', 'Department=Sales', 'Office=Berlin', 'Office=Lisbon'],
    );
    const engineering = await user.client.get(`/reports/${reportId}?group=${encodeURIComponent('Department=Engineering')}`);
    assert.deepEqual(names(engineering.text), ['Ada Lovelace', 'Grace Hopper']);
    assert.match(engineering.text, /2 of 4 people match/);
    assert.match(engineering.text, /<option value="Department=Engineering" selected>/);
    const berlin = await user.client.get(`/reports/${reportId}?group=${encodeURIComponent('Office=Berlin')}`);
    assert.deepEqual(names(berlin.text), ['Ada Lovelace', 'Mary Parker']);
  });

  test("search finds people by an imported column's value", async () => {
    assert.deepEqual(names((await user.client.get(`/reports/${reportId}?q=lisbon`)).text), ['Grace Hopper']);
  });

  test('the CSV export repeats the imported columns, named as imported (human) or imported:<name> (machine), for the filtered people', async () => {
    const human = await user.client.get(`/reports/${reportId}/people.csv?group=${encodeURIComponent('Office=Berlin')}`);
    const lines = human.text
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    assert.match(lines[0], /,Advice 3,Private link,Department,Office,Since previous scan,/);
    assert.equal(lines.length, 3, 'the header and the two people of the group');
    assert.match(lines[1], /^Ada Lovelace,.*,Engineering,Berlin(,|$)/);
    assert.match(lines[2], /^Mary Parker,.*,Sales,Berlin(,|$)/);
    const machine = await user.client.get(`/reports/${reportId}/people.csv?columns=machine`);
    assert.match(machine.text.split('\r\n')[0], /,advice_3,private_link,imported:Department,imported:Office,/);
  });

  test("the API's roster has the four supplied fields only; an API body carrying columns is refused", async () => {
    const roster = await t.request('GET', `/api/v1/reports/${reportId}/profiles`, { key: secret });
    assert.equal(roster.status, 200);
    assert.equal(roster.body.data.length, 4);
    assert.doesNotMatch(roster.text, /Engineering|Berlin|imported|columns/);
    const refused = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
      key: secret,
      headers: { 'idempotency-key': 'columns-via-api' },
      body: { profiles: [{ pronet_url: 'https://pronet.example/in/new-person', columns: { Department: 'Sales' } }] },
    });
    assert.equal(refused.status, 422, refused.text);
  });

  test("editing the preview keeps the imported columns: the form's text gets a header naming them", async () => {
    const form = new FormData();
    form.set('_csrf', csrfOf((await user.client.get(`/reports/${reportId}/import`)).text));
    form.set('step', 'preview');
    form.set('mode', 'test');
    form.set('people', '');
    form.set('csv', new Blob(['url,name,Team\nhttps://pronet.example/in/new-one,New One,Growth\n'], { type: 'text/csv' }), 'people.csv');
    const preview = await user.client.postMultipart(`/reports/${reportId}/import`, form);
    const edit = new FormData();
    edit.set('_csrf', csrfOf(preview.text));
    edit.set('step', 'edit');
    edit.set('payload', unescape(/name="payload" value="([^"]+)"/.exec(preview.text)![1]));
    const back = await user.client.postMultipart(`/reports/${reportId}/import`, edit);
    assert.equal(back.status, 200);
    const text = unescape(/<textarea[^>]*name="people"[^>]*>([\s\S]*?)<\/textarea>/.exec(back.text)![1]);
    assert.equal(text, 'pronet_url,name,title,headline,Team\nhttps://pronet.example/in/new-one,New One,,,Growth\n');
  });

  test('a restored person keeps their stored columns, and gains new ones', async () => {
    const page = await user.client.get(`/reports/${reportId}`);
    const mary = /href="(\/reports\/[0-9a-f-]+\/people\/[0-9a-f-]+)">Mary Parker</.exec(page.text)![1];
    await user.client.confirm(mary, `${mary}/remove`);
    const done = await previewAndCommit(
      `/reports/${reportId}/import`,
      { mode: 'test' },
      'url,Department,Level\nhttps://pronet.example/in/mary-parker,Marketing,Senior\n',
    );
    assert.match(done, /added=0&restored=1&present=0$/);
    const person = await user.client.get(mary);
    assert.match(person.text, /<dt>Department<\/dt><dd>Sales<\/dd><dt>Level<\/dt><dd>Senior<\/dd><dt>Office<\/dt><dd>Berlin<\/dd>/);
  });
});
