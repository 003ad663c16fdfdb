/**
 * Where a record is unavoidably bought again, the usage counts say so: a
 * report end to end against the local Bright Data server, which loses the
 * first snapshots whose progress said ready (built and billed, never
 * delivered: their download answers 404). The collector buys their records
 * again at once, without spending an attempt, and counts both purchases: the
 * workspace's usage, /metrics' billed records and the daily budget come to
 * the provider's own billed count, and /metrics says how many were bought
 * again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
// The records reserved today: what the budget spent, which no request reports.
import { reservedToday } from '../../src/store/provider-usage-repository.js';
import { reportBody, scansFinished, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { postRecords, startFakeBrightData, type FakeBrightData } from '../support/fake-brightdata.js';

const KEY = 'bd-lost-key';
const PEOPLE = 22;
const POSTS_PER_PERSON = 3;

/** The sum of a counter's samples (every label set) in a /metrics text. */
function total(text: string, name: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

describe('Bright Data: a snapshot the provider built and then lost', () => {
  let fake: FakeBrightData;
  let t: TestApp;
  let owner: Tenant;
  let reportId: string;
  const urls = Array.from({ length: PEOPLE }, (_, i) => `https://www.linkedin.com/in/lost-member-${i + 1}`);
  /** What the report costs when every record is bought once: a profile and the posts of each person, one company page. */
  const once = PEOPLE + urls.reduce((sum, url) => sum + postRecords(url, POSTS_PER_PERSON).filter((r) => !('error' in r)).length, 0) + 1;
  const providerBilled = () => Object.values(fake.billed).reduce((a, b) => a + b, 0);

  before(async () => {
    fake = await startFakeBrightData({ apiKey: KEY });
    // Every job becomes a snapshot, and the first three to be ready (one per dataset, or a second purchase) are lost.
    fake.slowSync = true;
    fake.loseReadySnapshots = 3;
    t = await startTestApp({
      env: {
        COLLECTOR: 'brightdata',
        BRIGHTDATA_API_KEY: KEY,
        BRIGHTDATA_BASE_URL: fake.url,
        BRIGHTDATA_BATCH_MAX: '40',
        BRIGHTDATA_BATCH_WINDOW_MS: '500',
        BRIGHTDATA_POLL_INTERVAL_MS: '50',
        BRIGHTDATA_POSTS_PER_PERSON: String(POSTS_PER_PERSON),
        BRIGHTDATA_DAILY_RECORD_BUDGET: '10000',
      },
    });
    owner = await t.tenant({ mode: 'live' });
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'bd-lost' },
      body: reportBody({
        company: { name: 'Acme Data', domain: 'acme-data.example', pronet_company_url: 'https://www.linkedin.com/company/acme-data' },
        profiles: urls.map((url) => ({ pronet_url: url })),
      }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    const worker = await t.startWorker(64);
    try {
      await scansFinished(t, owner.secret, reportId, undefined, 120_000);
    } finally {
      await worker.stop();
    }
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  test('the lost snapshots were built and billed, never delivered', () => {
    assert.equal(fake.loseReadySnapshots, 0, 'three snapshots were lost after progress said ready');
    assert.ok(providerBilled() > once, `the provider billed ${providerBilled()} records, ${once} of them once`);
  });

  test('their records are bought again at once: every item succeeds on its first attempt', async () => {
    const items = await t.runtime.db.selectFrom('scan_items').select(['status', 'attempts']).where('report_id', '=', reportId).execute();
    assert.equal(items.length, 2 * PEOPLE + 1);
    assert.deepEqual(
      items.filter((i) => i.status !== 'succeeded' || i.attempts !== 1),
      [],
    );
  });

  test("the workspace's usage counts both purchases: it equals the provider's own billed count", async () => {
    const usage = await t.runtime.db
      .selectFrom('provider_usage')
      .select(({ fn }) => fn.sum<number>('records').as('records'))
      .where('workspace_id', '=', owner.workspaceId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(usage.records), providerBilled());
  });

  test('/metrics counts the billed records as the provider does, and says how many were bought again', async () => {
    const { body } = await t.metrics.render();
    assert.equal(total(body, 'profile_scan_provider_records_billed_total'), providerBilled());
    assert.equal(total(body, 'profile_scan_provider_records_rebought_total'), providerBilled() - once);
  });

  test('the daily budget keeps a lost snapshot spent: it never counts less than the provider billed', async () => {
    assert.ok((await reservedToday(t.runtime.db, 'brightdata')) >= providerBilled());
  });
});
