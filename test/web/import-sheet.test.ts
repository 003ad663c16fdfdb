/**
 * Real spreadsheets on the web's add-people page: the URL column found by its
 * header or chosen on the preview, URLs without a scheme, wrong kinds of URLs
 * refused with the spreadsheet row and the value quoted, extra columns kept
 * or listed as ignored, and a list longer than one import added as several
 * idempotent imports behind one preview, resumed without doubles when it
 * stopped halfway.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { ManualClock } from '../../src/clock.js';
import { HIGH_LIMITS, startTestApp, type TestApp } from '../support/app.js';
import { csrfOf, webUser, type WebUser } from '../support/web.js';

function unescape(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** A CSV as an HR tool exports it: header "LinkedIn URL", URLs with and without a scheme, a department column. */
function hrExport(count: number, tag: string): string {
  const url = (i: number) =>
    i % 3 === 0 ? `www.linkedin.com/in/${tag}-${i}` : i % 3 === 1 ? `linkedin.com/in/${tag}-${i}/` : `https://www.linkedin.com/in/${tag}-${i}`;
  const rows = Array.from({ length: count }, (_, i) => `Person ${i},${url(i)},${i % 2 === 0 ? 'Sales' : 'Engineering'}`);
  return ['Employee,LinkedIn URL,Department', ...rows].join('\r\n') + '\r\n';
}

describe('web: importing real spreadsheets', () => {
  let t: TestApp;
  let clock: ManualClock;
  let user: WebUser;
  let secret: string;
  /** A second workspace whose limit of 200 submitted rows a minute stops a 300-person list after two imports. */
  let limited: { user: WebUser; secret: string };

  before(async () => {
    clock = new ManualClock('2026-03-02T10:00:00Z');
    t = await startTestApp({ clock });
    const tenant = await t.tenant({ name: 'Sheets' });
    secret = tenant.secret;
    user = await webUser(t, tenant.workspaceId, 'member', 'Sam Sheets');
    const small = await t.tenant({ name: 'Small', limits: { ...HIGH_LIMITS, submitted_profiles_per_minute_per_workspace: 200 } });
    limited = { user: await webUser(t, small.workspaceId, 'member', 'Lee Limited'), secret: small.secret };
  });
  after(async () => t.close());

  async function newReport(name: string, key = secret): Promise<string> {
    const created = await t.request('POST', '/api/v1/reports', {
      key,
      headers: { 'idempotency-key': `sheet-${name.replace(/\W/g, '-')}` },
      body: { name, company: { name: 'Acme', domain: 'acme.com', pronet_company_url: 'https://pronet.example/company/acme' } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.data.report.id;
  }

  async function preview(reportId: string, csv: string, as = user) {
    const form = new FormData();
    form.set('_csrf', csrfOf((await as.client.get(`/reports/${reportId}/import`)).text));
    form.set('step', 'preview');
    form.set('mode', 'test');
    form.set('people', '');
    form.set('csv', new Blob([csv], { type: 'text/csv' }), 'people.csv');
    return as.client.postMultipart(`/reports/${reportId}/import`, form);
  }

  async function commit(reportId: string, previewText: string, as = user) {
    const form = new FormData();
    form.set('_csrf', csrfOf(previewText));
    form.set('step', 'commit');
    form.set('payload', unescape(/name="payload" value="([^"]+)"/.exec(previewText)![1]));
    return as.client.postMultipart(`/reports/${reportId}/import`, form);
  }

  const profileCount = async (reportId: string, key = secret) =>
    (await t.request('GET', `/api/v1/reports/${reportId}`, { key })).body.data.profile_count as number;
  const receiptCount = async (reportId: string) =>
    Number((await sql<{ n: number }>`select count(*)::int as n from import_receipts where report_id = ${reportId}`.execute(t.runtime.db)).rows[0].n);

  test('a 300-row export with a "LinkedIn URL" header and URLs without https:// is previewed once and added as three imports', async () => {
    clock.advance(60_000);
    const reportId = await newReport('Three hundred');
    const shown = await preview(reportId, hrExport(300, 'all'));
    assert.equal(shown.status, 200, /role="alert">(.*?)<\/div>/s.exec(shown.text)?.[1]);
    assert.match(shown.text, /<dt>Submitted<\/dt><dd>300<\/dd>/);
    assert.match(shown.text, /<dt>Will be added<\/dt><dd>300<\/dd>/);
    assert.match(shown.text, /The 300 people are added as 3 imports of at most 100/);
    assert.match(
      shown.text,
      /<td>Row 301<\/td><td>Person 299<span class="sub">https:\/\/www\.linkedin\.com\/in\/all-299<\/span><span class="sub">Department: Engineering<\/span>/,
    );
    assert.match(shown.text, /<td>Row 2<\/td><td>Person 0<span class="sub">https:\/\/www\.linkedin\.com\/in\/all-0<\/span>/, 'https:// added');
    assert.equal(await profileCount(reportId), 0, 'the preview changes nothing');

    const done = await commit(reportId, shown.text);
    assert.equal(done.status, 303, done.text.slice(0, 300));
    assert.match(done.location ?? '', /done=imported&added=300&restored=0&present=0$/);
    assert.equal(await profileCount(reportId), 300);
    assert.equal(await receiptCount(reportId), 3, 'three imports of at most 100 (the contract limit)');
    const departments = await sql<{ n: number }>`select count(*)::int as n from report_profiles
      where report_id = ${reportId} and imported_columns ->> 'Department' = 'Sales'`.execute(t.runtime.db);
    assert.equal(departments.rows[0].n, 150, 'the department column is kept for every person');
  });

  test('closed halfway and sent again: the imports already done replay, the rest are added, nobody twice', async () => {
    clock.advance(60_000);
    const reportId = await newReport('Resumed', limited.secret);
    const csv = hrExport(300, 'resume');
    const first = await preview(reportId, csv, limited.user);
    assert.equal(first.status, 200);
    // The workspace admits 200 rows a minute: the third import is refused, as if the page had gone away after two.
    const stopped = await commit(reportId, first.text, limited.user);
    assert.equal(stopped.status, 429, stopped.text.slice(0, 300));
    assert.equal(await profileCount(reportId, limited.secret), 200);
    assert.equal(await receiptCount(reportId), 2);

    clock.advance(60_000);
    // The page reopened: the same file uploaded again gives the same imports.
    const again = await preview(reportId, csv, limited.user);
    assert.match(again.text, /<dt>Will be added<\/dt><dd>100<\/dd>/);
    assert.match(again.text, /<dt>Already on the report<\/dt><dd>200<\/dd>/);
    const resumed = await commit(reportId, again.text, limited.user);
    assert.equal(resumed.status, 303, resumed.text.slice(0, 300));
    assert.match(resumed.location ?? '', /added=300&restored=0&present=0$/, 'the replayed imports report what they did');
    assert.equal(await profileCount(reportId, limited.secret), 300);
    assert.equal(await receiptCount(reportId), 3, 'the two done imports were replayed, not repeated');

    clock.advance(60_000);
    const twice = await commit(reportId, again.text, limited.user);
    assert.equal(twice.status, 303);
    assert.equal(await profileCount(reportId, limited.secret), 300);
    assert.equal(await receiptCount(reportId), 3);
  });

  test('several columns could hold the URLs: the preview offers a choice and reads the people again from the chosen one', async () => {
    const reportId = await newReport('Two URL columns');
    const csv = 'Name,URL,LinkedIn\nAna,https://acme.example/team/ana,linkedin.com/in/ana\nBo,https://acme.example/team/bo,linkedin.com/in/bo\n';
    const shown = await preview(reportId, csv);
    assert.equal(shown.status, 200);
    assert.match(shown.text, /<option value="URL">URL<\/option><option value="LinkedIn" selected>LinkedIn<\/option>/);
    assert.match(shown.text, /https:\/\/linkedin\.com\/in\/ana/);
    const sheet = unescape(/name="sheet" value="([^"]+)"/.exec(shown.text)![1]);
    const form = new FormData();
    form.set('_csrf', csrfOf(shown.text));
    form.set('step', 'preview');
    form.set('mode', 'test');
    form.set('sheet', sheet);
    form.set('url_column', 'URL');
    const chosen = await user.client.postMultipart(`/reports/${reportId}/import`, form);
    assert.equal(chosen.status, 200);
    assert.match(chosen.text, /<option value="URL" selected>URL<\/option>/);
    const payload = JSON.parse(unescape(/name="payload" value="([^"]+)"/.exec(chosen.text)![1]));
    assert.deepEqual(
      payload.profiles.map((p: { pronet_url: string; columns?: Record<string, string> }) => [p.pronet_url, p.columns?.LinkedIn]),
      [
        ['https://acme.example/team/ana', 'linkedin.com/in/ana'],
        ['https://acme.example/team/bo', 'linkedin.com/in/bo'],
      ],
    );
  });

  test('wrong kinds of URLs are refused, each with its own message, naming the spreadsheet row and quoting the value', async () => {
    const reportId = await newReport('Wrong kinds');
    const csv = [
      'Nom;URL du profil;Équipe',
      'Ana;linkedin.com/in/ana;Ventes',
      'Acme;https://www.linkedin.com/company/acme/;Ventes',
      '',
      'Post;https://www.linkedin.com/posts/ana_activity-1;Ventes',
      'Search;https://www.linkedin.com/search/results/people/?keywords=ana;Ventes',
      'Nobody;;Ventes',
    ].join('\n');
    const res = await preview(reportId, csv);
    assert.equal(res.status, 422);
    const problems = [...res.text.matchAll(/<li>([^<]*)<\/li>/g)].map((m) => unescape(m[1])).filter((p) => p.startsWith('Row '));
    assert.deepEqual(
      problems.map((p) => p.replace(/: .*?(company page|post|search page|missing).*$/, ': $1')),
      ['Row 3: company page', 'Row 5: post', 'Row 6: search page', 'Row 7: missing'],
    );
    assert.match(problems[0], /^Row 3: “https:\/\/www\.linkedin\.com\/company\/acme\/” is a company page, not a person's profile/);
    assert.equal(await profileCount(reportId), 0);
  });

  /** The hidden fields of the page's "Leave out … and preview the rest" form, or null when it offers none. */
  function leaveOutForm(html: string): Record<string, string> | null {
    const form = /<form[^>]*>(?:(?!<\/form>).)*name="leave_out"(?:(?!<\/form>).)*<\/form>/s.exec(html)?.[0];
    if (!form) return null;
    return Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], unescape(m[2])]));
  }

  async function sendForm(path: string, fields: Record<string, string>, as = user) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    return as.client.postMultipart(path, form);
  }

  test('a file with a few bad rows can be added without them: the preview lists the rows left out and why, and only the others are added', async () => {
    const reportId = await newReport('Leave out');
    const csv = [
      'LinkedIn URL,Department',
      'linkedin.com/in/ana,Sales',
      'https://www.linkedin.com/company/acme/,Sales',
      'linkedin.com/in/bo,Sales',
      ',Sales',
    ].join('\n');
    const refused = await preview(reportId, csv);
    assert.equal(refused.status, 422);
    const fields = leaveOutForm(refused.text);
    assert.ok(fields, 'the page offers to leave the rows out');
    assert.match(refused.text, /Leave out these 2 rows and preview the rest/);
    const previewed = await sendForm(`/reports/${reportId}/import`, fields);
    assert.equal(previewed.status, 200);
    assert.match(previewed.text, /2 rows are left out, as you chose/);
    assert.match(unescape(previewed.text), /Row 3: “https:\/\/www\.linkedin\.com\/company\/acme\/” is a company page/);
    assert.match(previewed.text, /Row 5: the profile URL is missing/);
    assert.equal(await profileCount(reportId), 0, 'a preview saves nothing');
    const done = await commit(reportId, previewed.text);
    assert.equal(done.status, 303);
    assert.equal(await profileCount(reportId), 2);
  });

  test('a new report keeps its name and company when the bad rows are left out', async () => {
    const form = new FormData();
    form.set('_csrf', csrfOf((await user.client.get('/reports/new')).text));
    form.set('step', 'preview');
    for (const [name, value] of Object.entries({
      name: 'Left out audit',
      company_name: 'Acme',
      company_domain: 'acme.com',
      company_page: 'https://pronet.example/company/acme',
      mode: 'test',
      people: '',
    }))
      form.set(name, value);
    form.set('csv', new Blob(['LinkedIn URL\nlinkedin.com/in/ana\nn/a\n'], { type: 'text/csv' }), 'people.csv');
    const refused = await user.client.postMultipart('/reports/new', form);
    assert.equal(refused.status, 422);
    const fields = leaveOutForm(refused.text);
    assert.ok(fields);
    assert.match(refused.text, /Leave out this row and preview the rest/);
    const previewed = await sendForm('/reports/new', fields);
    assert.equal(previewed.status, 200);
    assert.match(previewed.text, /Check and create “Left out audit”/);
    assert.match(previewed.text, /Row 3: “n\/a” is not a profile URL/);
  });

  test('a problem with the whole list (no URL column, nobody left) offers no leaving out', async () => {
    const reportId = await newReport('Nothing to keep');
    assert.equal(leaveOutForm((await preview(reportId, 'Employee,Team\nAna,Sales\n')).text), null);
    assert.equal(leaveOutForm((await preview(reportId, 'LinkedIn URL\nn/a\n')).text), null);
  });

  test("the API's rules name the row and quote the value on the page, while the API's own error never echoes it", async () => {
    const reportId = await newReport('Long title');
    const title = `Head of ${'x'.repeat(200)}`;
    const res = await preview(reportId, `Profile URL,Job title\nlinkedin.com/in/ana,CTO\nlinkedin.com/in/bo,${title}\n`);
    assert.equal(res.status, 422);
    assert.match(res.text, /Row 3: the title “Head of x{71}…” is too long\./);
    const api = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports?validation_only=true`, {
      key: secret,
      body: { profiles: [{ pronet_url: 'https://linkedin.com/in/bo', title }] },
    });
    assert.equal(api.status, 422);
    assert.deepEqual(api.body.error.details, [{ row_number: 1, field: 'title', code: 'too_long' }]);
    assert.ok(!JSON.stringify(api.body).includes('Head of'), 'the API echoes no submitted value');
  });

  test('a header with no URL column names the headers it expects', async () => {
    const reportId = await newReport('No URL column');
    const res = await preview(reportId, 'Employee,Team\nAna,Sales\n');
    assert.equal(res.status, 422);
    assert.match(
      res.text,
      /Row 1: No column of the header holds the profile URLs: name it “LinkedIn URL”, “Profile URL”, “URL”, “LinkedIn-Profil”, “URL du profil”, “URL de LinkedIn”/,
    );
  });

  test('other columns are kept as imported columns; beyond the limit they are listed as not imported on the preview', async () => {
    const reportId = await newReport('Many columns');
    const extra = Array.from({ length: 12 }, (_, i) => `Field ${i + 1}`);
    const res = await preview(reportId, `LinkedIn-Profil,${extra.join(',')}\nlinkedin.com/in/ana,${extra.map((_, i) => `v${i + 1}`).join(',')}\n`);
    assert.equal(res.status, 200);
    assert.match(res.text, /Field 1: v1 · Field 2: v2/);
    assert.match(res.text, /Columns not imported:/);
    assert.match(res.text, /<li>“Field 11”: at most 10 other columns are kept<\/li><li>“Field 12”: at most 10 other columns are kept<\/li>/);
  });

  test('a new report from a 150-row file is created with the first 100 and the rest imported into it, once however often it is confirmed', async () => {
    const form = new FormData();
    form.set('_csrf', csrfOf((await user.client.get('/reports/new')).text));
    form.set('step', 'preview');
    form.set('name', 'Big start');
    form.set('company_name', 'Acme');
    form.set('company_domain', 'acme.com');
    form.set('company_page', 'https://pronet.example/company/acme');
    form.set('mode', 'test');
    form.set('people', '');
    form.set('csv', new Blob([hrExport(150, 'new')], { type: 'text/csv' }), 'people.csv');
    const shown = await user.client.postMultipart('/reports/new', form);
    assert.equal(shown.status, 200, /role="alert">(.*?)<\/div>/s.exec(shown.text)?.[1]);
    assert.match(shown.text, /<dt>People submitted<\/dt><dd>150<\/dd>/);
    assert.match(shown.text, /The 150 people are added as 2 imports of at most 100/);
    const confirm = () => {
      const commit = new FormData();
      commit.set('_csrf', csrfOf(shown.text));
      commit.set('step', 'commit');
      commit.set('payload', unescape(/name="payload" value="([^"]+)"/.exec(shown.text)![1]));
      commit.set('idempotency_key', /name="idempotency_key" value="([^"]+)"/.exec(shown.text)![1]);
      return user.client.postMultipart('/reports/new', commit);
    };
    const created = await confirm();
    assert.equal(created.status, 303, created.text.slice(0, 300));
    const reportId = /^\/reports\/([0-9a-f-]+)\?done=created$/.exec(created.location ?? '')![1];
    assert.equal(await profileCount(reportId), 150);
    assert.equal(await receiptCount(reportId), 1, 'the 50 after the first 100 came in one import');
    const again = await confirm();
    assert.equal(again.location, created.location, 'a second confirmation replays the creation and the import');
    assert.equal(await profileCount(reportId), 150);
    assert.equal(await receiptCount(reportId), 1);
  });
});
