/**
 * A report end to end through each documented shape of Bright Data's API:
 * the API and the background worker against local servers that take only
 * each endpoint's documented body or both forms, deliver discovered posts
 * named by `discovery_input`, by the input echo or only by their author, and
 * answer "not ready" under 200 or 202, also after progress said ready. Every
 * person's posts reach them (billed once), a person without posts has none,
 * and nothing is bought twice.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { DATASETS, startFakeBrightData, type FakeBrightData } from '../support/fake-brightdata.js';

const KEY = 'bd-variants-key';
const PEOPLE = 22;

const VARIANTS = [
  {
    name: 'reference bodies, discovery_input, not ready under 200 and building after ready',
    bodies: 'reference',
    postsShape: 'discovery',
    interimStatus: 200,
    building: 1,
  },
  { name: 'both body forms, author-only posts, not ready under 202', bodies: 'both', postsShape: 'author', interimStatus: 202, building: 0 },
  { name: 'reference bodies, input echo, 409 while not ready', bodies: 'reference', postsShape: 'echo', interimStatus: null, building: 0 },
] as const;

for (const variant of VARIANTS) {
  describe(`Bright Data end to end: ${variant.name}`, () => {
    let fake: FakeBrightData;
    let t: TestApp;
    let owner: Tenant;
    let reportId: string;
    let profileIds: string[] = [];
    const slugs = [...Array.from({ length: PEOPLE - 1 }, (_, i) => `variant-member-${i + 1}`), 'quiet-variant-person'];

    before(async () => {
      fake = await startFakeBrightData({ apiKey: KEY, bodies: variant.bodies });
      fake.postsShape = variant.postsShape;
      fake.interimStatus = variant.interimStatus;
      fake.buildingAfterReady = variant.building;
      t = await startTestApp({
        env: {
          COLLECTOR: 'brightdata',
          BRIGHTDATA_API_KEY: KEY,
          BRIGHTDATA_BASE_URL: fake.url,
          BRIGHTDATA_BATCH_MAX: '40',
          BRIGHTDATA_BATCH_WINDOW_MS: '800',
          BRIGHTDATA_POLL_INTERVAL_MS: '50',
          BRIGHTDATA_POSTS_PER_PERSON: '3',
        },
      });
      owner = await t.tenant({ mode: 'live' });
      const created = await t.request('POST', '/api/v1/reports', {
        key: owner.secret,
        headers: { 'idempotency-key': 'bd-variant' },
        body: reportBody({
          company: { name: 'Acme Data', domain: 'acme-data.example', pronet_company_url: 'https://www.linkedin.com/company/acme-data' },
          profiles: slugs.map((slug) => ({ pronet_url: `https://www.linkedin.com/in/${slug}/` })),
        }),
      });
      assert.equal(created.status, 201, created.text);
      reportId = created.body.data.report.id;
      profileIds = created.body.data.profiles.rows.map((r: { profile_id: string }) => r.profile_id);
      const worker = await t.startWorker(64);
      try {
        await eventually(
          async () => {
            const runs = await t.runtime.db.selectFrom('scan_runs').select('status').where('report_id', '=', reportId).execute();
            return runs.length === 2 && runs.every((r) => !['queued', 'running'].includes(r.status));
          },
          120_000,
          100,
        );
      } finally {
        await worker.stop();
      }
    });
    after(async () => {
      await t?.close();
      await fake?.close();
    });

    test('every item succeeds', async () => {
      const items = await t.runtime.db.selectFrom('scan_items').select(['status', 'reason']).where('report_id', '=', reportId).execute();
      assert.deepEqual(
        items.filter((i) => i.status !== 'succeeded'),
        [],
      );
    });

    test("every person's posts reach them; the person without posts has none", async () => {
      const events = await t.runtime.db
        .selectFrom('activity_events')
        .select(['profile_id', 'source_url'])
        .where('report_id', '=', reportId)
        .where('profile_id', 'is not', null)
        .execute();
      for (const [i, slug] of slugs.entries()) {
        const own = events.filter((e) => e.profile_id === profileIds[i]);
        if (slug.startsWith('quiet-')) assert.equal(own.length, 0);
        else {
          assert.ok(own.length > 0, slug);
          for (const e of own) assert.ok(e.source_url?.includes(slug), `${slug}: ${e.source_url}`);
        }
      }
    });

    test('each person was bought once per dataset, and what was delivered is what the workspace is billed', async () => {
      for (const dataset of [DATASETS.profiles, DATASETS.posts]) {
        const sent = fake.calls.filter((c) => c.method === 'POST' && c.datasetId === dataset).flatMap((c) => c.urls);
        assert.equal(sent.length, PEOPLE, dataset);
      }
      const usage = await t.runtime.db
        .selectFrom('provider_usage')
        .select(({ fn }) => fn.sum<number>('records').as('records'))
        .where('workspace_id', '=', owner.workspaceId)
        .executeTakeFirstOrThrow();
      assert.equal(
        Number(usage.records),
        Object.values(fake.billed).reduce((a, b) => a + b, 0),
      );
    });
  });
}
