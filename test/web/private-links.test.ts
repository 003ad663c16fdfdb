/**
 * Private links (docs/web.md, "Private links"), through the real server,
 * PostgreSQL and scan worker: a link opens exactly one person's page, with
 * no way to colleagues, the report or the CSV; through it only that
 * person's evidence is served and every other address is 404; revoking and
 * the expiry (the clock moved) close it with a 410 page, never a sign-in
 * form; the list records the last opening; the token never reaches the log.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { csrfOf, WebClient, webUser, type WebUser } from '../support/web.js';

const PEOPLE = [
  { pronet_url: 'https://pronet.example/in/grace-hopper', name: 'Grace Hopper' },
  { pronet_url: 'https://pronet.example/in/ada-lovelace', name: 'Ada Lovelace' },
  { pronet_url: 'https://pronet.example/in/alan-turing', name: 'Alan Turing' },
];
const DAY = 24 * 60 * 60 * 1000;

/** The links a creation answer shows, by person name. */
function createdLinks(html: string): Map<string, string> {
  const links = new Map<string, string>();
  for (const m of html.matchAll(
    /<label for="new-link-\d+">([^<(]+) \(expires [^)]*\)<\/label><div class="copy-row"><input id="new-link-\d+" type="text" readonly value="([^"]+)"/g,
  )) {
    links.set(m[1].trim(), new URL(m[2]).pathname);
  }
  return links;
}

/** Every address a page links to or loads (href, src, action). */
function addresses(html: string): string[] {
  return [...html.matchAll(/(?:href|src|action)="([^"]+)"/g)].map((m) => m[1].replaceAll('&amp;', '&'));
}

describe('web: private links per person', () => {
  const clock = new ManualClock(new Date());
  const logLines: string[] = [];
  let t: TestApp;
  let owner: WebUser;
  let reportId: string;
  let ids: Record<string, string>;
  const anonymous = () => new WebClient(t.baseUrl);

  async function makeLinks(person: string, days = '30'): Promise<Map<string, string>> {
    const page = await owner.client.submit(`/reports/${reportId}/links`, `/reports/${reportId}/links`, { person, days });
    assert.equal(page.status, 200, page.text);
    return createdLinks(page.text);
  }

  before(async () => {
    const logger = createLogger('info', 'test', new Writable({ write: (chunk, _e, done) => (logLines.push(String(chunk)), done()) }));
    t = await startTestApp({ clock, logger });
    const tenant = await t.tenant();
    owner = await webUser(t, tenant.workspaceId);
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': 'private-links' },
      body: reportBody({ profiles: PEOPLE }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    await t.startWorker(3);
    await scansFinished(t, tenant.secret, reportId, PEOPLE.length);
    const roster = await t.request('GET', `/api/v1/reports/${reportId}/profiles`, { key: tenant.secret });
    ids = Object.fromEntries(roster.body.data.map((p: { name: string; id: string }) => [p.name, p.id]));
  });
  after(() => t?.close());

  test('a link for everyone makes one link per person, each shown once with its expiry', async () => {
    const links = await makeLinks('everyone');
    assert.deepEqual([...links.keys()].sort(), ['Ada Lovelace', 'Alan Turing', 'Grace Hopper']);
    assert.equal(new Set(links.values()).size, 3);
    for (const path of links.values()) assert.match(path, /^\/shared\/people\/[A-Za-z0-9_-]{43}$/);
    const list = await owner.client.get(`/reports/${reportId}/links`);
    for (const path of links.values()) assert.ok(!list.text.includes(path.split('/').pop()!), 'the list never shows a token again');
  });

  test('a link opens exactly one person: their score, fix-first advice and evidence, and no other person, page or CSV link', async () => {
    const path = (await makeLinks(ids['Ada Lovelace'])).get('Ada Lovelace')!;
    const page = await anonymous().get(path);
    assert.equal(page.status, 200);
    assert.match(page.text, /<h1>Ada Lovelace<\/h1>/);
    assert.match(page.text, /<dt>Score<\/dt>/);
    assert.match(page.text, /Fix first/);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    for (const other of ['Grace Hopper', 'Alan Turing', 'grace-hopper', 'alan-turing']) assert.ok(!page.text.includes(other), other);
    const own = addresses(page.text).filter((a) => a.startsWith('/'));
    for (const address of own) {
      assert.ok(address.startsWith(`${path}/evidence/`) || address.startsWith('/assets/') || address.startsWith('#'), `no way into the workspace: ${address}`);
    }
    assert.ok(!page.text.includes(reportId), 'not even the report id');
    assert.ok(!/people\.csv|Sign out|Sign in|Breadcrumb/.test(page.text));
    const images = own.filter((a) => a.startsWith(`${path}/evidence/`));
    assert.ok(images.length > 0, 'the evidence is shown');
    for (const image of images) {
      const res = await anonymous().get(image);
      assert.equal(res.status, 200, image);
      assert.match(res.headers.get('content-type') ?? '', /^image\//);
    }
  });

  test("through a link, the other people's evidence, the CSV and every other address are 404", async () => {
    const path = (await makeLinks(ids['Ada Lovelace'])).get('Ada Lovelace')!;
    const grace = await owner.client.get(`/reports/${reportId}/people/${ids['Grace Hopper']}`);
    const graceImages = [...grace.text.matchAll(/\/reports\/[0-9a-f-]+\/evidence\/([0-9a-f-]{36})/g)].map((m) => m[1]);
    assert.ok(graceImages.length > 0);
    for (const imageId of new Set(graceImages)) {
      assert.equal((await anonymous().get(`${path}/evidence/${imageId}`)).status, 404, 'another person’s image');
      assert.equal((await anonymous().get(`${path}/evidence/${imageId}?variant=preview`)).status, 404);
    }
    for (const other of [
      `${path}/people.csv`,
      `${path}/report`,
      `${path}/../${ids['Grace Hopper']}`,
      `${path}/people/${ids['Grace Hopper']}`,
      `${path}/evidence/not-an-id`,
      `/shared/people/${'A'.repeat(43)}`,
      '/shared/people/short',
    ]) {
      const res = await anonymous().get(other);
      assert.ok(res.status === 404 || (res.status === 303 && res.location === '/sign-in'), `${other}: ${res.status}`);
      if (other.startsWith('/shared/')) {
        assert.equal(res.status, 404, other);
        assert.match(res.text, /This link does not work/);
        assert.ok(!/action="\/sign-in"|name="password"/.test(res.text), 'no sign-in form');
      }
    }
    const csv = await anonymous().get(`/reports/${reportId}/people.csv`);
    assert.notEqual(csv.status, 200, 'the CSV needs a session');
  });

  test('opening a link records when; the list shows person, made, expiry and last opening', async () => {
    const path = (await makeLinks(ids['Alan Turing'], '7')).get('Alan Turing')!;
    let list = await owner.client.get(`/reports/${reportId}/links`);
    assert.match(list.text, /<td>Alan Turing<\/td>(?:<td>.*?<\/td>){2}<td><span class="muted">never<\/span><\/td><td>Active<\/td>/);
    clock.advance(60_000);
    assert.equal((await anonymous().get(path)).status, 200);
    list = await owner.client.get(`/reports/${reportId}/links`);
    const opened = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(clock.now());
    assert.ok(list.text.includes(`${opened} UTC</time></td><td>Active</td>`), 'last opened is recorded');
  });

  test('a revoked link answers 410 with a plain page, and its images stop too', async () => {
    const path = (await makeLinks(ids['Grace Hopper'])).get('Grace Hopper')!;
    const page = await anonymous().get(path);
    const image = addresses(page.text).find((a) => a.startsWith(`${path}/evidence/`))!;
    const list = await owner.client.get(`/reports/${reportId}/links`);
    const revoke = [...list.text.matchAll(/action="(\/reports\/[^"]+\/links\/([0-9a-f-]+)\/revoke)"/g)].map((m) => m[1]);
    // The newest link is listed first.
    const res = await owner.client.post(revoke[0], { _csrf: csrfOf(list.text) });
    assert.equal(res.status, 303);
    const gone = await anonymous().get(path);
    assert.equal(gone.status, 410);
    assert.match(gone.text, /withdrawn/);
    assert.ok(!/action="\/sign-in"|href="\/sign-in"/.test(gone.text), 'not a sign-in form');
    assert.equal((await anonymous().get(image)).status, 410);
  });

  test('the default expiry is 30 days; 0 or 366 days are refused with the form', async () => {
    const page = await owner.client.get(`/reports/${reportId}/links`);
    assert.match(page.text, /name="days" type="number" min="1" max="365" value="30"/);
    for (const days of ['0', '366', 'ten']) {
      const res = await owner.client.post(`/reports/${reportId}/links`, { _csrf: csrfOf(page.text), person: 'everyone', days });
      assert.equal(res.status, 422, days);
      assert.match(res.text, /from 1 to 365 days/);
    }
  });

  test('revoke all closes every active link of the report', async () => {
    const links = await makeLinks('everyone');
    const list = await owner.client.get(`/reports/${reportId}/links`);
    const res = await owner.client.post(`/reports/${reportId}/links/revoke-all`, { _csrf: csrfOf(list.text) });
    assert.equal(res.status, 303);
    for (const path of links.values()) assert.equal((await anonymous().get(path)).status, 410);
    const after = await owner.client.get(`/reports/${reportId}/links`);
    assert.doesNotMatch(after.text, /<td>Active<\/td>/);
  });

  test('the token of a private link never appears in the log', async () => {
    const path = (await makeLinks(ids['Alan Turing'])).get('Alan Turing')!;
    const token = path.split('/').pop()!;
    const page = await anonymous().get(path);
    const image = addresses(page.text).find((a) => a.startsWith(`${path}/evidence/`))!;
    await anonymous().get(image);
    await anonymous().get(`${path}/people.csv`);
    await anonymous().get(`${path}x`);
    const log = logLines.join('');
    assert.ok(log.includes('/shared/people/[redacted]'), 'the requests are logged, token replaced');
    assert.ok(!log.includes(token), 'the token is not in the log');
    assert.ok(!log.includes(token.slice(0, 20)));
  });
  // Last: the clock moves past the owner's session too.
  test('a link expires after the days chosen: open on the last day, 410 after', async () => {
    const path = (await makeLinks(ids['Ada Lovelace'], '2')).get('Ada Lovelace')!;
    clock.advance(2 * DAY - 60_000);
    assert.equal((await anonymous().get(path)).status, 200);
    clock.advance(120_000);
    const expired = await anonymous().get(path);
    assert.equal(expired.status, 410);
    assert.match(expired.text, /expired/);
  });
});
