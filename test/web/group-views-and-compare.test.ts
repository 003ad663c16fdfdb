/**
 * Views per group (docs/web.md, "Groups"): the figures of each group of an
 * imported column equal a recomputation from its people; the report page, the
 * people CSV and the group figures agree under a group filter; the compare
 * view shows two to five groups; every count of trouble links to the people
 * it counts. Real server, PostgreSQL and scan worker (simulator profiles).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { reportFromCsv, webUser, type WebUser } from '../support/web.js';

const CSV = [
  'LinkedIn URL,Name,Department,Employee ID,Country',
  'https://pronet.example/in/ada-lovelace,Ada Lovelace,Engineering,E1,DE',
  'https://pronet.example/in/grace-hopper,Grace Hopper,Engineering,E2,DE',
  'https://pronet.example/in/alan-turing,Alan Turing,Engineering,E3,DE',
  'https://pronet.example/in/inaccessible-ken,Ken Hidden,Engineering,E4,DE',
  'https://pronet.example/in/mary-parker,Mary Parker,Sales,E5,DE',
  'https://pronet.example/in/quiet-bob,Bob Quiet,Sales,E6,DE',
  'https://pronet.example/in/sam-seller,Sam Seller,Sales,E7,DE',
  'https://pronet.example/in/sue-support,Sue Support,Support,E8,DE',
  'https://pronet.example/in/tom-support,Tom Support,Support,E9,DE',
].join('\r\n');

type Row = Record<string, string>;
const csvRows = (text: string): Row[] => parse<Row>(text.replace(/^\uFEFF/, ''), { columns: true });

/** A group's figures recomputed from the people CSV's rows (machine columns): people, analyzed, good, to optimize, unknown, score. */
function recompute(people: Row[]) {
  const analyzed = people.filter((p) => p.status === 'analyzed');
  const sum = (key: string) => analyzed.reduce((s, p) => s + Number(p[key]), 0);
  const good = sum('good');
  const optimize = sum('optimize');
  return {
    people: people.length,
    analyzed: analyzed.length,
    good,
    optimize,
    unknown: sum('unknown'),
    score: good + optimize === 0 ? '' : ((good * 100) / (good + optimize)).toFixed(1),
  };
}

function text(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

describe('web: views per group', () => {
  let t: TestApp;
  let user: WebUser;
  let secret: string;
  let reportId: string;
  let everyone: Row[];

  before(async () => {
    t = await startTestApp();
    const tenant = await t.tenant({ name: 'Groups' });
    secret = tenant.secret;
    user = await webUser(t, tenant.workspaceId);
    reportId = await reportFromCsv(user, CSV);
    await t.startWorker(4);
    await scansFinished(t, secret, reportId, 8, 180_000);
    everyone = csvRows((await user.client.get(`/reports/${reportId}/people.csv?columns=machine`)).text);
    assert.equal(everyone.length, 9);
  });
  after(() => t?.close());

  test("each group's figures in the groups CSV equal a recomputation from its people", async () => {
    const groups = csvRows((await user.client.get(`/reports/${reportId}/groups.csv?by=Department`)).text);
    assert.deepEqual(
      groups.map((g) => g.Group),
      ['Engineering', 'Sales', 'Support'],
      'the largest groups first',
    );
    for (const g of groups) {
      const mine = recompute(everyone.filter((p) => p['imported:Department'] === g.Group));
      assert.deepEqual(
        {
          people: Number(g.People),
          analyzed: Number(g.Analyzed),
          good: Number(g.Good),
          optimize: Number(g['To optimize']),
          unknown: Number(g.Unknown),
          score: g['Score (good of answered, %)'],
        },
        mine,
        g.Group,
      );
    }
  });

  test('under a group filter, the report page, the people CSV and the group figures agree', async () => {
    const filter = 'group=Department%3DEngineering';
    const page = text((await user.client.get(`/reports/${reportId}?${filter}`)).text);
    const rows = csvRows((await user.client.get(`/reports/${reportId}/people.csv?columns=machine&${filter}`)).text);
    const mine = recompute(rows);
    assert.equal(rows.length, 4);
    assert.ok(
      rows.every((r) => r['imported:Department'] === 'Engineering'),
      'the CSV holds the group only',
    );
    assert.match(page, new RegExp(`${Math.round(Number(mine.score))}% good of answered checks`), "the score card is the group's");
    assert.match(page, new RegExp(`${mine.good} good · ${mine.optimize} to optimize · ${mine.unknown} unknown`));
    assert.match(page, /3 of 4 profiles analyzed/, "the coverage is the group's");
    assert.match(page, /Department: Engineering — the score, coverage, gaps and chart below count these 4 people only, of 9 on the report/);
    const [group] = csvRows((await user.client.get(`/reports/${reportId}/groups.csv?by=Department&value=Engineering&value=Sales`)).text);
    assert.equal(group['Score (good of answered, %)'], mine.score);
  });

  test('the most common gaps under a group filter count its analyzed people and link to them', async () => {
    const html = (await user.client.get(`/reports/${reportId}?group=Department%3DSales`)).text;
    // The team actions after them stay the whole report's (docs/web.md, "Team actions").
    const end = html.includes('id="team-heading"') ? html.indexOf('id="team-heading"') : html.indexOf('id="people-heading"');
    const section = html.slice(html.indexOf('id="gaps-heading"'), end);
    const shares = [...section.matchAll(/<span class="gap-share">(\d+) of (\d+) people/g)];
    assert.ok(shares.length > 0);
    for (const share of shares) assert.equal(share[2], '3', 'of the 3 analyzed people of Sales');
    assert.match(section, /group=Department%3DSales&amp;check=/, 'a gap keeps the group filter');
  });

  test('the compare view shows the chosen groups side by side, each linked to the report filtered on it', async () => {
    const html = (await user.client.get(`/reports/${reportId}/compare?by=Department&value=Sales&value=Support`)).text;
    const heads = [...html.matchAll(/<th scope="col"><a href="[^"]*group=Department%3D(\w+)">/g)].map((m) => m[1]);
    assert.deepEqual(heads, ['Sales', 'Support']);
    const peopleRow = text(/<th scope="row">People<\/th>(.*?)<\/tr>/s.exec(html)![1]).trim();
    assert.equal(peopleRow, '3 2');
  });

  test('the compare view without a choice shows the largest groups; one group is not a comparison', async () => {
    const all = (await user.client.get(`/reports/${reportId}/compare`)).text;
    assert.equal([...all.matchAll(/<th scope="col">/g)].length, 3, 'every group, up to five');
    const one = await user.client.get(`/reports/${reportId}/compare?by=Department&value=Sales`);
    assert.equal(one.status, 200);
    assert.match(one.text, /Choose at least 2 groups to compare\./);
    assert.doesNotMatch(one.text, /<table class="compare"/);
  });

  test('a column of one value per person, or one value for everyone, is kept but not offered as a group', async () => {
    const page = (await user.client.get(`/reports/${reportId}`)).text;
    const compare = (await user.client.get(`/reports/${reportId}/compare`)).text;
    for (const html of [page, compare]) {
      assert.match(html, /Department/);
      assert.doesNotMatch(html, /<optgroup label="Employee ID"|<option value="Employee ID"|<optgroup label="Country"|<option value="Country"/);
    }
    const rows = csvRows((await user.client.get(`/reports/${reportId}/people.csv?columns=machine`)).text);
    assert.deepEqual(rows.map((r) => r['imported:Employee ID']).sort(), ['E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7', 'E8', 'E9']);
    assert.ok(rows.every((r) => r['imported:Country'] === 'DE'));
  });

  test("another workspace's report has no compare view nor groups CSV", async () => {
    const stranger = await webUser(t, (await t.tenant({ name: 'Other' })).workspaceId);
    assert.equal((await stranger.client.get(`/reports/${reportId}/compare`)).status, 404);
    assert.equal((await stranger.client.get(`/reports/${reportId}/groups.csv`)).status, 404);
  });

  test('each count of trouble links to exactly the people it counts, with what it means', async () => {
    const html = (await user.client.get(`/reports/${reportId}`)).text;
    const link = /<li data-trouble="profile_inaccessible"><a href="([^"]+)">1 person could not be scanned<\/a>/.exec(html);
    assert.ok(link, 'the inaccessible count is a link');
    const filtered = await user.client.get(link[1].replace(/&amp;/g, '&'));
    const names = [...filtered.text.matchAll(/<a href="\/reports\/[0-9a-f-]+\/people\/[0-9a-f-]+">([^<]*)<\/a>/g)].map((m) => m[1]);
    assert.deepEqual(names, ['Ken Hidden']);
    assert.match(filtered.text, /id="status-explained">Their profile is not public, or the address is wrong\./);
  });

  test('the status filter keeps the people with unknown checks, and the export follows it', async () => {
    const rows = csvRows((await user.client.get(`/reports/${reportId}/people.csv?columns=machine&status=unknown_checks`)).text);
    const expected = everyone.filter((p) => p.status === 'analyzed' && Number(p.unknown) > 0).map((p) => p.name);
    assert.ok(expected.length > 0);
    assert.deepEqual(rows.map((r) => r.name).sort(), expected.sort());
    const html = (await user.client.get(`/reports/${reportId}`)).text;
    assert.match(html, new RegExp(`<a href="[^"]*status=unknown_checks[^"]*">${expected.length} people with unknown checks</a>`));
  });
});

describe('web: plain words where the data is verified', () => {
  let t: TestApp;
  let user: WebUser;
  let reportId: string;

  before(async () => {
    t = await startTestApp();
    const tenant = await t.tenant({ name: 'Words' });
    user = await webUser(t, tenant.workspaceId);
    reportId = await reportFromCsv(user, 'Profile URL,Name\r\nhttps://pronet.example/in/quiet-bob,Bob Quiet\r\n');
    await t.startWorker(2);
    await scansFinished(t, tenant.secret, reportId, 1);
  });
  after(() => t?.close());

  test('a person whose activity was read and is empty is told so, without hedging', async () => {
    const html = (await user.client.get(`/reports/${reportId}`)).text;
    const person = /href="(\/reports\/[0-9a-f-]+\/people\/[0-9a-f-]+)">Bob Quiet</.exec(html)![1];
    const page = await user.client.get(person);
    assert.match(page.text, /id="activity-empty">No posts or comments: the scan read their public activity and found none\./);
    assert.doesNotMatch(page.text, /does not prove/);
  });

  test("another workspace's report is not found in this workspace, in the page's words, not the API's", async () => {
    const stranger = await webUser(t, (await t.tenant({ name: 'Stranger' })).workspaceId);
    const page = await stranger.client.get(`/reports/${reportId}`);
    assert.equal(page.status, 404);
    assert.match(page.text, /The report was not found in this workspace/);
    assert.doesNotMatch(page.text, /this key/);
  });
});
