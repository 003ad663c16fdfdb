/**
 * The reconciliation client (packages/client) against a real server: the 4.13
 * procedure while scans change results, the 409 restart path, and failures
 * that must keep the previous local state.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  createAnalysisClient,
  emptyState,
  reconcile,
  serializeState,
  type AnalysisClientOptions,
  type CollectionName,
  type FetchLike,
  type LocalState,
  type ReconcileResult,
} from '../../packages/client/src/reconcile.js';
import { revisionOf } from '../../src/domain/revision.js';
import { createReport, people, startTestApp, type TestApp } from '../support/app.js';
import { removeFromReport } from '../support/operator.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fresh, unconditional traversal of one collection, straight over HTTP. */
async function serverCollection(t: TestApp, secret: string, reportId: string, collection: CollectionName) {
  const keyOf = (r: any) => (collection === 'profiles' ? r.profile_id : r.id);
  for (let attempt = 0; attempt < 5; attempt++) {
    const records = new Map<string, any>();
    let cursor: string | null = null;
    let revision: string | null = null;
    let restarted = false;
    do {
      const qs: URLSearchParams = new URLSearchParams({ limit: collection === 'profiles' ? '25' : '100', ...(cursor ? { cursor } : {}) });
      const res: { status: number; body: any; text: string } = await t.request('GET', `/api/v1/reports/${reportId}/analysis/${collection}?${qs}`, {
        key: secret,
      });
      if (res.status === 409) {
        restarted = true;
        break;
      }
      assert.equal(res.status, 200, res.text);
      revision = res.body.revision;
      for (const r of res.body.data) records.set(keyOf(r), r);
      cursor = res.body.next_cursor;
    } while (cursor);
    if (!restarted) return { revision, records };
  }
  throw new Error('collection kept changing');
}

async function summaryOf(t: TestApp, secret: string, reportId: string) {
  const res = await t.request('GET', `/api/v1/reports/${reportId}/analysis`, { key: secret });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function assertEqualsServer(t: TestApp, secret: string, reportId: string, state: LocalState) {
  const summary = await summaryOf(t, secret, reportId);
  for (const collection of ['profiles', 'activity'] as const) {
    const server = await serverCollection(t, secret, reportId, collection);
    assert.equal(state[collection].revision, server.revision, `${collection}: local revision is the server's`);
    assert.equal(state[collection].revision, summary.collections[`${collection}_revision`], `${collection}: local revision is the summary's`);
    assert.deepEqual([...state[collection].records.keys()].sort(), [...server.records.keys()].sort(), `${collection}: same ids`);
    for (const [id, record] of server.records) assert.deepEqual(state[collection].records.get(id), record, `${collection}: same record ${id}`);
  }
}

/**
 * White-box check that a saved collection is one whole traversal: the
 * service's collection revision is a hash of the sum of hashed (id, revision)
 * pairs (src/domain/analysis-aggregate.ts), recomputed here from the local
 * records. A mix of pages from two revisions would not match.
 */
function collectionRevisionOf(records: ReadonlyMap<string, { revision: string }>): string {
  const mod = 1n << 128n;
  let acc = 0n;
  for (const [id, record] of records) {
    const digest = createHash('sha256').update(id).update('\u0000').update(record.revision).digest();
    acc = (acc + digest.readBigUInt64BE(0) * (1n << 64n) + digest.readBigUInt64BE(8)) % mod;
  }
  return revisionOf({ n: records.size, acc: acc.toString(16) });
}

function assertSelfConsistent(state: LocalState) {
  for (const collection of ['profiles', 'activity'] as const) {
    const saved = state[collection];
    if (saved.revision !== null) assert.equal(collectionRevisionOf(saved.records), saved.revision, `${collection}: saved records are the saved revision`);
  }
}

/** fetch that runs `before` ahead of each request and may answer instead of the server. */
function wrapFetch(beforeRequest: (url: URL) => Promise<Response | void>): FetchLike {
  return async (input, init) => (await beforeRequest(new URL(input))) ?? fetch(input, init);
}

const isPage = (url: URL, collection: CollectionName) => url.pathname.endsWith(`/analysis/${collection}`);
const isLaterPage = (url: URL, collection: CollectionName) => isPage(url, collection) && url.searchParams.has('cursor');

describe('4.13 reconciliation while scans change results', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { SIMULATOR_DELAY_MS: '75' } });
  });
  after(async () => t.close());

  test('4.13: repeated reconciliation during scans ends with a local copy equal to the server; saved collections are always whole traversals', async (ctx) => {
    const { secret } = await t.tenant();
    const { report, scan_requests } = await createReport(t, secret, { profiles: people(30, 'rc') });
    await t.startWorker(2);
    const client = createAnalysisClient({ baseUrl: t.baseUrl, apiKey: secret, backoffMs: 40, maxBackoffMs: 200 });
    // Small pages so that traversals span several requests and meet concurrent changes.
    const options = { profiles: { limit: 4 }, activity: { limit: 15 } };
    const state = emptyState();
    const tally = { calls: 0, replaced: 0, restarted: 0, incomplete: 0 };

    const allTerminal = async () => {
      for (const run of scan_requests) {
        const res = await t.request('GET', `/api/v1/reports/${report.id}/scans/${run.id}`, { key: secret });
        assert.equal(res.status, 200);
        if (['queued', 'running'].includes(res.body.data.status)) return false;
      }
      return true;
    };

    const deadline = Date.now() + 120_000;
    for (;;) {
      const previous = { profiles: state.profiles, activity: state.activity };
      const result: ReconcileResult = await reconcile(client, report.id, state, options);
      tally.calls++;
      for (const collection of ['profiles', 'activity'] as const) {
        const out = result[collection];
        if (out.status === 'replaced') tally.replaced++;
        if (out.attempts > 1) tally.restarted++;
        if (out.status === 'incomplete') {
          tally.incomplete++;
          assert.equal(state[collection], previous[collection], '4.13 rule 5: an incomplete traversal keeps the previous state');
        }
        if (out.status === 'unchanged') assert.equal(state[collection], previous[collection]);
        assert.ok(out.attempts <= 3, 'bounded restarts');
      }
      assertSelfConsistent(state);
      if (await allTerminal()) break;
      assert.ok(Date.now() < deadline, 'scans did not finish in time');
      await pause(200);
    }

    const last = await reconcile(client, report.id, state, options);
    assert.notEqual(last.profiles.status, 'incomplete');
    assert.notEqual(last.activity.status, 'incomplete');
    assertSelfConsistent(state);
    await assertEqualsServer(t, secret, report.id, state);
    assert.equal(state.profiles.records.size, 30);
    assert.ok(state.activity.records.size > 0);
    ctx.diagnostic(`reconcile calls ${tally.calls}, replaced ${tally.replaced}, restarted ${tally.restarted}, incomplete ${tally.incomplete}`);
    assert.ok(tally.calls >= 3, 'scans took long enough to reconcile several times');
    assert.ok(tally.replaced >= 3, 'reconciliation observed changes while scans ran');
  });
});

describe('4.13 restarts and failures (no worker: results change only when the test changes them)', () => {
  let t: TestApp;
  let secret: string;
  before(async () => {
    t = await startTestApp();
    ({ secret } = await t.tenant());
  });
  after(async () => t.close());

  function client(options: Partial<AnalysisClientOptions> = {}) {
    const sleeps: number[] = [];
    const c = createAnalysisClient({
      baseUrl: t.baseUrl,
      apiKey: secret,
      backoffMs: 100,
      maxBackoffMs: 1000,
      sleep: async (ms) => void sleeps.push(ms),
      ...options,
    });
    return { client: c, sleeps };
  }

  async function importPerson(reportId: string, slug: string) {
    const res = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
      key: secret,
      headers: { 'idempotency-key': `imp-${slug}` },
      body: { profiles: [{ pronet_url: `https://pronet.example/in/${slug}` }] },
    });
    assert.equal(res.status, 201, res.text);
  }

  test('4.13 rule 5: a 409 results_changed discards staged pages, re-reads the summary and restarts; the restart is replaced with the new state', async () => {
    const { report } = await createReport(t, secret, { profiles: people(3, 'r409') });
    let changed = 0;
    let conflicts = 0;
    const fetch409: FetchLike = async (input, init) => {
      const url = new URL(input);
      if (isLaterPage(url, 'profiles') && changed === 0) {
        changed++;
        await importPerson(report.id, `r409-new-${Math.random().toString(36).slice(2)}`);
      }
      const res = await fetch(input, init);
      if (res.status === 409) {
        conflicts++;
        const body = await res.clone().json();
        assert.equal(body.error.code, 'results_changed');
        assert.equal(body.error.retryable, true, '7.1: analysis errors carry retryable');
      }
      return res;
    };
    const { client: c, sleeps } = client({ fetch: fetch409 });
    const state = emptyState();
    const result = await reconcile(c, report.id, state, { profiles: { limit: 1 } });
    assert.equal(conflicts, 1, 'the server answered 409 to the page after the change');
    assert.equal(result.profiles.status, 'replaced');
    assert.equal(result.profiles.attempts, 2);
    assert.equal(result.profiles.records, 4);
    assert.deepEqual(result.profiles.changes, { added: 4, updated: 0, removed: 0 });
    assert.equal(result.activity.status, 'replaced', 'first traversal of the (empty) activity collection');
    assert.equal(sleeps.length, 1);
    assert.ok(sleeps[0] >= 50 && sleeps[0] <= 100, `backoff with jitter within [backoff/2, backoff]: ${sleeps[0]}`);
    assertSelfConsistent(state);
    await assertEqualsServer(t, secret, report.id, state);
  });

  test('4.13 rule 5: when every traversal meets a change, restarts stop after maxAttempts and the previous state is kept', async () => {
    const { report } = await createReport(t, secret, { profiles: people(3, 'rmax') });
    const state = emptyState();
    assert.equal((await reconcile(client().client, report.id, state)).profiles.status, 'replaced');
    const before = state.profiles;
    const saved = JSON.stringify(serializeState(state));
    await importPerson(report.id, 'rmax-first');

    let changes = 0;
    const alwaysChanging = wrapFetch(async (url) => {
      if (isLaterPage(url, 'profiles')) await importPerson(report.id, `rmax-new-${++changes}`);
    });
    const { client: c, sleeps } = client({ fetch: alwaysChanging, maxAttempts: 3 });
    const result = await reconcile(c, report.id, state, { profiles: { limit: 1 } });
    assert.equal(result.profiles.status, 'incomplete');
    assert.equal(result.profiles.attempts, 3);
    assert.equal(result.profiles.failure?.kind, 'results_changed');
    assert.equal(changes, 3, 'one traversal per attempt');
    assert.deepEqual(sleeps.length, 2, 'a backoff before each restart');
    assert.ok(sleeps[0] <= 100 && sleeps[1] <= 200 && sleeps[1] >= 100, `exponential backoff: ${sleeps}`);
    assert.equal(state.profiles, before, 'previous collection object kept');
    assert.equal(JSON.stringify(serializeState(state)), saved, 'previous records and revision unchanged');
    assert.equal(result.profiles.revision, before.revision);
    assert.equal(result.profiles.records, 3);

    // Once the collection settles, the next call catches up.
    const caughtUp = await reconcile(client().client, report.id, state);
    assert.equal(caughtUp.profiles.status, 'replaced');
    assert.deepEqual(caughtUp.profiles.changes, { added: 4, updated: 0, removed: 0 });
    await assertEqualsServer(t, secret, report.id, state);
  });

  test('4.13 rule 5: an incomplete traversal (network failure on page 2) keeps the previous records and revision and infers no deletions', async () => {
    const created = await createReport(t, secret, { profiles: people(3, 'rnet') });
    const reportId = created.report.id;
    const state = emptyState();
    assert.equal((await reconcile(client().client, reportId, state)).profiles.status, 'replaced');
    const before = state.profiles;
    const removedId = created.profiles.rows[0].profile_id;
    await removeFromReport(t, reportId, removedId);

    let failures = 0;
    const failing = wrapFetch(async (url) => {
      if (isLaterPage(url, 'profiles')) {
        failures++;
        throw new TypeError('fetch failed');
      }
    });
    const { client: c } = client({ fetch: failing, requestRetries: 2 });
    const result = await reconcile(c, reportId, state, { profiles: { limit: 1 } });
    assert.equal(result.profiles.status, 'incomplete');
    assert.equal(result.profiles.failure?.kind, 'network');
    assert.equal(result.profiles.attempts, 1, 'a network failure is not a reason to restart the traversal');
    assert.equal(failures, 3, 'the page was tried 1 + requestRetries times');
    assert.equal(state.profiles, before);
    assert.equal(state.profiles.records.size, 3);
    assert.ok(state.profiles.records.has(removedId), 'no deletion inferred from an incomplete traversal');
    assert.equal(result.activity.status, 'unchanged');

    const complete = await reconcile(client().client, reportId, state, { profiles: { limit: 1 } });
    assert.equal(complete.profiles.status, 'replaced');
    assert.deepEqual(complete.profiles.changes, { added: 0, updated: 0, removed: 1 }, '4.13 rule 4: absent from a completed traversal → removed');
    assert.ok(!state.profiles.records.has(removedId));
    await assertEqualsServer(t, secret, reportId, state);
  });

  test(
    '7: 429 waits Retry-After and 5xx is retried with bounded backoff; a wait beyond the budget leaves the ' + 'collection incomplete; the key is never echoed',
    async () => {
      const { report } = await createReport(t, secret, { profiles: people(2, 'r429') });
      const envelope = (code: string) => JSON.stringify({ error: { code, message: code }, request_id: '00000000-0000-4000-8000-000000000000' });
      const injected = [
        () => new Response(envelope('rate_limited'), { status: 429, headers: { 'retry-after': '2', 'content-type': 'application/json' } }),
        () => new Response(envelope('unavailable'), { status: 503, headers: { 'content-type': 'application/json' } }),
      ];
      const flaky = wrapFetch(async (url) => (isPage(url, 'profiles') ? injected.shift()?.() : undefined));
      const { client: c, sleeps } = client({ fetch: flaky, retryBackoffMs: 300, random: () => 0.5 });
      const state = emptyState();
      const ok = await reconcile(c, report.id, state);
      assert.equal(ok.profiles.status, 'replaced');
      assert.equal(ok.profiles.attempts, 1, 'retries of one request are not traversal restarts');
      assert.deepEqual(sleeps, [2000 + 125, 450], 'Retry-After seconds (plus jitter), then backoff with jitter');
      await assertEqualsServer(t, secret, report.id, state);

      await importPerson(report.id, 'r429-later');
      const before = state.profiles;
      const tooLong = wrapFetch(async (url) =>
        isPage(url, 'profiles') ? new Response(envelope('rate_limited'), { status: 429, headers: { 'retry-after': '120' } }) : undefined,
      );
      const limited = await reconcile(client({ fetch: tooLong, maxRetryAfterMs: 60_000 }).client, report.id, state);
      assert.equal(limited.profiles.status, 'incomplete');
      assert.equal(limited.profiles.failure?.kind, 'rate_limited');
      assert.equal(state.profiles, before);

      const down = wrapFetch(async () => new Response('bad gateway', { status: 502 }));
      const unreachable = await reconcile(client({ fetch: down }).client, report.id, state);
      assert.deepEqual([unreachable.profiles.status, unreachable.activity.status], ['incomplete', 'incomplete']);
      assert.equal(unreachable.summary, null);
      assert.equal(state.profiles, before);
      for (const r of [ok, limited, unreachable]) assert.ok(!JSON.stringify(r).includes(secret), 'the key is never echoed');
    },
  );
});
