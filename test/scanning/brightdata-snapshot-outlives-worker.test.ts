/**
 * A triggered snapshot outlives the worker that triggered it: a real
 * `profile-scan worker` process triggers the posts discovery of a report's
 * people, is killed (SIGKILL) while the snapshot is still running, and a new
 * worker process resumes the stored snapshot's download instead of
 * triggering (and paying for) the discovery again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { DATASETS, startFakeBrightData, type FakeBrightData } from '../support/fake-brightdata.js';
import { startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';

const KEY = 'bd-resume-key';
const PEOPLE = 6;

describe('a worker killed while a snapshot is pending', () => {
  let fake: FakeBrightData;
  let t: TestApp;
  let owner: Tenant;
  let reportId: string;
  const workers: WorkerProcess[] = [];
  let storedWhileKilled = 0;

  const env = () => ({
    COLLECTOR: 'brightdata',
    BRIGHTDATA_API_KEY: KEY,
    BRIGHTDATA_BASE_URL: fake.url,
    BRIGHTDATA_BATCH_WINDOW_MS: '300',
    BRIGHTDATA_POLL_INTERVAL_MS: '100',
    BRIGHTDATA_POSTS_PER_PERSON: '2',
  });

  before(async () => {
    fake = await startFakeBrightData({ apiKey: KEY });
    // The snapshot stays running until the test lets it finish.
    fake.pollsUntilReady = 1_000_000;
    t = await startTestApp({ env: { ...env(), ITEM_LEASE_SECONDS: '5' } });
    owner = await t.tenant({ mode: 'live' });
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'bd-resume' },
      body: reportBody({
        company: { name: 'Acme Data', domain: 'acme-data.example', pronet_company_url: 'https://www.linkedin.com/company/acme-data' },
        profiles: Array.from({ length: PEOPLE }, (_, i) => ({ pronet_url: `https://www.linkedin.com/in/resume-member-${i + 1}` })),
      }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;

    const first = await startWorkerProcess(t, { concurrency: 16, env: env() });
    workers.push(first);
    await eventually(async () => {
      const rows = await t.runtime.db.selectFrom('brightdata_snapshots').select('snapshot_id').where('grp', '=', 'posts').execute();
      return rows.length > 0 && fake.calls.some((c) => c.path.startsWith('/datasets/v3/progress/'));
    }, 60_000);
    first.child.kill('SIGKILL');
    await first.exited;
    storedWhileKilled = (await t.runtime.db.selectFrom('brightdata_snapshots').select('snapshot_id').where('grp', '=', 'posts').execute()).length;

    fake.pollsUntilReady = 0;
    workers.push(await startWorkerProcess(t, { concurrency: 16, env: env() }));
    await eventually(
      async () => {
        const runs = await t.runtime.db.selectFrom('scan_runs').select('status').where('report_id', '=', reportId).execute();
        return runs.length === 2 && runs.every((r) => !['queued', 'running'].includes(r.status));
      },
      120_000,
      200,
    );
  });
  after(async () => {
    await stopWorkerProcesses(workers);
    await t?.close();
    await fake?.close();
  });

  test('the snapshot was stored with the people waiting on it before the worker died', () => {
    assert.ok(storedWhileKilled >= 1);
  });

  test("the new worker resumes the stored snapshot's download: each person's posts are discovered (and billed) once", () => {
    const discoveries = fake.calls.filter((c) => c.path === '/datasets/v3/trigger' && c.datasetId === DATASETS.posts);
    const sent = discoveries.flatMap((c) => c.urls);
    assert.equal(sent.length, PEOPLE, discoveries.map((c) => c.urls.length).join(' + '));
    assert.equal(new Set(sent).size, PEOPLE);
    for (const id of fake.snapshotIds) assert.ok(fake.delivered.has(id), `snapshot ${id} never downloaded`);
  });

  test("every person's activity is stored after the restart", async () => {
    const items = await t.runtime.db.selectFrom('scan_items').select(['status', 'kind']).where('report_id', '=', reportId).execute();
    assert.deepEqual(
      items.filter((i) => i.status !== 'succeeded'),
      [],
    );
    const events = await t.runtime.db
      .selectFrom('activity_events')
      .select('profile_id')
      .where('report_id', '=', reportId)
      .where('profile_id', 'is not', null)
      .execute();
    assert.equal(new Set(events.map((e) => e.profile_id)).size, PEOPLE);
  });
});
