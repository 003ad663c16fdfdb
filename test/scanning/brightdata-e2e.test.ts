/**
 * Scanning real people, end to end, with a live key: COLLECTOR=brightdata
 * pointed at a local server that behaves as Bright Data's documentation says
 * (test/support/fake-brightdata.ts), its records linking images on a local
 * HTTPS CDN (test/support/fake-cdn.ts) that the safe fetcher is allowed to
 * reach. A report of 30 people and its company page goes through the API and
 * the background worker to terminal runs; the findings, evidence and
 * activity are read back through the API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
// The records reserved today: what the budget spent, which no request reports.
import { reservedToday } from '../../src/store/provider-usage-repository.js';
import { eventually, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { DATASETS, startFakeBrightData, type FakeBrightData } from '../support/fake-brightdata.js';
import { startFakeCdn, type FakeCdn } from '../support/fake-cdn.js';
import { webUser } from '../support/web.js';
import { runAdmin } from '../support/processes.js';

const KEY = 'bd-e2e-key-4711';

describe('Bright Data end to end (live key, local servers only)', () => {
  let cdn: FakeCdn;
  let fake: FakeBrightData;
  let t: TestApp;
  let owner: Tenant;
  let reportId: string;
  let profileIds: Map<string, string>;

  const slugs = [
    ...Array.from({ length: 26 }, (_, i) => `member-${String(i + 1).padStart(2, '0')}-bd`),
    'cached-grace-hopper',
    'nophoto-alan-turing',
    'quiet-emmy-noether',
    'private-hidden-person',
  ];

  before(async () => {
    cdn = await startFakeCdn();
    fake = await startFakeBrightData({ apiKey: KEY, imageBase: cdn.baseUrl });
    t = await startTestApp({
      env: {
        COLLECTOR: 'brightdata',
        BRIGHTDATA_API_KEY: KEY,
        BRIGHTDATA_BASE_URL: fake.url,
        BRIGHTDATA_BATCH_MAX: '40',
        BRIGHTDATA_BATCH_WINDOW_MS: '1500',
        BRIGHTDATA_POLL_INTERVAL_MS: '50',
        BRIGHTDATA_POSTS_PER_PERSON: '3',
        BRIGHTDATA_DAILY_RECORD_BUDGET: '10000',
        EVIDENCE_IMAGE_HOSTS: cdn.hostEntry,
        EVIDENCE_FETCH_ALLOW_ADDRESSES: '127.0.0.1/32',
        EVIDENCE_FETCH_CA_FILE: cdn.caFile,
        // What is captured, not how fast: a loaded machine must not turn a download into a miss.
        EVIDENCE_FETCH_TIMEOUT_MS: '60000',
      },
    });
    owner = await t.tenant({ mode: 'live' });
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'bd-e2e' },
      body: reportBody({
        company: { name: 'Acme Data', domain: 'acme-data.example', pronet_company_url: 'https://www.linkedin.com/company/acme-data' },
        profiles: slugs.map((slug) => ({ pronet_url: `https://www.linkedin.com/in/${slug}` })),
      }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    profileIds = new Map(slugs.map((slug, i) => [slug, created.body.data.profiles.rows[i].profile_id as string]));
    const worker = await t.startWorker(80);
    try {
      await eventually(async () => {
        const runs = await t.runtime.db.selectFrom('scan_runs').select('status').where('report_id', '=', reportId).execute();
        return runs.length === 2 && runs.every((r) => !['queued', 'running'].includes(r.status));
      }, 120_000);
    } finally {
      await worker.stop();
    }
  });
  after(async () => {
    await t?.close();
    await fake?.close();
    await cdn?.close();
  });

  const findingsOf = async (slug: string) => {
    const read = await t.request('GET', `/api/v1/reports/${reportId}/analysis/profiles?profile_id=${profileIds.get(slug)}`, { key: owner.secret });
    assert.equal(read.status, 200, read.text);
    return read.body.data[0];
  };

  test('a report of 30 people and its company page reaches terminal runs: completed but for the private profile', async () => {
    const runs = await t.runtime.db.selectFrom('scan_runs').selectAll().where('report_id', '=', reportId).orderBy('mode').execute();
    assert.deepEqual(
      runs.map((r) => [r.mode, r.status, r.requested, r.completed]),
      [
        ['activity', 'partial', 31, 30],
        ['full_profile', 'partial', 30, 29],
      ],
    );
    const items = await t.runtime.db.selectFrom('scan_items').select(['status', 'attempts', 'reason']).where('report_id', '=', reportId).execute();
    assert.deepEqual(
      items.filter((i) => i.status !== 'succeeded').map((i) => [i.status, i.reason]),
      [
        ['inaccessible', 'provider: dead_page'],
        ['inaccessible', 'provider: dead_page'],
      ],
    );
  });

  test('the people went to the provider in batches: each URL once, up to 20 on the synchronous endpoint, larger batches and discoveries as asynchronous jobs', async () => {
    const jobs = fake.calls.filter((c) => c.method === 'POST');
    // How the 30 people split into batches depends on when the worker claimed them
    // (a batch closes once none joined it for BRIGHTDATA_BATCH_WINDOW_MS); the rules hold for any split.
    for (const [dataset, mode] of [
      [DATASETS.profiles, undefined],
      [DATASETS.posts, 'profile_url'],
    ] as const) {
      const calls = jobs.filter((c) => c.datasetId === dataset);
      const sent = calls.flatMap((c) => c.urls);
      const retried = await t.runtime.db
        .selectFrom('scan_items')
        .select(['attempts', 'reason'])
        .where('report_id', '=', reportId)
        .where('attempts', '>', 1)
        .execute();
      assert.equal(sent.length, 30, `${dataset}: ${calls.map((c) => `${c.path} ${c.urls.length}`).join(' + ')}; retried items: ${JSON.stringify(retried)}`);
      assert.equal(new Set(sent).size, 30);
      assert.ok(calls.length <= 3, `${dataset} in ${calls.length} calls`);
      for (const c of calls) {
        // A discovery (posts by profile URL) is always an asynchronous job.
        const expected = mode !== undefined || c.urls.length > 20 ? '/datasets/v3/trigger' : '/datasets/v3/scrape';
        assert.equal(c.path, expected, `${dataset}: ${c.urls.length} URLs`);
        assert.equal(c.query.discover_by, mode);
      }
    }
    assert.deepEqual(
      jobs.filter((c) => c.datasetId === DATASETS.companies).map((c) => c.path),
      ['/datasets/v3/scrape'],
    );
  });

  test('findings carry the mapped values, and checks on withheld fields are unknown, never optimize', async () => {
    const record = await findingsOf('member-01-bd');
    assert.equal(record.analysis.checks.find((c: { key: string }) => c.key === 'identity.has_photo').outcome, 'good');
    const headlineChecks = record.analysis.checks.filter((c: { key: string }) => c.key.startsWith('headline.'));
    assert.ok(headlineChecks.length > 0);
    for (const check of headlineChecks) assert.equal(check.outcome, 'unknown', check.key);
    const experience = record.analysis.checks.filter((c: { key: string }) => c.key.startsWith('experience.'));
    for (const check of experience) assert.equal(check.outcome, 'unknown', check.key);
    const cached = await findingsOf('cached-grace-hopper');
    assert.ok(
      cached.analysis.checks.some((c: { key: string; outcome: string }) => c.key.startsWith('experience.') && c.outcome !== 'unknown'),
      'a profile still served from cache answers its experience checks',
    );
    const nophoto = await findingsOf('nophoto-alan-turing');
    assert.equal(nophoto.analysis.checks.find((c: { key: string }) => c.key === 'identity.has_photo').outcome, 'optimize');
  });

  test('the summary says why those checks are unknown, in a limitation of its own', async () => {
    const summary = await t.request('GET', `/api/v1/reports/${reportId}/analysis`, { key: owner.secret });
    const codes = summary.body.data.limitations.map((l: { code: string }) => l.code);
    assert.ok(codes.includes('provider_restricted_fields'), codes.join(','));
    assert.equal(summary.body.data.coverage.optimization.analyzed_profiles, 29);
  });

  test('evidence: the linked photo and banner are captured from the CDN, every other section with data has a rendered card', async () => {
    const rows = await t.runtime.db
      .selectFrom('evidence_images')
      .select(['section', 'origin', 'original_type'])
      .where('report_id', '=', reportId)
      .where('profile_id', '=', profileIds.get('member-02-bd')!)
      .execute();
    const top = rows.filter((r) => r.section === 'top_card').map((r) => `${r.origin} ${r.original_type}`);
    assert.deepEqual(top.sort(), ['captured image/jpeg', 'captured image/png', 'rendered image/png']);
    assert.ok(rows.some((r) => r.section === 'activity' && r.origin === 'rendered'));
    assert.ok((cdn.hits.get('/photo.jpg') ?? 0) >= 28);
    const logo = await t.runtime.db
      .selectFrom('evidence_images')
      .select(['origin', 'original_type'])
      .where('report_id', '=', reportId)
      .where('profile_id', 'is', null)
      .execute();
    assert.ok(logo.some((r) => r.origin === 'captured' && r.original_type === 'image/webp'));
  });

  test("activity events carry the person's posts and the company page's updates", async () => {
    const page = await t.request('GET', `/api/v1/reports/${reportId}/analysis/activity?limit=100&profile_id=${profileIds.get('member-03-bd')}`, {
      key: owner.secret,
    });
    assert.equal(page.status, 200);
    assert.ok(page.body.data.length >= 1);
    for (const event of page.body.data) assert.ok(event.text.startsWith('Thoughts on data teams'), event.text);
    const quiet = await t.request('GET', `/api/v1/reports/${reportId}/analysis/activity?limit=100&profile_id=${profileIds.get('quiet-emmy-noether')}`, {
      key: owner.secret,
    });
    assert.deepEqual(quiet.body.data, []);
    const company = await t.runtime.db.selectFrom('activity_events').select('text').where('report_id', '=', reportId).where('profile_id', 'is', null).execute();
    assert.equal(company.length, 1);
  });

  test('billed records are counted for the workspace, and the budget reservation equals them', async () => {
    const usage = await t.runtime.db.selectFrom('provider_usage').select(['provider', 'records']).where('workspace_id', '=', owner.workspaceId).execute();
    const billed = Object.values(fake.billed).reduce((a, b) => a + b, 0);
    assert.equal(usage.length, 1);
    assert.equal(usage[0].records, billed);
    assert.equal(await reservedToday(t.runtime.db, usage[0].provider), billed);
  });

  test('owners and admins see the billed records on the settings page; members do not', async () => {
    const billed = Object.values(fake.billed).reduce((a, b) => a + b, 0);
    for (const role of ['owner', 'admin'] as const) {
      const { client } = await webUser(t, owner.workspaceId, role);
      const page = await client.get('/settings');
      const section = /<section[^>]*id="billed-records"[^>]*>([\s\S]*?)<\/section>/.exec(page.text)?.[1] ?? '';
      assert.match(section, /<h3>Bright Data<\/h3>/, role);
      assert.match(section, new RegExp(`<dt>Today \\(UTC\\)</dt><dd>${billed} records</dd><dt>This month</dt><dd>${billed} records</dd>`), role);
    }
    const { client } = await webUser(t, owner.workspaceId, 'member');
    assert.ok(!(await client.get('/settings')).text.includes('id="billed-records"'));
  });

  test('admin workspace usage shows the operator the allowance and the billed records', async () => {
    const billed = Object.values(fake.billed).reduce((a, b) => a + b, 0);
    const admin = (...args: string[]) => runAdmin(t, 'workspace', 'usage', ...args);
    const json = JSON.parse((await admin(owner.workspaceId, '--json')).stdout);
    assert.deepEqual(json.billed_records, [{ provider: 'brightdata', today: billed, this_month: billed, last_30_days: billed }]);
    assert.equal(json.scan_allowance.used, slugs.length);
    assert.match((await admin(owner.workspaceId)).stdout, new RegExp(`brightdata: ${billed} records billed today`));
    await assert.rejects(admin('00000000-0000-4000-8000-000000000000'), /no workspace/);
  });

  test('no request reached anything but the local servers', () => {
    assert.equal(t.config.brightData?.baseUrl, fake.url);
    assert.ok(fake.calls.length > 0 && cdn.total > 0);
    assert.ok(fake.calls.every((c) => c.path.startsWith('/datasets/v3/')));
  });
});
