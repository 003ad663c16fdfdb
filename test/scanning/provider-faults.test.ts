/**
 * Provider faults end to end (decisions "Retries", "Collectors", "Run
 * status"): work admitted by a LIVE key is collected by the HTTP provider
 * (here the local fake provider); a provider that times out, answers 5xx or
 * answers garbage makes the item retry with backoff and then fail with a
 * recorded reason, and the run ends `failed` or `partial` — while other work
 * processed at the same time is not affected.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startScanWorker, type ScanWorker } from '../../src/scanning/worker.js';
import { startFakeProvider, type FakeProvider, type NamedBehavior } from '../support/fake-provider.js';
import { eventually, reportBody, startTestApp, type TestApp } from '../support/app.js';

const API_KEY = 'pk_fault_test_key_1234';
const TIMEOUT_MS = 300;
const MAX_ATTEMPTS = 2;
/** In-call attempts of the HTTP provider collector for transient faults (its default). */
const IN_CALL_ATTEMPTS = 2;

/** The fake provider's answer, chosen by the first word of the URL's last path segment. */
function behaviorFor(url: string): NamedBehavior {
  const slug = new URL(url).pathname.split('/').pop() ?? '';
  switch (slug.split('-')[0]) {
    case 'slow':
      return 'slow'; // answers after 3 s; the collector gives up after TIMEOUT_MS
    case 'error':
      return 'error_500';
    case 'garbage':
      return 'garbage'; // 200, application/json, not JSON
    case 'badshape':
      return 'wrong_shape_missing'; // JSON without captured_at and screenshots
    default:
      return 'ok';
  }
}

const personUrl = (slug: string) => `https://pronet.example/in/${slug}`;
const companyUrl = (slug: string) => `https://pronet.example/company/${slug}`;

interface Created {
  reportId: string;
  fullRunId: string;
  activityRunId: string;
}

describe('provider faults through a live scan run', () => {
  let t: TestApp;
  let provider: FakeProvider;
  let worker: ScanWorker;
  let secret: string;
  const reports: Record<'timeout' | 'error' | 'garbage' | 'mixed' | 'healthy', Created> = {} as never;

  before(async () => {
    provider = await startFakeProvider({ apiKey: API_KEY, slowMs: 3_000, behavior: (req) => behaviorFor(req.url) });
    const providerEnv = { PROVIDER_BASE_URL: provider.url, PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS) };
    t = await startTestApp({ env: { ...providerEnv, ITEM_MAX_ATTEMPTS: String(MAX_ATTEMPTS) } });
    secret = (await t.tenant({ mode: 'live' })).secret;

    // Every report is admitted before the worker starts, so all of them are processed concurrently.
    const create = async (people: string[], company: string): Promise<Created> => {
      const res = await t.request('POST', '/api/v1/reports', {
        key: secret,
        headers: { 'idempotency-key': `pf-${company}` },
        body: reportBody({
          company: { name: company, domain: `${company}.example.com`, pronet_company_url: companyUrl(company) },
          profiles: people.map((p) => ({ pronet_url: personUrl(p) })),
        }),
      });
      assert.equal(res.status, 201, res.text);
      const runs: Array<{ id: string; mode: string }> = res.body.data.scan_requests;
      return {
        reportId: res.body.data.report.id,
        fullRunId: runs.find((r) => r.mode === 'full_profile')!.id,
        activityRunId: runs.find((r) => r.mode === 'activity')!.id,
      };
    };
    reports.timeout = await create(['slow-sam'], 'slow-co');
    reports.error = await create(['error-eve'], 'error-co');
    reports.garbage = await create(['garbage-gus', 'badshape-bea'], 'garbage-co');
    reports.mixed = await create(['ok-olga', 'error-ed'], 'ok-mixed-co');
    reports.healthy = await create(['ok-hana', 'ok-hugo', 'ok-hedda'], 'ok-healthy-co');

    worker = await startScanWorker({ runtime: t.runtime, config: t.config, clock: t.clock, concurrency: 4, log: () => {}, providerEnv });
    for (const created of Object.values(reports)) {
      await terminal(created.reportId, created.fullRunId);
      await terminal(created.reportId, created.activityRunId);
    }
  });
  after(async () => {
    await worker?.stop();
    await t?.close();
    await provider?.close();
  });

  async function terminal(reportId: string, runId: string) {
    return eventually(
      async () => {
        const res = await t.request('GET', `/api/v1/reports/${reportId}/scans/${runId}`, { key: secret });
        assert.equal(res.status, 200, res.text);
        return ['queued', 'running'].includes(res.body.data.status) ? null : res.body.data;
      },
      90_000,
      200,
    );
  }

  async function run(created: Created, mode: 'full_profile' | 'activity') {
    return terminal(created.reportId, mode === 'full_profile' ? created.fullRunId : created.activityRunId);
  }

  /** Items of a report with the URL they collected (person URL, or null for the company page). */
  async function items(created: Created) {
    return t.runtime.db
      .selectFrom('scan_items as i')
      .leftJoin('report_profiles as p', 'p.id', 'i.profile_id')
      .innerJoin('scan_runs as r', 'r.id', 'i.run_id')
      .select(['i.kind', 'r.mode', 'i.status', 'i.attempts', 'i.reason', 'p.pronet_url'])
      .where('i.report_id', '=', created.reportId)
      .execute();
  }

  /** Calls the provider received for one URL in one mode. */
  function calls(url: string, mode: 'full_profile' | 'activity'): number {
    return provider.requests.filter((r) => {
      const body = JSON.parse(r.body);
      return body.url === url && body.mode === mode;
    }).length;
  }

  async function analysedUrls(created: Created): Promise<string[]> {
    const rows = await t.runtime.db
      .selectFrom('profile_analyses as a')
      .innerJoin('report_profiles as p', 'p.id', 'a.profile_id')
      .select('p.pronet_url')
      .where('a.report_id', '=', created.reportId)
      .execute();
    return rows.map((r) => r.pronet_url).sort();
  }

  test(
    'a provider slower than PROVIDER_TIMEOUT_MS: each item is retried, then fails with a timeout reason after ' +
      'ITEM_MAX_ATTEMPTS attempts; the run is failed',
    async () => {
      for (const mode of ['full_profile', 'activity'] as const) {
        const r = await run(reports.timeout, mode);
        assert.equal(r.status, 'failed', mode);
        assert.equal(r.terminal_reason, 'failed');
        assert.equal(r.counts.completed, 0);
        assert.equal(r.counts.failed, r.counts.requested);
      }
      const rows = await items(reports.timeout);
      assert.equal(rows.length, 3, 'one full_profile item, one activity item, one company-page item');
      for (const item of rows) {
        assert.equal(item.status, 'failed');
        assert.equal(item.attempts, MAX_ATTEMPTS);
        assert.match(item.reason ?? '', /timed out/);
      }
      // Bounded: in-call retries × queue attempts, no more.
      assert.equal(calls(personUrl('slow-sam'), 'full_profile'), IN_CALL_ATTEMPTS * MAX_ATTEMPTS);
      assert.equal(calls(companyUrl('slow-co'), 'activity'), IN_CALL_ATTEMPTS * MAX_ATTEMPTS);
    },
  );

  test('a provider answering 500: each item is retried, then fails with the status as reason; the run is failed', async () => {
    for (const mode of ['full_profile', 'activity'] as const) {
      const r = await run(reports.error, mode);
      assert.equal(r.status, 'failed', mode);
      assert.equal(r.terminal_reason, 'failed');
      assert.equal(r.counts.failed, r.counts.requested);
    }
    for (const item of await items(reports.error)) {
      assert.equal(item.status, 'failed');
      assert.equal(item.attempts, MAX_ATTEMPTS);
      assert.equal(item.reason, 'provider answered 500');
    }
    assert.equal(calls(personUrl('error-eve'), 'activity'), IN_CALL_ATTEMPTS * MAX_ATTEMPTS);
  });

  test('a provider answering garbage (non-JSON, or JSON violating the contract): items are retried, then fail as malformed; the run is failed', async () => {
    for (const mode of ['full_profile', 'activity'] as const) {
      const r = await run(reports.garbage, mode);
      assert.equal(r.status, 'failed', mode);
      assert.equal(r.counts.completed, 0);
      assert.equal(r.counts.failed, r.counts.requested);
    }
    const rows = await items(reports.garbage);
    assert.equal(rows.length, 5);
    for (const item of rows) {
      assert.equal(item.status, 'failed');
      assert.equal(item.attempts, MAX_ATTEMPTS);
      assert.equal(item.reason, 'provider returned a malformed answer');
    }
    // A malformed answer is not retried within the call, only by the queue.
    assert.equal(calls(personUrl('garbage-gus'), 'full_profile'), MAX_ATTEMPTS);
    assert.equal(calls(personUrl('badshape-bea'), 'full_profile'), MAX_ATTEMPTS);
  });

  test('a report with one healthy and one faulty person ends partial: the healthy one is analysed, the faulty one failed', async () => {
    for (const mode of ['full_profile', 'activity'] as const) {
      const r = await run(reports.mixed, mode);
      assert.equal(r.status, 'partial', mode);
      assert.equal(r.terminal_reason, null);
      assert.equal(r.counts.failed, 1);
      assert.equal(r.counts.completed, r.counts.requested - 1);
    }
    const rows = await items(reports.mixed);
    for (const item of rows) {
      if (item.pronet_url === personUrl('error-ed')) {
        assert.equal(item.status, 'failed');
        assert.equal(item.attempts, MAX_ATTEMPTS);
        assert.equal(item.reason, 'provider answered 500');
      } else {
        assert.equal(item.status, 'succeeded');
        assert.equal(item.attempts, 1);
      }
    }
    assert.deepEqual(await analysedUrls(reports.mixed), [personUrl('ok-olga')]);
  });

  test(
    'nothing else is affected: a healthy live report processed concurrently completes from provider data, and no ' + 'faulty person has an analysis',
    async () => {
      for (const mode of ['full_profile', 'activity'] as const) {
        const r = await run(reports.healthy, mode);
        assert.equal(r.status, 'completed', mode);
        assert.equal(r.counts.completed, r.counts.requested);
        assert.equal(r.counts.failed, 0);
      }
      for (const item of await items(reports.healthy)) {
        assert.equal(item.status, 'succeeded');
        assert.equal(item.attempts, 1);
      }
      assert.deepEqual(await analysedUrls(reports.healthy), ['ok-hana', 'ok-hedda', 'ok-hugo'].map(personUrl));
      // The data came from the provider, not the simulator.
      const analysis = await t.runtime.db
        .selectFrom('profile_analyses')
        .select('profile_data')
        .where('report_id', '=', reports.healthy.reportId)
        .executeTakeFirstOrThrow();
      assert.equal((analysis.profile_data as { name?: string }).name, 'Ada Example');
      const company = await t.runtime.db
        .selectFrom('company_context')
        .select('name')
        .where('report_id', '=', reports.healthy.reportId)
        .executeTakeFirstOrThrow();
      assert.equal(company.name, 'Example Corp');

      for (const faulty of [reports.timeout, reports.error, reports.garbage]) {
        assert.deepEqual(await analysedUrls(faulty), []);
        const events = await t.runtime.db.selectFrom('activity_events').select('id').where('report_id', '=', faulty.reportId).execute();
        assert.equal(events.length, 0);
      }
      const report = await t.request('GET', `/api/v1/reports/${reports.healthy.reportId}`, { key: secret });
      assert.equal(report.body.data.analysis_state, 'available');
      const failedReport = await t.request('GET', `/api/v1/reports/${reports.timeout.reportId}`, { key: secret });
      assert.equal(failedReport.body.data.analysis_state, 'failed');
    },
  );
});
