/**
 * The typed client (packages/client, `@profile-scan/client`) against a real server
 * and a real PostgreSQL: lists and analysis collections iterated to the end
 * across pages, 429 retried after Retry-After from the real rate limiter, a
 * dropped connection during a create retried with the same key producing one
 * report, a traversal restarted on 409 results_changed while scans run,
 * evidence streams and typed exceptions.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  ProfileScanClient,
  RateLimitError,
  ResultsChangedError,
  ValidationError,
  type ClientOptions,
  type FetchLike,
  type RequestEvent,
} from '../../packages/client/src/index.js';
import { people, reportBody, startTestApp, type TestApp } from '../support/app.js';
import { startDroppingProxy } from '../support/client-proxies.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every record of a collection straight over HTTP, one request per page (for comparison). */
async function directCollection(t: TestApp, key: string, path: string, limit: number, pick: (body: any) => { data: any[]; next: string | null }) {
  const all: any[] = [];
  let cursor: string | null = null;
  do {
    const qs: URLSearchParams = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    const res: { status: number; body: any; text: string } = await t.request('GET', `${path}?${qs}`, { key });
    assert.equal(res.status, 200, res.text);
    const page = pick(res.body);
    all.push(...page.data);
    cursor = page.next;
  } while (cursor);
  return all;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('typed client: iteration, waiting, evidence and errors (worker running)', () => {
  let t: TestApp;
  let secret: string;
  let events: RequestEvent[];
  let client: ProfileScanClient;
  let reportId: string;
  let scanIds: string[];

  before(async () => {
    t = await startTestApp({ env: { SIMULATOR_DELAY_MS: '5' } });
    ({ secret } = await t.tenant());
    events = [];
    client = new ProfileScanClient({ baseUrl: t.baseUrl, apiKey: secret, onRequest: (e) => events.push(e) });
    const created = await client.reports.create(reportBody({ name: 'Iterated', profiles: people(30, 'iter') }));
    assert.equal(created.status, 201);
    assert.equal(created.data.outcome, 'created');
    if (created.data.outcome !== 'created') throw new Error('unreachable');
    reportId = created.data.report.id;
    scanIds = created.data.scan_requests.map((s) => s.id);
    await t.startWorker(2);
  });
  after(async () => t.close());

  test('4.4: writes carry an automatic Idempotency-Key; created report, Location and no replay', async () => {
    const res = await client.reports.create(reportBody({ name: 'Auto key' }));
    assert.equal(res.status, 201);
    assert.equal(res.replayed, false);
    assert.match(res.idempotency_key, /^psc-[0-9a-f-]{36}$/);
    assert.match(res.request_id, UUID);
    assert.ok(res.location?.endsWith(`/api/v1/reports/${res.data.outcome === 'created' ? res.data.report.id : ''}`));
    const again = await client.reports.create(reportBody({ name: 'Auto key' }), { idempotencyKey: res.idempotency_key });
    assert.equal(again.replayed, true, 'the same key and body replay the saved result');
    assert.deepEqual(again.data, res.data);
  });

  test('4.3, 4.6: reports and the roster iterated to the end across pages, same order as the API', async () => {
    for (let i = 0; i < 4; i++) await client.reports.create(reportBody({ name: `Listed ${i}` }));
    events.length = 0;
    const reports = await collect(client.reports.list({ limit: 2 }));
    const direct = await directCollection(t, secret, '/api/v1/reports', 100, (b) => ({ data: b.data, next: b.page.next_cursor }));
    assert.deepEqual(
      reports.map((r) => r.id),
      direct.map((r) => r.id),
    );
    assert.ok(reports.length >= 6);
    assert.equal(events.filter((e) => e.path.startsWith('/api/v1/reports?')).length, Math.ceil(reports.length / 2), 'one request per page');

    const roster = await collect(client.profiles.list(reportId, { limit: 7 }));
    assert.equal(roster.length, 30);
    assert.equal(new Set(roster.map((p) => p.id)).size, 30);
    const directRoster = await directCollection(t, secret, `/api/v1/reports/${reportId}/profiles`, 100, (b) => ({
      data: b.data,
      next: b.page.next_cursor,
    }));
    // The worker is scanning these people meanwhile: `analysis_available` may turn true between the two traversals.
    const stable = (people: typeof roster) => people.map(({ analysis_available: _changing, ...fixed }) => fixed);
    assert.deepEqual(stable(roster), stable(directRoster));
  });

  test('4.7: scans.wait polls with growing intervals until every run is terminal', async () => {
    const updates: string[][] = [];
    const scans = await client.scans.wait(reportId, scanIds, {
      intervalMs: 20,
      maxIntervalMs: 200,
      timeoutMs: 120_000,
      onUpdate: (s) => updates.push(s.map((x) => x.status)),
    });
    assert.equal(scans.length, 2);
    for (const scan of scans) assert.ok(['completed', 'partial', 'failed', 'inaccessible', 'cancelled'].includes(scan.status), scan.status);
    assert.ok(updates.length >= 1);
    assert.deepEqual(
      updates.at(-1),
      scans.map((s) => s.status),
    );
  });

  test('4.11, 4.11a: analysis collections iterated to the end across pages equal the API; traverse reports the revision of the summary', async () => {
    const summary = await client.analysis.summary(reportId);
    const findings = await collect(client.analysis.profiles(reportId, { limit: 4 }));
    assert.equal(findings.length, 30);
    const directFindings = await directCollection(t, secret, `/api/v1/reports/${reportId}/analysis/profiles`, 25, (b) => ({
      data: b.data,
      next: b.next_cursor,
    }));
    assert.deepEqual(findings, directFindings);

    const activity = await client.analysis.traverse(reportId, 'activity', { limit: 5 });
    assert.equal(activity.revision, summary.collections.activity_revision);
    assert.equal(activity.attempts, 1);
    assert.ok(activity.records.length > 5, `several pages of activity (${activity.records.length} events)`);
    assert.equal(activity.pages, Math.ceil(activity.records.length / 5) || 1);
    const directActivity = await directCollection(t, secret, `/api/v1/reports/${reportId}/analysis/activity`, 100, (b) => ({
      data: b.data,
      next: b.next_cursor,
    }));
    assert.deepEqual(activity.records, directActivity);

    const filtered = await collect(client.analysis.activity(reportId, { limit: 3, profile_id: findings[0].profile_id }));
    assert.deepEqual(
      filtered,
      directActivity.filter((e) => e.profile_id === findings[0].profile_id),
    );
  });

  test('4.12: evidence downloads are streams with the bearer header, byte-identical to the API; other origins are refused without a request', async () => {
    const findings = await collect(client.analysis.profiles(reportId, { limit: 25 }));
    const image = findings.flatMap((f) => f.analysis?.checks ?? []).flatMap((c) => c.evidence.images)[0];
    assert.ok(image, 'the simulator produced evidence');
    for (const url of [image.url, image.preview_url]) {
      const download = await client.evidence.download(url);
      assert.match(download.content_type, /^image\/(jpeg|png|webp)$/);
      const chunks: Uint8Array[] = [];
      for await (const chunk of download.body) chunks.push(chunk);
      const bytes = Buffer.concat(chunks);
      assert.equal(bytes.length, download.content_length);
      const direct = await fetch(url, { headers: { authorization: `Bearer ${secret}` } });
      assert.ok(Buffer.from(await direct.arrayBuffer()).equals(bytes));
    }

    let requests = 0;
    const spy: FetchLike = async (input, init) => {
      requests++;
      return fetch(input, init);
    };
    const guarded = new ProfileScanClient({ baseUrl: t.baseUrl, apiKey: secret, fetch: spy });
    const foreign = new URL(image.url);
    foreign.host = 'evidence.invalid';
    await assert.rejects(guarded.evidence.download(foreign.toString()), TypeError);
    await assert.rejects(guarded.evidence.download(`${t.baseUrl}/public/reports/x`), TypeError);
    assert.equal(requests, 0, 'the key was not sent anywhere');

    const missing = image.url.replace(/evidence\/[0-9a-f-]+/, 'evidence/00000000-0000-4000-8000-000000000000');
    const error = await client.evidence.download(missing).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.code, 'not_found');
    assert.equal(error.next_action, 'check_identifiers');
  });

  test('7: typed exceptions carry code, status, request_id and retryable; validation details name rows; the key is never in an error', async () => {
    const notFound = await client.reports.get('00000000-0000-4000-8000-000000000000').then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(notFound instanceof NotFoundError);
    assert.deepEqual([notFound.code, notFound.status, notFound.retryable], ['not_found', 404, false]);
    assert.match(notFound.request_id ?? '', UUID);

    const invalid = await client.imports
      .commit(reportId, [
        { pronet_url: 'https://pronet.example/in/fine' },
        { pronet_url: 'ftp://nope' },
        { pronet_url: 'https://pronet.example/in/x', name: '' },
      ])
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(invalid instanceof ValidationError);
    assert.equal(invalid.code, 'import_validation_failed');
    assert.equal(invalid.retryable, false);
    assert.deepEqual(invalid.details.map((d) => [d.row_number, d.field]).sort(), [
      [2, 'pronet_url'],
      [3, 'name'],
    ]);

    // 4.8 rules 1-2: a preview of rows that fail the schema is the same 422 (no key needed, nothing changed).
    const previewInvalid = await client.imports
      .validate(reportId, [{ pronet_url: 'https://pronet.example/in/fine' }, { pronet_url: 'https://pronet.example/in/y', name: 'x'.repeat(201) }])
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(previewInvalid instanceof ValidationError, String(previewInvalid));
    assert.equal(previewInvalid.code, 'import_validation_failed');
    assert.deepEqual(
      previewInvalid.details.map((d) => [d.row_number, d.field, d.code]),
      [[2, 'name', 'too_long']],
    );

    const key = `reuse-${Date.now()}`;
    await client.imports.commit(reportId, [{ pronet_url: 'https://pronet.example/in/reuse-a' }], { idempotencyKey: key });
    const reused = await client.imports.commit(reportId, [{ pronet_url: 'https://pronet.example/in/reuse-b' }], { idempotencyKey: key }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(reused instanceof ConflictError);
    assert.equal(reused.code, 'idempotency_key_reused');

    const anonymous = new ProfileScanClient({ baseUrl: t.baseUrl, apiKey: 'psk_test_00000000000000000000000000000000' });
    const unauthorized = await anonymous.context().then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(unauthorized instanceof AuthenticationError);
    assert.equal(unauthorized.code, 'unauthorized');
    for (const error of [notFound, invalid, reused, unauthorized]) {
      assert.ok(!JSON.stringify(error).includes(secret) && !String(error.stack).includes(secret));
    }
  });

  test('4.8: preview changes nothing; commit gets a key and returns the receipt; a receipt read equals it', async () => {
    const before = (await client.reports.get(reportId)).profile_count;
    const preview = await client.imports.validate(reportId, [
      { pronet_url: 'https://pronet.example/in/preview-new' },
      { pronet_url: 'https://pronet.example/in/iter-1' },
    ]);
    assert.deepEqual([preview.counts.would_add, preview.counts.already_present], [1, 1]);
    assert.equal((await client.reports.get(reportId)).profile_count, before);
    const receipt = await client.imports.commit(reportId, [{ pronet_url: 'https://pronet.example/in/preview-new' }]);
    assert.equal(receipt.status, 201);
    assert.equal(receipt.data.counts.added, 1);
    assert.deepEqual(await client.imports.get(reportId, receipt.data.id), receipt.data);
  });
});

describe('typed client: retries against the real rate limiter and a dropped connection', () => {
  let t: TestApp;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock(new Date());
    t = await startTestApp({ clock });
  });
  after(async () => t.close());

  test('7, 8: a 429 is retried after Retry-After (the wait ends the window); one beyond maxRetryAfterMs is a RateLimitError', async () => {
    const { secret } = await t.tenant({
      limits: { writes_per_minute_per_key: 1, writes_per_minute_per_workspace: 100, submitted_profiles_per_minute_per_workspace: 1000 },
    });
    // 57.5 s into a UTC minute: the window has 3 seconds left.
    const minute = Math.floor(clock.now().getTime() / 60_000) * 60_000;
    clock.set(new Date(minute + 60_000 + 57_500));
    const sleeps: number[] = [];
    const events: RequestEvent[] = [];
    const options: ClientOptions = {
      baseUrl: t.baseUrl,
      apiKey: secret,
      // The server's clock moves only when the client waits.
      sleep: async (ms) => {
        sleeps.push(ms);
        clock.advance(ms);
      },
      onRequest: (e) => events.push(e),
    };
    const client = new ProfileScanClient(options);
    assert.equal((await client.reports.create(reportBody({ name: 'first' }))).status, 201);
    const second = await client.reports.create(reportBody({ name: 'second' }));
    assert.equal(second.status, 201);
    assert.equal(second.replayed, false);
    assert.deepEqual(
      events.slice(1).map((e) => [e.attempt, e.status, e.code ?? null]),
      [
        [0, 429, 'rate_limited'],
        [1, 201, null],
      ],
    );
    assert.equal(sleeps.length, 1);
    assert.ok(sleeps[0] >= 3000 && sleeps[0] < 3250, `waited Retry-After (3 s) plus jitter: ${sleeps[0]}`);

    const impatient = new ProfileScanClient({ ...options, maxRetryAfterMs: 1000 });
    const error = await impatient.reports.create(reportBody({ name: 'third' })).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(error instanceof RateLimitError);
    assert.deepEqual([error.code, error.status, error.retryable], ['rate_limited', 429, true]);
    assert.ok(error.retry_after_seconds >= 1 && error.retry_after_seconds <= 60);
    assert.match(error.request_id ?? '', UUID);
    const names = (await t.request('GET', '/api/v1/reports?limit=100', { key: secret })).body.data.map((r: { name: string }) => r.name).sort();
    assert.deepEqual(names, ['first', 'second']);
  });

  test('4.4 rule 9: a connection dropped after the server created the report is retried with the same key; exactly one report exists', async () => {
    const { secret } = await t.tenant();
    const proxy = await startDroppingProxy(t.baseUrl, 'POST /api/v1/reports');
    try {
      const events: RequestEvent[] = [];
      const client = new ProfileScanClient({ baseUrl: proxy.url, apiKey: secret, retryBackoffMs: 20, onRequest: (e) => events.push(e) });
      const result = await client.reports.create(reportBody({ name: 'Dropped once', profiles: people(3, 'drop') }));
      assert.equal(proxy.dropped, 1, 'the first response was dropped');
      assert.deepEqual(
        events.map((e) => [e.attempt, e.status, e.code ?? null]),
        [
          [0, null, 'connection_error'],
          [1, 201, null],
        ],
      );
      assert.equal(result.status, 201);
      assert.equal(result.replayed, true, 'the retry replayed the saved result');
      const posts = proxy.seen.filter((s) => s.line.startsWith('POST /api/v1/reports'));
      assert.equal(posts.length, 2);
      assert.deepEqual(
        posts.map((p) => p.idempotencyKey),
        [result.idempotency_key, result.idempotency_key],
      );
      const reports = (await t.request('GET', '/api/v1/reports?limit=100', { key: secret })).body.data;
      assert.deepEqual(
        reports.map((r: { name: string }) => r.name),
        ['Dropped once'],
      );
      assert.equal(reports[0].profile_count, 3);
    } finally {
      await proxy.close();
    }
  });
});

describe('typed client: traversal restarts on 409 results_changed (4.13 rule 5)', () => {
  let t: TestApp;
  let secret: string;
  before(async () => {
    t = await startTestApp({ env: { SIMULATOR_DELAY_MS: '40' } });
    ({ secret } = await t.tenant());
  });
  after(async () => t.close());

  test('while scans run, a traversal that meets a change restarts from a fresh summary; the staged result is one whole traversal', async () => {
    const creator = new ProfileScanClient({ baseUrl: t.baseUrl, apiKey: secret });
    const created = await creator.reports.create(reportBody({ name: 'Restarts', profiles: people(24, 'rs') }));
    if (created.data.outcome !== 'created') throw new Error('unreachable');
    const reportId = created.data.report.id;
    await t.startWorker(2);

    // One certain change between the first and second page of the first traversal; the scans make more.
    let injected = false;
    const changing: FetchLike = async (input, init) => {
      const url = new URL(input);
      if (!injected && url.pathname.endsWith('/analysis/profiles') && url.searchParams.has('cursor')) {
        injected = true;
        await creator.imports.commit(reportId, [{ pronet_url: 'https://pronet.example/in/rs-late' }]);
      }
      return fetch(input, init);
    };
    const client = new ProfileScanClient({
      baseUrl: t.baseUrl,
      apiKey: secret,
      fetch: changing,
      maxAttempts: 200,
      backoffMs: 10,
      maxBackoffMs: 40,
    });
    const running = await client.analysis.summary(reportId);
    assert.equal(running.work.all_requested_work_terminal, false, 'scans are running during the traversal');

    const attempts: number[] = [];
    const restarts: string[] = [];
    let staged: string[] = [];
    let revision = '';
    for await (const page of client.analysis.pages(
      reportId,
      'profiles',
      { limit: 3 },
      { onAttempt: (a) => attempts.push(a), onRestart: (s) => void restarts.push(s.work.state) },
    )) {
      if (page.first) staged = [];
      if (!page.first) assert.equal(page.revision, revision, 'every page of a traversal has its revision');
      revision = page.revision;
      staged.push(...page.data.map((r) => r.profile_id));
    }
    assert.ok(injected);
    assert.ok(attempts.length >= 2, `restarted (${attempts.length} traversals)`);
    assert.deepEqual(
      attempts,
      attempts.map((_, i) => i + 1),
    );
    assert.equal(restarts.length, attempts.length - 1, 'a fresh summary before each restart');
    assert.equal(staged.length, 25, 'the last traversal alone: every active person once');
    assert.equal(new Set(staged).size, 25);

    // The iterator yields one complete traversal too.
    const records = [];
    for await (const record of client.analysis.profiles(reportId, { limit: 5 })) records.push(record.profile_id);
    assert.equal(new Set(records).size, 25);
    assert.equal(records.length, 25);
  });

  test('when every traversal meets a change, the ResultsChangedError escapes after maxAttempts with its attempts, code and request_id', async () => {
    const creator = new ProfileScanClient({ baseUrl: t.baseUrl, apiKey: secret });
    const created = await creator.reports.create(reportBody({ name: 'Always changing', profiles: people(4, 'ac') }));
    if (created.data.outcome !== 'created') throw new Error('unreachable');
    const reportId = created.data.report.id;
    let n = 0;
    const changing: FetchLike = async (input, init) => {
      const url = new URL(input);
      if (url.pathname.endsWith('/analysis/profiles') && url.searchParams.has('cursor')) {
        await creator.imports.commit(reportId, [{ pronet_url: `https://pronet.example/in/ac-new-${++n}` }]);
      }
      return fetch(input, init);
    };
    const sleeps: number[] = [];
    const client = new ProfileScanClient({
      baseUrl: t.baseUrl,
      apiKey: secret,
      fetch: changing,
      maxAttempts: 3,
      backoffMs: 100,
      sleep: async (ms) => void sleeps.push(ms),
    });
    const error = await client.analysis.traverse(reportId, 'profiles', { limit: 1 }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(error instanceof ResultsChangedError);
    assert.deepEqual([error.code, error.status, error.retryable, error.next_action, error.attempts], ['results_changed', 409, true, 'restart_traversal', 3]);
    assert.match(error.request_id ?? '', UUID);
    assert.equal(sleeps.length, 2, 'a backoff before each restart');
    assert.ok(sleeps[0] >= 50 && sleeps[0] <= 100 && sleeps[1] >= 100 && sleeps[1] <= 200, `exponential backoff with jitter: ${sleeps}`);
  });
});
