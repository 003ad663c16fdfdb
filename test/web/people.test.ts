/**
 * The report page's people (real server, PostgreSQL and scan worker,
 * simulator profiles): named by the supplied name, else the observed one,
 * else the profile's handle (the API's roster keeps what was supplied);
 * searched, filtered by title, sorted by any column; the CSV export is the
 * table: same people, same order, every page, with a BOM and two header
 * variants.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { webUser, type WebUser } from '../support/web.js';

const PEOPLE = [
  { pronet_url: 'https://pronet.example/in/grace-hopper' }, // no name: the scan observes "Grace Hopper"
  { pronet_url: 'https://pronet.example/in/ada-lovelace', name: 'Ada L.', title: 'CTO' },
  { pronet_url: 'https://pronet.example/in/alan-turing', name: 'Alan Turing', title: 'Engineer' },
  { pronet_url: 'https://pronet.example/in/edsger-dijkstra', name: 'Edsger Dijkstra', title: 'Engineer', headline: 'Shortest paths' },
];

/** The people table's names, in its order. */
function names(html: string): string[] {
  return [...html.matchAll(/<a href="\/reports\/[0-9a-f-]+\/people\/[0-9a-f-]+">([^<]*)<\/a>/g)].map((m) => m[1]);
}

describe('web: the people of a report', () => {
  let t: TestApp;
  let secret: string;
  let owner: WebUser;
  let reportId: string;

  before(async () => {
    t = await startTestApp();
    const tenant = await t.tenant();
    secret = tenant.secret;
    owner = await webUser(t, tenant.workspaceId);
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'people' },
      body: reportBody({ profiles: PEOPLE }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    await t.startWorker(4);
    await scansFinished(t, secret, reportId, PEOPLE.length);
  });
  after(() => t?.close());

  test('a person imported without a name is shown by the name the scan observed; the API roster keeps the supplied (null) name', async () => {
    const page = await owner.client.get(`/reports/${reportId}`);
    assert.ok(names(page.text).includes('Grace Hopper'), JSON.stringify(names(page.text)));
    assert.doesNotMatch(page.text, />https:\/\/pronet\.example\/in\/grace-hopper</, 'not shown as a URL');
    const roster = await t.request('GET', `/api/v1/reports/${reportId}/profiles`, { key: secret });
    const grace = roster.body.data.find((p: { pronet_url: string }) => p.pronet_url.endsWith('grace-hopper'));
    assert.equal(grace.name, null);
  });

  test('a supplied name wins over the observed one', async () => {
    const page = await owner.client.get(`/reports/${reportId}`);
    assert.ok(names(page.text).includes('Ada L.'));
    assert.ok(!names(page.text).includes('Ada Lovelace'));
  });

  test('search finds people by any word of their name, title or headline, case-insensitively', async () => {
    assert.deepEqual(names((await owner.client.get(`/reports/${reportId}?q=GRACE`)).text), ['Grace Hopper']);
    assert.deepEqual(names((await owner.client.get(`/reports/${reportId}?q=shortest`)).text), ['Edsger Dijkstra']);
    const none = await owner.client.get(`/reports/${reportId}?q=nobody-here`);
    assert.deepEqual(names(none.text), []);
    assert.match(none.text, /0 of 4 people match/);
  });

  test('the title filter lists the supplied titles and keeps only the people with that title', async () => {
    const page = await owner.client.get(`/reports/${reportId}`);
    const options = [...page.text.matchAll(/<option value="([^"]*)"[^>]*>[^<]*<\/option>/g)].map((m) => m[1]);
    assert.ok(options.includes('CTO') && options.includes('Engineer'));
    assert.deepEqual(names((await owner.client.get(`/reports/${reportId}?title=Engineer`)).text), ['Alan Turing', 'Edsger Dijkstra']);
  });

  test('every column sorts, ascending then descending, ties by name', async () => {
    assert.deepEqual(names((await owner.client.get(`/reports/${reportId}`)).text), ['Ada L.', 'Alan Turing', 'Edsger Dijkstra', 'Grace Hopper']);
    assert.deepEqual(names((await owner.client.get(`/reports/${reportId}?dir=desc`)).text), ['Grace Hopper', 'Edsger Dijkstra', 'Alan Turing', 'Ada L.']);
    const records = (await t.request('GET', `/api/v1/reports/${reportId}/analysis/profiles?limit=25`, { key: secret })).body.data as {
      analysis: { counts: { good: number; optimize: number; unknown: number; score_pct: number } };
    }[];
    assert.equal(records.length, 4);
    for (const column of ['good', 'optimize', 'unknown', 'score'] as const) {
      for (const dir of ['', 'desc']) {
        const page = await owner.client.get(`/reports/${reportId}?sort=${column}${dir ? '&dir=desc' : ''}`);
        const cells = [...page.text.matchAll(/<tr><td>[\s\S]*?<\/tr>/g)].map((row) => {
          const numbers = [...row[0].matchAll(/<td class="num[^"]*">(\d+)%?<\/td>/g)].map((m) => Number(m[1]));
          return { score: numbers[0], good: numbers[1], optimize: numbers[2], unknown: numbers[3] }[column];
        });
        assert.equal(cells.length, 4, `${column} ${dir}`);
        const sorted = [...cells].sort((a, b) => (dir ? b - a : a - b));
        assert.deepEqual(cells, sorted, `sorted by ${column} ${dir || 'asc'}`);
      }
    }
    const byTitle = names((await owner.client.get(`/reports/${reportId}?sort=title`)).text);
    assert.deepEqual(byTitle, ['Ada L.', 'Alan Turing', 'Edsger Dijkstra', 'Grace Hopper'], 'CTO, Engineer × 2 (by name), then no title');
    const header = (await owner.client.get(`/reports/${reportId}?sort=good&dir=desc`)).text;
    assert.match(header, /<th scope="col" class="num hide-narrow" aria-sort="descending"><a href="[^"]*sort=good[^"]*">Good/);
  });

  test('the CSV is the table: the same people in the same order, with a BOM, human headers by default and machine ones on request', async () => {
    const query = 'title=Engineer&sort=name&dir=desc';
    const table = names((await owner.client.get(`/reports/${reportId}?${query}`)).text);
    const csv = await owner.client.get(`/reports/${reportId}/people.csv?${query}`);
    assert.ok(csv.text.startsWith('\uFEFFName,'), 'a BOM, then the human header');
    const rows = csv.text.slice(1).trim().split('\r\n');
    assert.deepEqual(
      rows.slice(1).map((r) => r.split(',')[0]),
      table,
    );
    const machine = await owner.client.get(`/reports/${reportId}/people.csv?columns=machine`);
    const lines = machine.text.slice(1).trim().split('\r\n');
    assert.match(
      lines[0],
      /^name,name_source,title,headline,pronet_url,status,weighted_score_pct,score_pct,good,optimize,unknown,captured_at,identity\.has_photo,/,
    );
    assert.equal(lines.length, 5, 'every person, whatever page the table is on');
    assert.ok(lines.some((l) => l.startsWith('Grace Hopper,observed,')));
  });
});
