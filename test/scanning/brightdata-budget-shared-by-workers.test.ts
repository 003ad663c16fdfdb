/**
 * The daily budget of provider records (BRIGHTDATA_DAILY_RECORD_BUDGET) is
 * shared by every worker process: two real `profile-scan worker` processes
 * scan against one local Bright Data server, and together they never reserve
 * or get billed more records than the budget in one UTC day. What does not
 * fit waits for the next UTC day (deferred, its attempt not spent), and
 * nothing is lost: once the day turns (simulated by moving the day's
 * reservation into the past and the waiting items' ready time to now), every
 * item completes exactly once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
// The records reserved today: what the budget spent, which no request reports.
import { reservedToday } from '../../src/store/provider-usage-repository.js';
import { eventually, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { startFakeBrightData, type FakeBrightData } from '../support/fake-brightdata.js';
import { startFakeCdn, type FakeCdn } from '../support/fake-cdn.js';
import { startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';

const KEY = 'bd-budget-key';
const BUDGET = 15;
const PEOPLE = 10;

describe('Bright Data daily record budget across two worker processes', () => {
  let cdn: FakeCdn;
  let fake: FakeBrightData;
  let t: TestApp;
  let owner: Tenant;
  let reportId: string;
  const workers: WorkerProcess[] = [];
  /** The items as they stood once the day's budget was spent. */
  let waiting: Array<{ status: string; attempts: number; wait_ms: number; until_midnight_ms: number }> = [];
  let billedOnDayOne = 0;
  let reservedOnDayOne = 0;

  const env = () => ({
    COLLECTOR: 'brightdata',
    BRIGHTDATA_API_KEY: KEY,
    BRIGHTDATA_BASE_URL: fake.url,
    BRIGHTDATA_BATCH_WINDOW_MS: '300',
    BRIGHTDATA_POLL_INTERVAL_MS: '50',
    BRIGHTDATA_POSTS_PER_PERSON: '1',
    BRIGHTDATA_DAILY_RECORD_BUDGET: String(BUDGET),
    EVIDENCE_IMAGE_HOSTS: cdn.hostEntry,
    EVIDENCE_FETCH_ALLOW_ADDRESSES: '127.0.0.1/32',
    EVIDENCE_FETCH_CA_FILE: cdn.caFile,
  });
  const items = () => t.runtime.db.selectFrom('scan_items').select(['id', 'status', 'attempts', 'ready_at']).where('report_id', '=', reportId).execute();

  before(async () => {
    cdn = await startFakeCdn();
    fake = await startFakeBrightData({ apiKey: KEY, imageBase: cdn.baseUrl });
    t = await startTestApp({ env: env() });
    owner = await t.tenant({ mode: 'live' });
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': 'bd-budget' },
      body: reportBody({
        company: { name: 'Acme Data', domain: 'acme-data.example', pronet_company_url: 'https://www.linkedin.com/company/acme-data' },
        profiles: Array.from({ length: PEOPLE }, (_, i) => ({ pronet_url: `https://www.linkedin.com/in/budget-member-${i + 1}` })),
      }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;

    workers.push(await startWorkerProcess(t, { concurrency: 8, env: env() }));
    workers.push(await startWorkerProcess(t, { concurrency: 8, env: env() }));
    // Day one: everything is either done or waiting for tomorrow.
    await eventually(
      async () => {
        const rows = await items();
        return rows.every((r) => r.status === 'succeeded' || (r.status === 'pending' && r.ready_at.getTime() > Date.now() + 60_000));
      },
      90_000,
      100,
    );
    billedOnDayOne = Object.values(fake.billed).reduce((a, b) => a + b, 0);
    reservedOnDayOne = await reservedToday(t.runtime.db, 'brightdata');
    const { rows } = await sql<{ status: string; attempts: number; wait_ms: number; until_midnight_ms: number }>`
      select status, attempts,
             extract(epoch from ready_at - now()) * 1000 as wait_ms,
             extract(epoch from (date_trunc('day', now() at time zone 'utc') + interval '1 day') - (now() at time zone 'utc')) * 1000 as until_midnight_ms
        from scan_items where report_id = ${reportId} and status = 'pending'`.execute(t.runtime.db);
    waiting = rows.map((r) => ({ ...r, wait_ms: Number(r.wait_ms), until_midnight_ms: Number(r.until_midnight_ms) }));

    // The next UTC day: the day's reservation is yesterday's, and the waiting items are due.
    await sql`update provider_record_budget set day = day - 1`.execute(t.runtime.db);
    await sql`update scan_items set ready_at = now() where report_id = ${reportId} and status = 'pending'`.execute(t.runtime.db);
    await eventually(
      async () => {
        const runs = await t.runtime.db.selectFrom('scan_runs').select('status').where('report_id', '=', reportId).execute();
        return runs.length === 2 && runs.every((r) => !['queued', 'running'].includes(r.status));
      },
      90_000,
      100,
    );
  });
  after(async () => {
    await stopWorkerProcesses(workers);
    await t?.close();
    await fake?.close();
    await cdn?.close();
  });

  test('on one day, the two processes together reserve and are billed no more records than the budget', () => {
    assert.ok(reservedOnDayOne <= BUDGET, `reserved ${reservedOnDayOne}`);
    assert.ok(billedOnDayOne <= BUDGET, `billed ${billedOnDayOne}`);
    assert.ok(billedOnDayOne > 0);
  });

  test('what does not fit waits for the next UTC day, its attempt not spent', () => {
    assert.ok(waiting.length > 0, 'the budget (15 records) is smaller than the report (21 records)');
    for (const item of waiting) {
      assert.equal(item.attempts, 0);
      assert.ok(item.wait_ms >= item.until_midnight_ms - 5_000, `waits ${item.wait_ms} ms, midnight in ${item.until_midnight_ms} ms`);
    }
  });

  test('the next day every item completes exactly once: nothing lost, nothing doubled', async () => {
    const rows = await items();
    assert.deepEqual(
      rows.map((r) => r.status),
      rows.map(() => 'succeeded'),
    );
    const runs = await t.runtime.db
      .selectFrom('scan_runs')
      .select(['mode', 'status', 'requested', 'completed'])
      .where('report_id', '=', reportId)
      .orderBy('mode')
      .execute();
    assert.deepEqual(
      runs.map((r) => [r.mode, r.status, r.requested, r.completed]),
      [
        ['activity', 'completed', PEOPLE + 1, PEOPLE + 1],
        ['full_profile', 'completed', PEOPLE, PEOPLE],
      ],
    );
    const analyses = await sql<{ n: number }>`select count(*)::int as n from profile_analyses where report_id = ${reportId}`.execute(t.runtime.db);
    assert.equal(analyses.rows[0].n, PEOPLE);
    const billed = Object.values(fake.billed).reduce((a, b) => a + b, 0);
    const usage = await t.runtime.db
      .selectFrom('provider_usage')
      .select(({ fn }) => fn.sum<number>('records').as('records'))
      .where('workspace_id', '=', owner.workspaceId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(usage.records), billed);
  });
});
