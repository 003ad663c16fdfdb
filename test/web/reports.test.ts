/**
 * Web workspace, report pages (and their security) through
 * a real server, PostgreSQL and scan worker: a report page and a person page
 * built from the API's use-cases, markup from a scanned profile rendered as
 * text, evidence behind the session, the CSV download, archive / share /
 * remove forms, and workspace isolation (404 for another workspace's
 * reports, people and screenshots, with nothing changed).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startScanWorker, type ScanWorker } from '../../src/scanning/worker.js';
import { reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { okAnswer, startFakeProvider, type FakeProvider } from '../support/fake-provider.js';
import { csrfOf, WebClient, webUser, type WebUser } from '../support/web.js';

const API_KEY = 'fake-provider-key';
const SCANNED_NAME = '<script>alert("scanned-name")</script>';
const SCANNED_HEADLINE = '<img src=x onerror=alert("scanned-headline")>';
const SCANNED_POST = '<b>Big</b> news <script>alert("post")</script>';
const SUPPLIED_NAME = '<script>alert("supplied")</script>Mallory';

describe('web workspace: report and person pages', () => {
  let t: TestApp;
  let provider: FakeProvider;
  let worker: ScanWorker;
  let a: { secret: string; workspaceId: string };
  let owner: WebUser;
  let outsider: WebUser;
  let reportId: string;
  let profileIds: string[];

  before(async () => {
    provider = await startFakeProvider({
      apiKey: API_KEY,
      behavior: (request) => {
        const answer = okAnswer(request) as any;
        if (answer.profile) {
          answer.profile.name = SCANNED_NAME;
          answer.profile.headline = SCANNED_HEADLINE;
        }
        if (answer.activity) for (const event of answer.activity) event.text = SCANNED_POST;
        return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) };
      },
    });
    const providerEnv = { PROVIDER_BASE_URL: provider.url, PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '5000' };
    t = await startTestApp({ env: providerEnv });
    a = await t.tenant({ mode: 'live' });
    const b = await t.tenant({ name: 'Other workspace' });
    owner = await webUser(t, a.workspaceId, 'owner', 'Owner A');
    outsider = await webUser(t, b.workspaceId, 'owner', 'Owner B');
    const created = await t.request('POST', '/api/v1/reports', {
      key: a.secret,
      headers: { 'idempotency-key': 'web-report-1' },
      body: reportBody({
        name: 'Markup <i>audit</i>',
        profiles: [
          { pronet_url: 'https://pronet.example/in/mallory', name: SUPPLIED_NAME, headline: SCANNED_HEADLINE },
          { pronet_url: 'https://pronet.example/in/ada' },
        ],
      }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    profileIds = created.body.data.profiles.rows.map((r: { profile_id: string }) => r.profile_id);
    worker = await startScanWorker({ runtime: t.runtime, config: t.config, clock: t.clock, concurrency: 4, log: () => {}, providerEnv });
    await scansFinished(t, a.secret, reportId, 2);
  });
  after(async () => {
    await worker?.stop();
    await t?.close();
    await provider?.close();
  });

  const rawMarkup = [SCANNED_NAME, SCANNED_HEADLINE, '<script>alert("post")</script>', '<b>Big</b>', '<script>alert("supplied")', '<i>audit</i>'];
  const assertNoRawMarkup = (text: string, where: string) => {
    for (const raw of rawMarkup) assert.ok(!text.includes(raw), `${where} must not contain raw ${raw}`);
  };

  test('2.4: workspace_url opens the report page for a signed-in member of the workspace', async () => {
    const read = await t.request('GET', `/api/v1/reports/${reportId}`, { key: a.secret });
    const url = new URL(read.body.data.workspace_url);
    assert.equal(url.pathname, `/reports/${reportId}`);
    const page = await owner.client.get(url.pathname);
    assert.equal(page.status, 200);
    assert.match(page.text, /<h1>Markup &lt;i>audit&lt;\/i><\/h1>/, 'the name, its markup escaped');
    // Signed out, the same address asks for sign-in and comes back after.
    const anonymous = await new WebClient(t.baseUrl).get(url.pathname);
    assert.equal(anonymous.status, 303);
    assert.equal(anonymous.location, `/sign-in?next=${encodeURIComponent(url.pathname)}`);
  });

  test('the report page: summary, per-category chart as HTML meters, scan runs, people with status and score', async () => {
    const page = await owner.client.get(`/reports/${reportId}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /<ol class="bars"[^>]*aria-label="Score by category, worst first"/);
    assert.match(page.text, /<meter class="bar-meter"/);
    assert.match(page.text, /Scores by category/);
    assert.match(page.text, /2 of 2<\/strong> profiles analyzed/);
    assert.match(page.text, /<strong id="work-state">Done<\/strong>/);
    assert.match(page.text, /All 2 people are analyzed\./);
    assert.match(page.text, /Download CSV/);
    assert.equal((page.text.match(/href="\/reports\/[0-9a-f-]+\/people\/[0-9a-f-]+"/g) ?? []).length, 2, 'both people listed');
    assert.doesNotMatch(page.text, /live\.js/, 'no script once the scans are finished');
  });

  test('security: markup in a scanned name, headline or post and in supplied names renders as text everywhere', async () => {
    const reportPage = await owner.client.get(`/reports/${reportId}`);
    assertNoRawMarkup(reportPage.text, 'report page');
    assert.match(reportPage.text, /&lt;script>alert\(&quot;supplied&quot;\)&lt;\/script>Mallory/);
    for (const profileId of profileIds) {
      const person = await owner.client.get(`/reports/${reportId}/people/${profileId}`);
      assert.equal(person.status, 200);
      assertNoRawMarkup(person.text, 'person page');
    }
    const mallory = await owner.client.get(`/reports/${reportId}/people/${profileIds[0]}`);
    assert.match(mallory.text, /&lt;img src=x onerror=alert\(&quot;scanned-headline&quot;\)>/, 'the headline is shown, as text');
    assert.match(mallory.text, /&lt;b>Big&lt;\/b> news/, 'the post is shown, as text');
    const list = await owner.client.get('/reports');
    assertNoRawMarkup(list.text, 'report list');
    const csv = await owner.client.get(`/reports/${reportId}/people.csv`);
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.doesNotMatch(csv.headers.get('content-type') ?? '', /html/);
  });

  test(
    'the person page: findings by category with outcome, observed value, recommendation with the company filled ' + 'in, screenshot behind the session',
    async () => {
      const page = await owner.client.get(`/reports/${reportId}/people/${profileIds[1]}`);
      assert.equal(page.status, 200);
      assert.match(page.text, /<h3 id="cat-identity">Identity<\/h3>/);
      assert.match(page.text, /Observed:/);
      assert.doesNotMatch(page.text, /\[company name\]|\{company\}/, 'placeholders are filled in');
      assert.match(page.text, /Activity/);
      const previews = [...page.text.matchAll(/<img src="(\/reports\/[^"]+\?variant=preview)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
      assert.ok(previews.length > 0, 'a screenshot preview is shown inline');
      const originals = [...page.text.matchAll(/<a href="(\/reports\/[^"]+\/evidence\/[0-9a-f-]+)"/g)].map((m) => m[1]);
      assert.ok(originals.length > 0, 'the original opens on click');
      const image = await owner.client.get(previews[0]);
      assert.equal(image.status, 200);
      assert.match(image.headers.get('content-type') ?? '', /^image\/(webp|png|jpeg)$/);
      const original = await owner.client.get(originals[0]);
      assert.equal(original.status, 200);
      // Signed out: no image; another workspace: not found.
      assert.equal((await new WebClient(t.baseUrl).get(previews[0])).status, 303);
      assert.equal((await outsider.client.get(previews[0])).status, 404);
      assert.equal((await outsider.client.get(originals[0])).status, 404);
    },
  );

  test('people: filter by check outcome and sort by score', async () => {
    const all = await owner.client.get(`/reports/${reportId}?sort=score`);
    assert.equal(all.status, 200);
    const none = await owner.client.get(`/reports/${reportId}?check=identity.has_photo&outcome=unknown`);
    assert.equal(none.status, 200);
    assert.match(none.text, /0 of 2 people match/);
    assert.match(none.text, /Nobody matches this filter/);
    const good = await owner.client.get(`/reports/${reportId}?check=identity.has_photo&outcome=good`);
    assert.match(good.text, /2 of 2 people match/, 'the fake provider reports a photo for everyone');
  });

  test("the CSV: one row per person with scores, each check's outcome and three fixes; formulas neutralized", async () => {
    const csv = await owner.client.get(`/reports/${reportId}/people.csv`);
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-disposition') ?? '', /^attachment; filename="Markup-i-audit-i-people\.csv"$/);
    const lines = csv.text.trimEnd().split('\r\n');
    assert.equal(lines.length, 3);
    assert.match(
      lines[0],
      /^\uFEFFName,Name from,Title,Headline,Profile URL,Status,Weighted score \(%\),Good of answered \(%\),Good,To optimize,Unknown,Captured,Profile photo,/,
    );
    assert.ok(lines.some((l) => l.includes(',Analyzed,')));
    const machine = await owner.client.get(`/reports/${reportId}/people.csv?columns=machine`);
    const machineLines = machine.text.trimEnd().split('\r\n');
    assert.match(
      machineLines[0],
      /^\uFEFFname,name_source,title,headline,pronet_url,status,weighted_score_pct,score_pct,good,optimize,unknown,captured_at,identity\.has_photo,/,
    );
    assert.ok(machineLines.some((l) => l.includes(',analyzed,')));
  });

  test('security: a user of another workspace gets 404 for its report, people, progress, CSV and screenshots, and changes nothing', async () => {
    for (const path of [
      `/reports/${reportId}`,
      `/reports/${reportId}/people/${profileIds[0]}`,
      `/reports/${reportId}/progress`,
      `/reports/${reportId}/people.csv`,
      `/reports/${reportId}/import`,
    ]) {
      const res = await outsider.client.get(path);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(res.text, /Markup|Mallory|pronet\.example/, `${path} reveals nothing`);
    }
    const token = csrfOf((await outsider.client.get('/reports')).text);
    for (const [path, fields] of [
      [`/reports/${reportId}/archive`, { archived: '1' }],
      [`/reports/${reportId}/share`, { public: '1' }],
      [`/reports/${reportId}/people/${profileIds[0]}/remove`, {}],
    ] as const) {
      const res = await outsider.client.post(path, { _csrf: token, ...fields });
      assert.equal(res.status, 404, path);
    }
    const read = await t.request('GET', `/api/v1/reports/${reportId}`, { key: a.secret });
    assert.equal(read.body.data.archived, false);
    assert.equal(read.body.data.visibility, 'private');
    assert.equal(read.body.data.profile_count, 2);
    // An unknown id and a malformed one are 404 too.
    assert.equal((await owner.client.get('/reports/00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await owner.client.get('/reports/not-a-uuid')).status, 404);
  });

  test('share on/off, archive/unarchive and remove a person through the forms (same use-cases as the CLI)', async () => {
    const share = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/share`, { public: '1' });
    assert.equal(share.status, 303);
    assert.equal(share.location, `/reports/${reportId}?done=shared`);
    const shared = await owner.client.get(share.location);
    const publicUrl = /href="(http[^"]+\/public\/reports\/[^"]+)"/.exec(shared.text)?.[1];
    assert.ok(publicUrl, 'the public link is shown');
    assert.ok(new RegExp(`<input id="public-link-new"[^>]*value="${publicUrl.replace(/[.?*+^$()[\]{}|\\]/g, '\\$&')}"`).test(shared.text), 'ready to copy');
    const api = await t.request('GET', `/api/v1/reports/${reportId}`, { key: a.secret });
    assert.equal(api.body.data.public_url, publicUrl);
    // Signed out, the public page shows the aggregate picture and nothing personal.
    const publicPage = await new WebClient(t.baseUrl).get(new URL(publicUrl).pathname);
    assert.equal(publicPage.status, 200);
    assert.match(publicPage.text, /<ol class="bars"/);
    assert.match(publicPage.text, /<dt>Analyzed<\/dt><dd>2<\/dd>/);
    for (const personal of ['Mallory', 'scanned-name', 'scanned-headline', 'pronet.example', 'Big', reportId, ...profileIds, '/evidence/']) {
      assert.ok(!publicPage.text.includes(personal), `the public page does not show ${personal}`);
    }
    const unshare = await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/share`, { public: '0' });
    assert.equal(unshare.status, 303);
    assert.equal((await t.request('GET', `/api/v1/reports/${reportId}`, { key: a.secret })).body.data.public_url, null);

    const archive = await owner.client.confirm(`/reports/${reportId}`, `/reports/${reportId}/archive`, { archived: '1' });
    assert.equal(archive.status, 303);
    assert.equal((await t.request('GET', `/api/v1/reports/${reportId}`, { key: a.secret })).body.data.archived, true);
    const list = await owner.client.get('/reports');
    assert.doesNotMatch(list.text, /Markup/, 'archived reports are hidden from the list');
    const withArchived = await owner.client.get('/reports?archived=1');
    assert.match(withArchived.text, /Markup/);
    await owner.client.submit(`/reports/${reportId}`, `/reports/${reportId}/archive`, { archived: '0' });
    assert.equal((await t.request('GET', `/api/v1/reports/${reportId}`, { key: a.secret })).body.data.archived, false);

    const remove = await owner.client.confirm(`/reports/${reportId}/people/${profileIds[1]}`, `/reports/${reportId}/people/${profileIds[1]}/remove`);
    assert.equal(remove.status, 303);
    assert.equal((await t.request('GET', `/api/v1/reports/${reportId}`, { key: a.secret })).body.data.profile_count, 1);
    assert.equal((await owner.client.get(`/reports/${reportId}/people/${profileIds[1]}`)).status, 404);
  });
});
