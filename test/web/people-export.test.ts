/**
 * Advice a person can act on and exports for a mail merge (real server,
 * PostgreSQL and scan worker, simulator profiles): the company's display
 * name fills the advice, observed values carry their units, the team's
 * actions are listed once on the report page and left out of each person's
 * list; the people CSV (either separator, remembered per user) and the .xlsx
 * have one row per person with three fixes, typed cells and neutralised
 * formulas; the export made right after creating links carries them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { CHECKS } from '../../src/domain/checks/catalog.js';
import { observedValueText } from '../../src/domain/observed-value.js';
import { reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { csrfOf, webUser, type WebUser } from '../support/web.js';

const FORMULA = '=HYPERLINK("http://evil.test","click")';
const NAMES = ['Jürgen Müller', 'Zoë 🚀 Star', FORMULA, 'Ann Able', 'Ben Baker', 'Cat Cole'];
const placeholder = /\[company name\]|\{company\}/i;

function decode(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replaceAll('&amp;', '&')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .trim();
}

describe('web: advice in plain words and exports for a mail merge', () => {
  let t: TestApp;
  let owner: WebUser;
  let tenant: Awaited<ReturnType<TestApp['tenant']>>;
  let reportId: string;
  let records: any[];

  before(async () => {
    t = await startTestApp();
    tenant = await t.tenant();
    owner = await webUser(t, tenant.workspaceId);
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': 'people-export' },
      body: reportBody({
        company: { name: 'Acme GmbH', domain: 'www.acme.co.uk', pronet_company_url: 'https://pronet.example/company/acme' },
        profiles: NAMES.map((name, i) => ({ pronet_url: `https://pronet.example/in/export-${i + 1}`, name })),
      }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    await t.startWorker(4);
    await scansFinished(t, tenant.secret, reportId, NAMES.length);
    records = (await t.request('GET', `/api/v1/reports/${reportId}/analysis/profiles?limit=25`, { key: tenant.secret })).body.data;
  });
  after(() => t?.close());

  /** The checks at least 60 % of the analyzed people should optimize. */
  const teamKeys = () =>
    new Set(
      CHECKS.filter(
        (c) => records.filter((r) => r.analysis.checks.find((x: any) => x.key === c.key)?.outcome === 'optimize').length >= 0.6 * records.length,
      ).map((c) => c.key),
    );

  test("the advice names the company without its legal form, and the lead's chosen name once saved", async () => {
    const record = records.find((r) => r.analysis.checks.some((c: any) => c.outcome !== 'good' && placeholder.test(c.recommendation)))!;
    assert.ok(record, 'someone has advice with a company placeholder');
    let page = await owner.client.get(`/reports/${reportId}/people/${record.profile_id}`);
    const advice = () => [...page.text.matchAll(/Recommendation:<\/span> ([^<]*)</g)].map((m) => decode(m[1]));
    assert.ok(advice().length > 0);
    assert.ok(!advice().some((a) => placeholder.test(a) || a.includes('GmbH')), advice().join('\n'));
    assert.ok(advice().some((a) => /\bAcme\b/.test(a)));

    const saved = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/company-name`, { display_company_name: 'ACME Robotics' });
    assert.equal(saved.status, 303);
    page = await owner.client.get(`/reports/${reportId}/people/${record.profile_id}`);
    assert.ok(advice().some((a) => a.includes('ACME Robotics')));
    const report = await owner.client.get(`/reports/${reportId}`);
    assert.match(report.text, /id="display_company_name" name="display_company_name" value="ACME Robotics"/);
    // The API's report record keeps the contract's fields: the display name is the web's own.
    const api = await t.request('GET', `/api/v1/reports/${reportId}`, { key: tenant.secret });
    assert.ok(!JSON.stringify(api.body).includes('ACME Robotics'));

    const reset = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/company-name`, { display_company_name: '' });
    assert.equal(reset.status, 303);
    assert.match((await owner.client.get(`/reports/${reportId}`)).text, /name="display_company_name" value="Acme"/);
  });

  test('every observed value on a person page carries its unit or meaning, never a bare number', async () => {
    for (const record of records.slice(0, 3)) {
      const page = await owner.client.get(`/reports/${reportId}/people/${record.profile_id}`);
      const observed = [...page.text.matchAll(/Observed:<\/span> ([^<]*)</g)].map((m) => decode(m[1]));
      assert.equal(observed.length, record.analysis.checks.length);
      for (const value of observed) assert.doesNotMatch(value, /^\d+(\.\d+)?$/, 'a bare number');
      for (const check of record.analysis.checks) {
        assert.ok(observed.includes(observedValueText(check.key, check.observed_value)), `${check.key}: ${check.observed_value}`);
      }
    }
  });

  test("the team's actions are listed once on the report page and left out of each person's fix-first list", async () => {
    const team = teamKeys();
    assert.ok(team.size > 0, 'the simulated team has checks most people should fix');
    const report = await owner.client.get(`/reports/${reportId}`);
    const section = report.text.slice(report.text.indexOf('id="team-heading"'), report.text.indexOf('id="people-heading"'));
    const listed = [...section.matchAll(/<strong>([^<]*)<\/strong>/g)].map((m) => decode(m[1]));
    assert.deepEqual(new Set(listed), new Set(CHECKS.filter((c) => team.has(c.key)).map((c) => c.title)));
    for (const record of records) {
      const page = await owner.client.get(`/reports/${reportId}/people/${record.profile_id}`);
      const fix = page.text.slice(page.text.indexOf('id="fix-heading"'), page.text.indexOf('id="findings-heading"'));
      const own = [...fix.matchAll(/<a href="#check-([a-z_.]+)">/g)].map((m) => m[1]);
      for (const key of own) assert.ok(!team.has(key), `${key} is a team action`);
      const hasTeamGap = record.analysis.checks.some((c: any) => c.outcome === 'optimize' && team.has(c.key));
      assert.equal(fix.includes('id="team-actions-note"'), hasTeamGap, 'the team actions they share are named once');
    }
  });

  test('the people table shows the weighted score, and the API keeps the contract score (good of answered)', async () => {
    const report = await owner.client.get(`/reports/${reportId}`);
    assert.match(report.text, />Weighted score</);
    const record = records[0];
    const counts = record.analysis.counts;
    assert.equal(counts.score_pct, Math.round((counts.good / (counts.good + counts.optimize)) * 1000) / 10);
    const weights = new Map(CHECKS.map((c) => [c.key, c.impact]));
    const answered = record.analysis.checks.filter((c: any) => c.outcome !== 'unknown');
    const weighted =
      Math.round(
        (answered.filter((c: any) => c.outcome === 'good').reduce((s: number, c: any) => s + weights.get(c.key)!, 0) * 1000) /
          answered.reduce((s: number, c: any) => s + weights.get(c.key)!, 0),
      ) / 10;
    const page = await owner.client.get(`/reports/${reportId}/people/${record.profile_id}`);
    assert.match(page.text, new RegExp(`<strong>${Math.round(weighted)}%</strong> weighted by impact`));
  });

  test('the CSV has one row per person, three fixes with one-line advice, and neutralises a formula-looking name', async () => {
    const csv = await owner.client.get(`/reports/${reportId}/people.csv`);
    assert.equal(csv.status, 200);
    assert.ok(csv.text.startsWith('\uFEFFName,'));
    const rows: string[][] = parse(csv.text.slice(1), { relax_column_count: false });
    const [header, ...body] = rows;
    assert.equal(body.length, NAMES.length);
    for (const column of ['Fix 1', 'Now 1', 'Advice 1', 'Fix 2', 'Advice 2', 'Fix 3', 'Advice 3', 'Private link', 'Weighted score (%)']) {
      assert.ok(header.includes(column), column);
    }
    assert.ok(!header.includes('Fix first') && !header.includes('Advice'));
    const names = body.map((r) => r[header.indexOf('Name')]);
    assert.ok(names.includes('Jürgen Müller') && names.includes('Zoë 🚀 Star'));
    assert.ok(names.includes(`'${FORMULA}`), 'a formula is neutralised');
    for (const row of body) {
      const advice = row[header.indexOf('Advice 1')];
      assert.ok(!advice.includes('\n') && !advice.includes(' | ') && !placeholder.test(advice));
      assert.equal(row[header.indexOf('Private link')], '', 'no link is known after it was made');
      if (row[header.indexOf('Fix 1')] !== '') assert.doesNotMatch(row[header.indexOf('Now 1')], /^(\d+(\.\d+)?)?$/, 'what was observed, in words');
      assert.match(row[header.indexOf('Weighted score (%)')], /^\d+\.\d$/);
    }
  });

  test('a semicolon separator is remembered for the user and goes with decimal commas', async () => {
    const saved = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/csv-separator`, { separator: 'semicolon' });
    assert.equal(saved.status, 303);
    const csv = await owner.client.get(`/reports/${reportId}/people.csv`);
    assert.ok(csv.text.startsWith('\uFEFFName;'));
    const [header, ...body]: string[][] = parse(csv.text.slice(1), { delimiter: ';' });
    assert.equal(body.length, NAMES.length);
    for (const row of body) assert.match(row[header.indexOf('Weighted score (%)')], /^\d+,\d$/);
    assert.match((await owner.client.get(`/reports/${reportId}`)).text, /<option value="semicolon" selected="">|<option value="semicolon" selected>/);
    const other = await webUser(t, tenant.workspaceId);
    assert.ok((await other.client.get(`/reports/${reportId}/people.csv`)).text.startsWith('\uFEFFName,'), "another user's choice is their own");
    const bad = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/csv-separator`, { separator: 'tab' });
    assert.equal(bad.status, 422);
    await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/csv-separator`, { separator: 'comma' });
  });

  async function xlsx(client: WebUser['client'], path: string, init: RequestInit = {}): Promise<ExcelJS.Worksheet> {
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(`${t.baseUrl}${path}`, { ...init, headers: { cookie, origin: t.baseUrl, ...(init.headers as Record<string, string>) } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /spreadsheetml/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await res.arrayBuffer());
    return workbook.getWorksheet('People')!;
  }

  test('the .xlsx has typed cells: numbers as numbers, dates as dates, a formula-looking name as text', async () => {
    const sheet = await xlsx(owner.client, `/reports/${reportId}/people.xlsx`);
    const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
    assert.equal(sheet.rowCount, NAMES.length + 1);
    const col = (name: string) => header.indexOf(name) + 1;
    const names: unknown[] = [];
    for (let r = 2; r <= sheet.rowCount; r++) {
      const row = sheet.getRow(r);
      names.push(row.getCell(col('Name')).value);
      assert.equal(typeof row.getCell(col('Weighted score (%)')).value, 'number');
      assert.equal(typeof row.getCell(col('Good')).value, 'number');
      assert.ok(row.getCell(col('Captured')).value instanceof Date);
    }
    assert.ok(names.includes(FORMULA) && names.includes('Zoë 🚀 Star') && names.includes('Jürgen Müller'));
    const formulaCell = sheet.getRow(names.indexOf(FORMULA) + 2).getCell(col('Name'));
    assert.equal(formulaCell.type, ExcelJS.ValueType.String, 'stored as text, not run');
  });

  test('the export offered right after making links for everyone carries each private link', async () => {
    const page = await owner.client.get(`/reports/${reportId}/links`);
    const made = await owner.client.post(`/reports/${reportId}/links`, { _csrf: csrfOf(page.text), person: 'everyone', days: '30' });
    assert.equal(made.status, 200);
    const tokens = [...made.text.matchAll(/<input type="hidden" name="token" value="([^"]+)"/g)].map((m) => m[1]);
    assert.equal(tokens.length, NAMES.length);
    const csv = await owner.client.post(`/reports/${reportId}/links/people-export`, {
      _csrf: csrfOf(made.text),
      token: [...tokens, 'x'.repeat(43)],
      format: 'csv',
    });
    assert.equal(csv.status, 200);
    const [header, ...body]: string[][] = parse(csv.text.slice(1));
    const links = body.map((r) => r[header.indexOf('Private link')]);
    assert.equal(links.length, NAMES.length);
    for (const token of tokens)
      assert.ok(
        links.some((l) => l.endsWith(`/shared/people/${token}`)),
        'each person has their link',
      );
    const sheet = await xlsx(owner.client, `/reports/${reportId}/links/people-export`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([['_csrf', csrfOf(made.text)], ['format', 'xlsx'], ...tokens.map((tk) => ['token', tk])]).toString(),
    });
    assert.equal(sheet.rowCount, NAMES.length + 1);
  });

  test('a member may not change the display name (owners and admins share a report)', async () => {
    const member = await webUser(t, tenant.workspaceId, 'member');
    const refused = await member.client.submit(`/reports/${reportId}`, `/reports/${reportId}/company-name`, { display_company_name: 'Nope' });
    assert.equal(refused.status, 403);
  });
});
