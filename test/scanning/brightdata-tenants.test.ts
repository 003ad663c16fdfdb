/**
 * A snapshot is used only by the workspaces it was bought for
 * (store/migrations/0055): a second workspace that scans the same people
 * within the hour a delivered snapshot can be downloaded again buys its own
 * records, billed to it, instead of receiving the first workspace's for
 * nothing. Within one workspace, an item claimed again still joins it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, reportBody, startTestApp, type TestApp } from '../support/app.js';
import { startFakeCdn, type FakeCdn } from '../support/fake-cdn.js';
import { DATASETS, startFakeBrightData, type FakeBrightData } from '../support/fake-brightdata.js';

const KEY = 'bd-tenants-key';
const URLS = ['https://www.linkedin.com/in/tenant-shared-1', 'https://www.linkedin.com/in/tenant-shared-2'];

describe('Bright Data snapshots and workspaces', () => {
  let cdn: FakeCdn;
  let fake: FakeBrightData;
  let t: TestApp;
  const workspaces: string[] = [];

  before(async () => {
    cdn = await startFakeCdn();
    fake = await startFakeBrightData({ apiKey: KEY, imageBase: cdn.baseUrl });
    t = await startTestApp({
      env: {
        COLLECTOR: 'brightdata',
        BRIGHTDATA_API_KEY: KEY,
        BRIGHTDATA_BASE_URL: fake.url,
        BRIGHTDATA_BATCH_WINDOW_MS: '200',
        BRIGHTDATA_POLL_INTERVAL_MS: '50',
        BRIGHTDATA_POSTS_PER_PERSON: '2',
        EVIDENCE_IMAGE_HOSTS: cdn.hostEntry,
        EVIDENCE_FETCH_ALLOW_ADDRESSES: '127.0.0.1/32',
        EVIDENCE_FETCH_CA_FILE: cdn.caFile,
      },
    });
    const worker = await t.startWorker(8);
    try {
      for (const name of ['first', 'second']) {
        const tenant = await t.tenant({ mode: 'live' });
        workspaces.push(tenant.workspaceId);
        const created = await t.request('POST', '/api/v1/reports', {
          key: tenant.secret,
          headers: { 'idempotency-key': `bd-tenants-${name}` },
          body: reportBody({
            company: { name: 'Acme Data', domain: 'acme-data.example', pronet_company_url: 'https://www.linkedin.com/company/acme-data' },
            profiles: URLS.map((pronet_url) => ({ pronet_url })),
          }),
        });
        assert.equal(created.status, 201, created.text);
        const reportId = created.body.data.report.id as string;
        await eventually(
          async () => {
            const runs = await t.runtime.db.selectFrom('scan_runs').select('status').where('report_id', '=', reportId).execute();
            return runs.length === 2 && runs.every((r) => !['queued', 'running'].includes(r.status));
          },
          60_000,
          100,
        );
      }
    } finally {
      await worker.stop();
    }
  });
  after(async () => {
    await t?.close();
    await fake?.close();
    await cdn?.close();
  });

  test("a second workspace's posts discovery of the same people is triggered for it, not served from the first one's delivered snapshot", () => {
    const discoveries = fake.calls.filter((c) => c.method === 'POST' && c.datasetId === DATASETS.posts);
    for (const url of URLS) assert.equal(discoveries.filter((c) => c.urls.some((u) => u.includes(url.split('/in/')[1]))).length, 2, url);
  });

  test('each workspace is billed for the records it received', async () => {
    const usage = await t.runtime.db.selectFrom('provider_usage').select(['workspace_id', 'records']).execute();
    for (const workspaceId of workspaces) {
      const records = usage.filter((u) => u.workspace_id === workspaceId).reduce((sum, u) => sum + Number(u.records), 0);
      assert.ok(records >= URLS.length, `workspace billed ${records}`);
    }
  });

  test('every stored snapshot names the workspace it was bought for', async () => {
    const rows = await t.runtime.db.selectFrom('brightdata_snapshot_workspaces').select(['snapshot_id', 'workspace_id']).execute();
    const snapshots = await t.runtime.db.selectFrom('brightdata_snapshots').select('snapshot_id').execute();
    assert.ok(snapshots.length >= 2);
    for (const s of snapshots) assert.equal(rows.filter((r) => r.snapshot_id === s.snapshot_id).length, 1, s.snapshot_id);
  });
});
