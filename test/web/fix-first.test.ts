/**
 * The web report page answers "what should each person fix first" (real
 * server, PostgreSQL and scan worker, simulator profiles): the team's most
 * common gaps, each one click from the people who have it, and each person's
 * gaps ranked by impact, on the report page and the person page.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CHECKS } from '../../src/domain/checks/catalog.js';
import { people, reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { webUser, type WebUser } from '../support/web.js';

const impactOf = new Map(CHECKS.map((c) => [c.title, c.impact]));
const titleOf = new Map(CHECKS.map((c) => [c.key, c.title]));

/** The text of every match of `pattern`'s first group, markup removed. */
function all(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].map((m) => m[1].replace(/<[^>]+>/g, '').trim());
}

describe('web: fix first', () => {
  let t: TestApp;
  let secret: string;
  let owner: WebUser;
  let reportId: string;
  let summary: any;
  let records: any[];

  before(async () => {
    t = await startTestApp();
    const tenant = await t.tenant();
    secret = tenant.secret;
    owner = await webUser(t, tenant.workspaceId);
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'fix-first' },
      body: reportBody({ profiles: people(8) }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    await t.startWorker(4);
    summary = await scansFinished(t, secret, reportId, 8);
    records = (await t.request('GET', `/api/v1/reports/${reportId}/analysis/profiles?limit=25`, { key: secret })).body.data;
  });
  after(() => t?.close());

  test('the report page opens with the most common gaps: most people first, with their counts from the summary', async () => {
    const page = await owner.client.get(`/reports/${reportId}`);
    // The team actions follow the most common gaps in the same column.
    const end = page.text.includes('id="team-heading"') ? page.text.indexOf('id="team-heading"') : page.text.indexOf('id="people-heading"');
    const section = page.text.slice(page.text.indexOf('id="gaps-heading"'), end);
    const counts = all(section, /<span class="gap-share">([^<]*)<\/span>/g).map((s) => Number(s.split(' ')[0]));
    const keys = [...section.matchAll(/check=([a-z_.]+)&amp;outcome=optimize/g)].map((m) => m[1]);
    assert.ok(keys.length >= 1 && keys.length <= 5, `1 to 5 gaps: ${keys.length}`);
    const optimizeOf = new Map<string, number>(summary.optimization_summary.checks.map((c: any) => [c.key, c.optimize]));
    assert.deepEqual(
      counts,
      keys.map((k) => optimizeOf.get(k)),
      'each gap counts the people the summary says',
    );
    assert.deepEqual(
      counts,
      [...counts].sort((a, b) => b - a),
      'most people first',
    );
    const most = Math.max(...optimizeOf.values());
    assert.equal(counts[0], most, 'the first gap is one of the most common');
    assert.ok(page.text.indexOf('id="gaps-heading"') < page.text.indexOf('id="people-heading"'), 'gaps before the people');
    assert.ok(page.text.indexOf('id="people-heading"') < page.text.indexOf('id="chart-heading"'), 'the people before the chart');
  });

  test("the reports list shows each report's score, the summary's optimization score", async () => {
    const list = await owner.client.get('/reports');
    const score = summary.optimization_summary.counts.score_pct as number;
    const row = /<tr><td><a href="\/reports\/[0-9a-f-]+">[^<]*<\/a>[\s\S]*?<\/tr>/.exec(list.text)![0];
    assert.match(row, new RegExp(`<td class="num">${Math.round(score)}%</td>`));
  });

  test('a gap is one click from the people who have it', async () => {
    const page = await owner.client.get(`/reports/${reportId}`);
    const [, href, key] = /<a href="(\/reports\/[^"]+\?check=([a-z_.]+)&amp;outcome=optimize)#people-heading">/.exec(page.text)!;
    const filtered = await owner.client.get(href.replaceAll('&amp;', '&'));
    const expected = records.filter((r) => r.analysis.checks.find((c: any) => c.key === key).outcome === 'optimize').length;
    assert.match(filtered.text, new RegExp(`${expected} of 8 people match`));
  });

  test("the people table names each person's first gaps, highest impact first", async () => {
    const page = await owner.client.get(`/reports/${reportId}`);
    const lines = all(page.text, /<span class="sub fix-first">([^<]*(?:<[^>]+>[^<]*)*?)<\/span>/g);
    const withGaps = records.filter((r) => r.analysis.checks.some((c: any) => c.outcome === 'optimize'));
    assert.equal(lines.length, withGaps.length, 'one line per person with gaps');
    for (const line of lines) {
      const titles = line.replace(/^Fix first:\s*/, '').split(', ');
      assert.ok(titles.length >= 1 && titles.length <= 2, line);
      const impacts = titles.map((title) => impactOf.get(title));
      assert.ok(
        impacts.every((i) => i !== undefined),
        line,
      );
      assert.deepEqual(
        impacts,
        [...impacts].sort((a, b) => b - a),
        `highest impact first: ${line}`,
      );
    }
  });

  test("a person's page lists their gaps first, ranked by impact, and collapses the good checks", async () => {
    const record = records.find((r) => r.analysis.checks.filter((c: any) => c.outcome === 'optimize').length >= 2)!;
    const page = await owner.client.get(`/reports/${reportId}/people/${record.profile_id}`);
    assert.equal(page.status, 200);
    const fix = page.text.slice(page.text.indexOf('id="fix-heading"'), page.text.indexOf('id="findings-heading"'));
    const listed = all(fix, /<a href="#check-[a-z_.]+">([^<]*)<\/a>/g);
    // The team's actions (60 % of the analyzed people or more) are named once, not ranked among the person's own.
    const team = new Set(
      CHECKS.filter(
        (c) => records.filter((r) => r.analysis.checks.find((x: any) => x.key === c.key)?.outcome === 'optimize').length >= 0.6 * records.length,
      ).map((c) => c.key),
    );
    const gaps = record.analysis.checks.filter((c: any) => c.outcome === 'optimize' && !team.has(c.key));
    assert.equal(listed.length, Math.min(5, gaps.length));
    const impacts = listed.map((title) => impactOf.get(title)!);
    assert.deepEqual(
      impacts,
      [...impacts].sort((a, b) => b - a),
      'highest impact first',
    );
    if (gaps.length > 0) assert.equal(impacts[0], Math.max(...gaps.map((c: any) => CHECKS.find((d) => d.key === c.key)!.impact)));
    for (const title of listed)
      assert.ok(
        gaps.some((c: any) => titleOf.get(c.key) === title),
        `${title} is one of the person's gaps`,
      );
    // Every link lands on its check's card.
    for (const m of fix.matchAll(/href="#(check-[a-z_.]+)"/g)) assert.match(page.text, new RegExp(`id="${m[1].replaceAll('.', '\\.')}"`));
    const good = record.analysis.checks.filter((c: any) => c.outcome === 'good').length;
    const collapsed = [...page.text.matchAll(/<details class="good-checks"><summary>(\d+) good in/g)].reduce((s, m) => s + Number(m[1]), 0);
    assert.equal(collapsed, good, 'every good check is collapsed');
  });
});
