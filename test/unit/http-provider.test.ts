/**
 * The HTTP provider collector against a real local HTTP server (the fake
 * provider): mapping, status handling, in-call retries, deferral on 429 and
 * 503 + Retry-After, timeouts, limits, strict validation, secrecy of reasons,
 * abort, the in-process provider quota, and configuration from env.
 * (The quota shared through PostgreSQL: test/scanning/provider-quota-shared.test.ts.)
 */

import assert from 'node:assert/strict';
import { before, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CollectorError, type CollectRequest } from '../../src/scanning/collectors/collector.js';
import { HttpProviderCollector, PROVIDER_DEFER, providerCollectorFromEnv, type HttpProviderOptions } from '../../src/scanning/collectors/http-provider.js';
import { LocalProviderQuota } from '../../src/scanning/collectors/provider-quota.js';
import {
  CAPTURED_AT,
  PNG_1X1_BASE64,
  okAnswer,
  rateLimitedFirst,
  startFakeProvider,
  type Behavior,
  type FakeProvider,
  type FakeProviderOptions,
} from '../support/fake-provider.js';

const API_KEY = 'pk_secret_key_7f3a9c';
const PERSON_URL = 'https://pronet.example/in/ada-lovelace-42';
const COMPANY_URL = 'https://pronet.example/company/example-corp';
/**
 * Time limits hold on a loaded machine (several test runs sharing two cores): a call expected to
 * succeed gets a generous per-attempt timeout, and a test that needs the timeout to fire uses a
 * short one against a fake that answers only after SLOW_MS. Time is asserted as lower bounds (a
 * timeout cannot fire early, a quota cannot start a call early) or, for "gave up without waiting",
 * as a bound far below what waiting would have cost; never as "finished within a few ms".
 */
const TIMEOUT_MS = 10_000;
const SHORT_TIMEOUT_MS = 300;
const SLOW_MS = 30_000;
/** Timers may fire up to a millisecond before the time measured around them. */
const TIMER_SLACK_MS = 5;
const MiB = 1024 * 1024;

async function fake(t: TestContext, behavior: Behavior | Behavior[], options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const provider = await startFakeProvider({ behavior, apiKey: API_KEY, slowMs: SLOW_MS, ...options });
  t.after(() => provider.close());
  return provider;
}

function collector(provider: FakeProvider, options: Partial<HttpProviderOptions> = {}): HttpProviderCollector {
  return new HttpProviderCollector({
    baseUrl: provider.url,
    apiKey: API_KEY,
    timeoutMs: TIMEOUT_MS,
    backoffBaseMs: 10,
    maxRetryDelayMs: 300,
    ...options,
  });
}

function request(overrides: Partial<CollectRequest> = {}): CollectRequest {
  return {
    kind: 'person',
    mode: 'activity',
    url: PERSON_URL,
    attempt: 1,
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function collectorError(promise: Promise<unknown>): Promise<CollectorError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof CollectorError, `expected a CollectorError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected collect() to reject');
}

/** Resolves once `condition` holds (polled); fails the test after 20 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (!condition()) {
    assert.ok(performance.now() < deadline, `timed out waiting until ${what}`);
    await sleep(5);
  }
}

/** An 'ok' answer for the request, altered by `mutate`. */
function altered(mutate: (answer: any) => void): Behavior {
  return (req) => {
    const answer = okAnswer(req);
    mutate(answer);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) };
  };
}

// The first fetch() of a process loads and compiles undici: on a busy machine that alone can
// exceed the short per-attempt timeout of the timeout tests. Pay it once, outside any test.
before(async () => {
  const provider = await startFakeProvider({ behavior: 'ok' });
  try {
    await (await fetch(`${provider.url}/v1/collect`, { method: 'POST', body: '{}' })).arrayBuffer();
  } finally {
    await provider.close();
  }
});

// --- Mapping --------------------------------------------------------------

test('ok answer for a person maps profile, activity and decoded screenshots', async (t) => {
  const provider = await fake(t, 'ok');
  const result = await collector(provider).collect(request());
  assert.equal(result.outcome, 'ok');
  if (result.outcome !== 'ok') return;
  assert.equal(result.captured_at, CAPTURED_AT);
  assert.equal(result.profile?.name, 'Ada Example');
  assert.equal(result.profile?.connections, 500);
  assert.deepEqual(result.profile?.positions?.[0], {
    title: 'Engineer',
    company: 'Example Corp',
    start: '2021-03',
    end: null,
    description: null,
  });
  assert.deepEqual(result.profile?.languages, ['English', 'German']);
  assert.equal(result.profile?.certifications_count, null);
  assert.equal(result.activity?.length, 1);
  assert.deepEqual(result.activity?.[0].counts, { reactions: 12, comments: 3, reposts: null });
  assert.equal(result.activity?.[0].actor.url, PERSON_URL);
  assert.equal(result.company, null);
  assert.deepEqual(result.missing_sections, ['about']);
  assert.equal(result.screenshots.length, 1);
  assert.equal(result.screenshots[0].section, 'top_card');
  assert.equal(result.screenshots[0].media_type, 'image/png');
  assert.ok(Buffer.isBuffer(result.screenshots[0].bytes));
  assert.deepEqual(result.screenshots[0].bytes, Buffer.from(PNG_1X1_BASE64, 'base64'));
});

test('ok answer for a company page maps company and no profile', async (t) => {
  const provider = await fake(t, 'ok');
  const result = await collector(provider).collect(request({ kind: 'company_page', url: COMPANY_URL }));
  assert.equal(result.outcome, 'ok');
  if (result.outcome !== 'ok') return;
  assert.equal(result.profile, null);
  assert.deepEqual(result.company, {
    name: 'Example Corp',
    tagline: 'We make examples',
    industry: 'Software',
    follower_count: 1200,
    website: 'https://example.com',
  });
  assert.equal(result.screenshots[0].section, 'company');
});

test('unknown answer members are dropped, not passed through', async (t) => {
  const provider = await fake(
    t,
    altered((a) => {
      a.extra = 'x';
      a.profile.internal_note = 'secret';
    }),
  );
  const result = await collector(provider).collect(request());
  assert.equal(result.outcome, 'ok');
  if (result.outcome !== 'ok') return;
  assert.equal('extra' in result, false);
  assert.equal('internal_note' in (result.profile ?? {}), false);
});

test('request is POST /v1/collect with kind, mode, url, bearer key, JSON accept and product user agent', async (t) => {
  const provider = await fake(t, 'ok');
  await collector(provider, { baseUrl: `${provider.url}/` }).collect(request({ mode: 'full_profile' }));
  assert.equal(provider.requests.length, 1);
  const sent = provider.requests[0];
  assert.equal(sent.method, 'POST');
  assert.equal(sent.path, '/v1/collect');
  assert.deepEqual(JSON.parse(sent.body), { kind: 'person', mode: 'full_profile', url: PERSON_URL });
  assert.equal(sent.headers.authorization, `Bearer ${API_KEY}`);
  assert.equal(sent.headers.accept, 'application/json');
  assert.match(sent.headers['user-agent'] ?? '', /^profile-scan\/\d+\.\d+\.\d+/);
});

test('inaccessible answer maps to outcome inaccessible with the provider code', async (t) => {
  const provider = await fake(t, 'inaccessible');
  assert.deepEqual(await collector(provider).collect(request()), {
    outcome: 'inaccessible',
    reason: 'provider: private_profile',
  });
});

test('inaccessible answer with free text does not copy the text into the reason', async (t) => {
  const provider = await fake(t, {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'inaccessible', reason: `Profile ${PERSON_URL} is private` }),
  });
  assert.deepEqual(await collector(provider).collect(request()), {
    outcome: 'inaccessible',
    reason: 'provider: inaccessible',
  });
});

for (const status of [404, 410]) {
  test(`${status} maps to inaccessible 'provider: not found' without retry`, async (t) => {
    const provider = await fake(t, { status, body: '' });
    assert.deepEqual(await collector(provider).collect(request()), {
      outcome: 'inaccessible',
      reason: 'provider: not found',
    });
    assert.equal(provider.calls, 1);
  });
}

// --- Status codes and in-call retries --------------------------------------

for (const status of [401, 403]) {
  test(`${status} is a non-retryable 'provider rejected credentials' after a single call`, async (t) => {
    const provider = await fake(t, { status, body: '' });
    const err = await collectorError(collector(provider, { maxAttemptsPerCall: 3 }).collect(request()));
    assert.equal(err.reason, 'provider rejected credentials');
    assert.equal(err.retryable, false);
    assert.equal(provider.calls, 1);
  });
}

test('a wrong API key is rejected by the provider and ends the item (non-retryable)', async (t) => {
  const provider = await fake(t, 'ok');
  const err = await collectorError(collector(provider, { apiKey: 'wrong-key' }).collect(request()));
  assert.equal(err.reason, 'provider rejected credentials');
  assert.equal(err.retryable, false);
});

test('500 is retried in-call maxAttemptsPerCall times, then a retryable "provider answered 500"', async (t) => {
  const provider = await fake(t, 'error_500');
  const err = await collectorError(collector(provider, { maxAttemptsPerCall: 3 }).collect(request()));
  assert.equal(err.reason, 'provider answered 500');
  assert.equal(err.retryable, true);
  assert.equal(provider.calls, 3);
});

test('maxAttemptsPerCall defaults to 2', async (t) => {
  const provider = await fake(t, 'error_500');
  const c = new HttpProviderCollector({ baseUrl: provider.url, apiKey: API_KEY, timeoutMs: TIMEOUT_MS });
  await collectorError(c.collect(request()));
  assert.equal(provider.calls, 2);
});

test('a transient 503 without Retry-After followed by a good answer succeeds within the same call', async (t) => {
  const provider = await fake(t, ['unavailable_503', 'ok'], { retryAfter: null });
  const result = await collector(provider).collect(request());
  assert.equal(result.outcome, 'ok');
  assert.equal(provider.calls, 2);
});

test('a persistent 503 without Retry-After is retried in-call, then a retryable error that spends the attempt (no deferMs)', async (t) => {
  const provider = await fake(t, 'unavailable_503', { retryAfter: null });
  const err = await collectorError(collector(provider).collect(request()));
  assert.equal(err.reason, 'provider answered 503');
  assert.equal(err.retryable, true);
  assert.equal(err.deferMs, undefined);
  assert.equal(provider.calls, 2);
});

test('408 is retryable', async (t) => {
  const provider = await fake(t, { status: 408, body: '' });
  const err = await collectorError(collector(provider).collect(request()));
  assert.equal(err.reason, 'provider answered 408');
  assert.equal(err.retryable, true);
  assert.equal(provider.calls, 2);
});

test('other 4xx (400) is non-retryable and not retried in-call', async (t) => {
  const provider = await fake(t, { status: 400, body: '' });
  const err = await collectorError(collector(provider).collect(request()));
  assert.equal(err.reason, 'provider answered 400');
  assert.equal(err.retryable, false);
  assert.equal(provider.calls, 1);
});

test('redirects are not followed (the key is never replayed elsewhere) and are non-retryable', async (t) => {
  const provider = await fake(t, 'redirect');
  const err = await collectorError(collector(provider).collect(request()));
  assert.equal(err.reason, 'provider answered 302');
  assert.equal(err.retryable, false);
  assert.equal(provider.calls, 1);
});

// --- 429 and 503 + Retry-After: defer the item, do not spend an attempt ------

/** deferMs is the clamped Retry-After plus up to 10 % (≤ 5 s) of jitter, never beyond the maximum. */
function assertDefer(err: CollectorError, atLeastMs: number, baseMs = atLeastMs): void {
  assert.equal(err.retryable, true);
  assert.ok(err.deferMs !== undefined, 'expected a deferral');
  assert.ok(Number.isSafeInteger(err.deferMs));
  const most = Math.min(baseMs + Math.min(baseMs * 0.1, 5_000) + 1, PROVIDER_DEFER.maxMs);
  assert.ok(err.deferMs >= atLeastMs && err.deferMs <= most, `deferMs ${err.deferMs} outside [${atLeastMs}, ${most}]`);
}

test('429 with Retry-After in seconds → deferred by that long, after a single call (no in-call retry)', async (t) => {
  const provider = await fake(t, 'rate_limited', { retryAfter: '120' });
  const err = await collectorError(collector(provider, { maxAttemptsPerCall: 3 }).collect(request()));
  assert.equal(err.reason, 'provider answered 429');
  assertDefer(err, 120_000);
  assert.equal(provider.calls, 1);
});

/** A whole second (HTTP dates have no fractions), at which Date is frozen by mock timers. */
const NOW = Date.parse('2030-06-14T08:00:00Z');

test('429 with Retry-After as an HTTP date → deferred until that date', async (t) => {
  // Date.now() stands still (node:test mock timers), so the date is exactly 90 s ahead however
  // long the exchange takes; the collector's timers are real.
  t.mock.timers.enable({ apis: ['Date'], now: NOW });
  const provider = await fake(t, 'rate_limited', { retryAfter: new Date(NOW + 90_000).toUTCString() });
  const err = await collectorError(collector(provider).collect(request()));
  assertDefer(err, 90_000);
  assert.equal(provider.calls, 1);
});

test('429 with Retry-After in the obsolete HTTP-date forms (RFC 850, asctime) → read as UTC', async (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: NOW });
  const at = new Date(NOW + 60_000);
  const [wkd, dd, mon, yyyy, time] = at.toUTCString().replace(',', '').split(' ');
  const weekday = { Sun: 'Sunday', Mon: 'Monday', Tue: 'Tuesday', Wed: 'Wednesday', Thu: 'Thursday', Fri: 'Friday', Sat: 'Saturday' }[wkd];
  const forms = [`${weekday}, ${dd}-${mon}-${yyyy.slice(2)} ${time} GMT`, `${wkd} ${mon} ${String(Number(dd)).padStart(2, ' ')} ${time} ${yyyy}`];
  for (const retryAfter of forms) {
    const provider = await fake(t, 'rate_limited', { retryAfter });
    assertDefer(await collectorError(collector(provider).collect(request())), 60_000);
  }
});

test('429 with Retry-After in the past, or 0 → deferred by the minimum (1 s)', async (t) => {
  for (const retryAfter of [new Date(Date.now() - 60_000).toUTCString(), '0']) {
    const provider = await fake(t, 'rate_limited', { retryAfter });
    assertDefer(await collectorError(collector(provider).collect(request())), PROVIDER_DEFER.minMs);
  }
});

test('429 with a Retry-After beyond 15 minutes → deferred by the maximum (15 min)', async (t) => {
  const provider = await fake(t, 'rate_limited', { retryAfter: '86400' });
  const err = await collectorError(collector(provider).collect(request()));
  assert.equal(err.deferMs, PROVIDER_DEFER.maxMs);
  assert.equal(PROVIDER_DEFER.maxMs, 900_000);
});

test('429 without Retry-After, or with an unusable one → deferred by the default (30 s)', async (t) => {
  for (const retryAfter of [null, '', 'soon', '-5', '1.5', '2030-01-01T00:00:00Z', 'Sun, 31 Feb 2030 00:00:00 GMT']) {
    const provider = await fake(t, 'rate_limited', { retryAfter });
    const err = await collectorError(collector(provider).collect(request()));
    assert.equal(err.reason, 'provider answered 429');
    assertDefer(err, PROVIDER_DEFER.defaultMs);
    assert.equal(PROVIDER_DEFER.defaultMs, 30_000);
    assert.equal(provider.calls, 1);
  }
});

test('503 with Retry-After is deferred like a 429', async (t) => {
  const provider = await fake(t, 'unavailable_503', { retryAfter: '5' });
  const err = await collectorError(collector(provider).collect(request()));
  assert.equal(err.reason, 'provider answered 503');
  assertDefer(err, 5_000);
  assert.equal(provider.calls, 1);
});

test('rateLimitedFirst: 429 twice per URL, then the answer; each 429 is a deferral, the third collect succeeds', async (t) => {
  const provider = await fake(t, rateLimitedFirst(2, { retryAfter: '3' }));
  const c = collector(provider);
  for (let i = 0; i < 2; i++) assertDefer(await collectorError(c.collect(request())), 3_000);
  // Another URL has its own count.
  assertDefer(await collectorError(c.collect(request({ url: `${PERSON_URL}-2` }))), 3_000);
  assert.equal((await c.collect(request())).outcome, 'ok');
  assert.equal(provider.calls, 4);
});

test('failures other than 429 / 503 + Retry-After never carry deferMs', async (t) => {
  for (const behavior of ['error_500', 'garbage', 'unauthorized', 'redirect'] as const) {
    const provider = await fake(t, behavior);
    assert.equal((await collectorError(collector(provider).collect(request()))).deferMs, undefined, behavior);
  }
});

test('CollectorError accepts deferMs only as a positive integer with retryable: true', () => {
  assert.equal(new CollectorError('x', { retryable: true, deferMs: 1_000 }).deferMs, 1_000);
  assert.equal(new CollectorError('x', { retryable: true }).deferMs, undefined);
  for (const options of [
    { retryable: false, deferMs: 1_000 },
    { retryable: true, deferMs: 0 },
    { retryable: true, deferMs: 1.5 },
    { retryable: true, deferMs: Number.NaN },
  ]) {
    assert.throws(() => new CollectorError('x', options), TypeError);
  }
});

// --- Timeouts, connection faults, abort ------------------------------------

test('a provider slower than timeoutMs gives a retryable "provider timed out": each attempt waits its timeout, not the answer', async (t) => {
  const provider = await fake(t, 'slow');
  const started = performance.now();
  const err = await collectorError(collector(provider, { timeoutMs: SHORT_TIMEOUT_MS }).collect(request()));
  const elapsed = performance.now() - started;
  assert.equal(err.reason, 'provider timed out');
  assert.equal(err.retryable, true);
  assert.equal(provider.calls, 2);
  assert.ok(elapsed >= 2 * SHORT_TIMEOUT_MS - TIMER_SLACK_MS, `gave up early: ${elapsed} ms`);
  // Waiting for the answers would take 2 × SLOW_MS.
  assert.ok(elapsed < SLOW_MS / 2, `waited for the answer: ${elapsed} ms`);
});

test('the timeout covers the body read, not only the headers', async (t) => {
  const provider = await fake(t, 'slow_body');
  const started = performance.now();
  const err = await collectorError(collector(provider, { timeoutMs: SHORT_TIMEOUT_MS, maxAttemptsPerCall: 1 }).collect(request()));
  const elapsed = performance.now() - started;
  assert.equal(err.reason, 'provider timed out');
  assert.equal(err.retryable, true);
  // The rest of the body comes after SLOW_MS.
  assert.ok(elapsed < SLOW_MS / 2, `waited for the body: ${elapsed} ms`);
});

test('a connection dropped mid-response is retried in-call, then a retryable "provider connection failed"', async (t) => {
  const provider = await fake(t, 'drop');
  const err = await collectorError(collector(provider).collect(request()));
  assert.equal(err.reason, 'provider connection failed');
  assert.equal(err.retryable, true);
  assert.equal(provider.calls, 2);
});

test('a refused connection is a retryable "provider connection failed"', async (t) => {
  const provider = await fake(t, 'ok');
  const url = provider.url;
  await provider.close();
  const c = new HttpProviderCollector({ baseUrl: url, apiKey: API_KEY, timeoutMs: TIMEOUT_MS, backoffBaseMs: 10 });
  const err = await collectorError(c.collect(request()));
  assert.equal(err.reason, 'provider connection failed');
  assert.equal(err.retryable, true);
});

test('aborting the request signal stops a pending call at once, without further attempts', async (t) => {
  const provider = await fake(t, 'slow');
  const controller = new AbortController();
  const c = collector(provider, { timeoutMs: 20_000, maxAttemptsPerCall: 3 });
  const outcome = collectorError(c.collect(request({ signal: controller.signal })));
  await until(() => provider.calls === 1, 'the call reaches the provider');
  const abortedAt = performance.now();
  controller.abort();
  const err = await outcome;
  // Not aborted, the attempt would end at its 20 s timeout (the answer comes after SLOW_MS).
  const took = performance.now() - abortedAt;
  assert.ok(took < 10_000, `abort was not prompt: ${took} ms`);
  assert.equal(err.reason, 'collection aborted');
  assert.equal(err.retryable, true);
  assert.equal(provider.calls, 1);
});

test('aborting during an in-call pause stops it at once', async (t) => {
  const provider = await fake(t, 'error_500');
  const controller = new AbortController();
  // The pause after the first 500 lasts 30 to 60 s.
  const c = collector(provider, { backoffBaseMs: 60_000, maxRetryDelayMs: 60_000 });
  const outcome = collectorError(c.collect(request({ signal: controller.signal })));
  await until(() => provider.callLog[0]?.endedAt != null, 'the provider has answered 500');
  await sleep(50);
  const abortedAt = performance.now();
  controller.abort();
  const err = await outcome;
  const took = performance.now() - abortedAt;
  assert.ok(took < 10_000, `abort was not prompt: ${took} ms`);
  assert.equal(err.reason, 'collection aborted');
  assert.equal(provider.calls, 1);
});

test('an already aborted signal makes no call', async (t) => {
  const provider = await fake(t, 'ok');
  const err = await collectorError(collector(provider).collect(request({ signal: AbortSignal.abort() })));
  assert.equal(err.reason, 'collection aborted');
  assert.equal(provider.calls, 0);
});

// --- Malformed answers and limits ------------------------------------------

test('a non-JSON body is a retryable "provider returned a malformed answer", not retried in-call', async (t) => {
  const provider = await fake(t, 'garbage');
  const err = await collectorError(collector(provider).collect(request()));
  assert.equal(err.reason, 'provider returned a malformed answer');
  assert.equal(err.retryable, true);
  assert.equal(provider.calls, 1);
});

for (const behavior of ['wrong_shape_gif', 'wrong_shape_missing'] as const) {
  test(`a wrong-shape answer (${behavior}) is a retryable malformed answer`, async (t) => {
    const provider = await fake(t, behavior);
    const err = await collectorError(collector(provider).collect(request()));
    assert.equal(err.reason, 'provider returned a malformed answer');
    assert.equal(err.retryable, true);
  });
}

const JPEG_BYTES = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]);
const WEBP_BYTES = Buffer.concat([Buffer.from('RIFF'), Buffer.from([4, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);

const wrongShapes: Array<[string, Behavior]> = [
  ['status is not ok/inaccessible', altered((a) => (a.status = 'done'))],
  ['captured_at is not RFC 3339', altered((a) => (a.captured_at = '2024-05-01 12:00'))],
  ['captured_at is an impossible date', altered((a) => (a.captured_at = '2023-02-29T12:00:00Z'))],
  ['occurred_at has no offset', altered((a) => (a.activity[0].occurred_at = '2024-04-30T09:15:00'))],
  ['a count is negative', altered((a) => (a.profile.connections = -1))],
  ['a count is fractional', altered((a) => (a.profile.followers = 1.5))],
  ['a count is a string', altered((a) => (a.activity[0].counts.reactions = '12'))],
  ['a boolean member is a string', altered((a) => (a.profile.has_photo = 'yes'))],
  ['a profile member is missing', altered((a) => delete a.profile.headline)],
  ['positions is not an array', altered((a) => (a.profile.positions = {}))],
  ['a position month is invalid', altered((a) => (a.profile.positions[0].start = '2021-13'))],
  ['a position ends before it starts', altered((a) => (a.profile.positions[1].end = '2018-01'))],
  ['skills holds a non-string', altered((a) => (a.profile.skills = ['TypeScript', 7]))],
  ['event_type is not in the enum', altered((a) => (a.activity[0].event_type = 'like'))],
  ['actor kind is not in the enum', altered((a) => (a.activity[0].actor.kind = 'group'))],
  ['actor url is not http(s)', altered((a) => (a.activity[0].actor.url = 'javascript:alert(1)'))],
  ['external_id is empty', altered((a) => (a.activity[0].external_id = ''))],
  ['external_ids repeat', altered((a) => a.activity.push({ ...a.activity[0] }))],
  ['a person answer carries a company', altered((a) => (a.company = { name: null, tagline: null, industry: null, follower_count: null, website: null }))],
  ['missing_sections is not an array of codes', altered((a) => (a.missing_sections = 'about'))],
  ['screenshots is missing', altered((a) => delete a.screenshots)],
  ['screenshot section is unknown', altered((a) => (a.screenshots[0].section = 'footer'))],
  ['screenshot base64 has invalid characters', altered((a) => (a.screenshots[0].data_base64 = `${PNG_1X1_BASE64.slice(0, -4)}!!==`))],
  ['screenshot base64 has a bad length', altered((a) => (a.screenshots[0].data_base64 = PNG_1X1_BASE64.slice(0, -1)))],
  ['screenshot is empty', altered((a) => (a.screenshots[0].data_base64 = ''))],
  ['screenshot bytes do not match media_type', altered((a) => (a.screenshots[0].media_type = 'image/jpeg'))],
  [
    '200 with a non-JSON content type',
    {
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: JSON.stringify(okAnswer({ kind: 'person', mode: 'activity', url: PERSON_URL })),
    },
  ],
  ['body is a JSON array', { status: 200, headers: { 'content-type': 'application/json' }, body: '[]' }],
  ['body is not UTF-8', { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from([0x7b, 0xff, 0x7d]) }],
];

for (const [name, behavior] of wrongShapes) {
  test(`strict validation: ${name} → malformed answer`, async (t) => {
    const provider = await fake(t, behavior);
    const err = await collectorError(collector(provider).collect(request()));
    assert.equal(err.reason, 'provider returned a malformed answer');
    assert.equal(err.retryable, true);
  });
}

test('strict validation accepts jpeg and webp screenshots whose bytes match', async (t) => {
  const provider = await fake(
    t,
    altered((a) => {
      a.screenshots = [
        { section: 'about', media_type: 'image/jpeg', data_base64: JPEG_BYTES.toString('base64') },
        { section: 'activity', media_type: 'image/webp', data_base64: WEBP_BYTES.toString('base64') },
      ];
    }),
  );
  const result = await collector(provider).collect(request());
  assert.equal(result.outcome, 'ok');
  if (result.outcome !== 'ok') return;
  assert.deepEqual(
    result.screenshots.map((s) => s.bytes),
    [JPEG_BYTES, WEBP_BYTES],
  );
});

test('a screenshot over 10 MiB is rejected as malformed', async (t) => {
  const big = Buffer.alloc(10 * MiB + 1);
  Buffer.from(PNG_1X1_BASE64, 'base64').copy(big);
  const provider = await fake(
    t,
    altered((a) => (a.screenshots[0].data_base64 = big.toString('base64'))),
  );
  const err = await collectorError(collector(provider, { timeoutMs: 30_000 }).collect(request()));
  assert.equal(err.reason, 'provider returned a malformed answer');
});

test('a screenshot of exactly 10 MiB is accepted', async (t) => {
  const big = Buffer.alloc(10 * MiB);
  Buffer.from(PNG_1X1_BASE64, 'base64').copy(big);
  const provider = await fake(
    t,
    altered((a) => (a.screenshots[0].data_base64 = big.toString('base64'))),
  );
  const result = await collector(provider, { timeoutMs: 30_000 }).collect(request());
  assert.equal(result.outcome, 'ok');
  if (result.outcome === 'ok') assert.equal(result.screenshots[0].bytes.length, 10 * MiB);
});

test('a streamed body over 50 MiB is cut off as a retryable "provider answer too large"', async (t) => {
  const provider = await fake(t, 'oversized', { oversizeBytes: 60 * MiB });
  const err = await collectorError(collector(provider, { timeoutMs: 30_000 }).collect(request()));
  assert.equal(err.reason, 'provider answer too large');
  assert.equal(err.retryable, true);
  assert.equal(provider.calls, 1);
});

test('a declared Content-Length over 50 MiB is rejected before reading the body', async (t) => {
  // The fake sends the header and 15 bytes, then nothing: a collector reading the body would end
  // with 'provider timed out' instead.
  const provider = await fake(t, 'oversized_declared');
  const err = await collectorError(collector(provider).collect(request()));
  assert.equal(err.reason, 'provider answer too large');
  assert.equal(provider.calls, 1);
});

// --- Secrecy ---------------------------------------------------------------

test('no failure reason, message or cause mentions the API key or the person URL', async (t) => {
  const behaviors: Behavior[] = [
    'slow',
    'slow_body',
    'error_500',
    'rate_limited',
    'unauthorized',
    'redirect',
    'garbage',
    'wrong_shape_gif',
    'wrong_shape_missing',
    'oversized_declared',
    'drop',
    'inaccessible',
    'not_found',
    altered((a) => (a.screenshots[0].media_type = `image/${PERSON_URL}`)),
    { status: 200, headers: { 'content-type': 'application/json' }, body: `{"status":"ok","profile":"${API_KEY} ${PERSON_URL}"` },
  ];
  const provider = await fake(t, 'ok', { retryAfterSeconds: 0 });
  const texts: string[] = [];
  for (const behavior of behaviors) {
    provider.setBehavior(behavior);
    try {
      const result = await collector(provider, { timeoutMs: SHORT_TIMEOUT_MS }).collect(request());
      if (result.outcome === 'inaccessible') texts.push(result.reason);
    } catch (err) {
      assert.ok(err instanceof CollectorError);
      texts.push(err.reason, err.message, String(err.cause), String((err.cause as Error | undefined)?.message));
    }
  }
  assert.ok(texts.length >= behaviors.length * 2, 'every behaviour produced a reason');
  for (const text of texts) {
    assert.equal(text.includes(API_KEY), false, `leaks the key: ${text}`);
    assert.equal(text.includes(PERSON_URL), false, `leaks the person URL: ${text}`);
    assert.equal(text.includes('pronet.example'), false, `leaks the person URL: ${text}`);
  }
});

// --- Provider quota (in-process) ---------------------------------------------

test('the quota bounds calls in flight: 8 concurrent collects with maxConcurrency 2 → the provider never sees more than 2', async (t) => {
  const provider = await fake(t, 'slow', { slowMs: 100 });
  const c = collector(provider, { quota: new LocalProviderQuota({ maxConcurrency: 2, maxPerSecond: 1_000 }) });
  const results = await Promise.all(Array.from({ length: 8 }, () => c.collect(request())));
  assert.deepEqual(
    results.map((r) => r.outcome),
    Array(8).fill('ok'),
  );
  assert.equal(provider.calls, 8);
  assert.ok(provider.maxInFlight <= 2, `max in flight ${provider.maxInFlight}`);
  assert.ok(provider.maxInFlight >= 1);
});

test('the quota spaces call starts: maxPerSecond 10 → the k-th call reaches the provider no sooner than k × 100 ms after the first could start', async (t) => {
  const provider = await fake(t, 'ok');
  const c = collector(provider, { quota: new LocalProviderQuota({ maxConcurrency: 16, maxPerSecond: 10 }) });
  const begun = performance.timeOrigin + performance.now();
  await Promise.all(Array.from({ length: 6 }, () => c.collect(request())));
  const starts = provider.callLog.map((r) => r.startedAt - begun);
  assert.equal(starts.length, 6);
  // Permit k is granted no sooner than k intervals after the first, and a call reaches the provider
  // after its permit. Lower bounds only: a loaded machine can delay a call (even bunch several
  // together), never bring one forward, so gaps between arrivals are not asserted.
  starts.forEach((at, k) => assert.ok(at >= k * 100 - TIMER_SLACK_MS, `call ${k} arrived ${at.toFixed(1)} ms after the start`));
});

test('each in-call attempt takes its own permit, and releases it whatever the outcome', async (t) => {
  const provider = await fake(t, ['error_500', 'ok']);
  const c = collector(provider, { quota: new LocalProviderQuota({ maxConcurrency: 1, maxPerSecond: 1_000 }) });
  assert.equal((await c.collect(request())).outcome, 'ok');
  provider.setBehavior('garbage');
  await collectorError(c.collect(request()));
  provider.setBehavior('rate_limited');
  await collectorError(c.collect(request()));
  // A leaked permit would block this call forever (maxConcurrency 1).
  provider.setBehavior('ok');
  assert.equal((await c.collect(request({ signal: AbortSignal.timeout(20_000) }))).outcome, 'ok');
  assert.equal(provider.calls, 5);
});

test('aborted while waiting for provider capacity (never reached the provider) → deferred, not an attempt', async (t) => {
  // The first call holds the only slot for at least a second; the second gives up after 100 ms.
  const provider = await fake(t, 'slow', { slowMs: 1_000 });
  const c = collector(provider, { quota: new LocalProviderQuota({ maxConcurrency: 1, maxPerSecond: 1_000 }) });
  const first = c.collect(request());
  const err = await collectorError(c.collect(request({ signal: AbortSignal.timeout(100) })));
  assert.equal(err.reason, 'collection aborted while waiting for provider capacity');
  assert.equal(err.retryable, true);
  assert.equal(err.deferMs, PROVIDER_DEFER.capacityWaitMs);
  assert.equal((await first).outcome, 'ok');
  assert.equal(provider.calls, 1);
});

test('providerCollectorFromEnv without a database applies PROVIDER_MAX_CONCURRENCY within the process', async (t) => {
  const provider = await fake(t, 'slow', { slowMs: 100 });
  const c = providerCollectorFromEnv({
    PROVIDER_BASE_URL: provider.url,
    PROVIDER_API_KEY: API_KEY,
    PROVIDER_MAX_CONCURRENCY: '3',
    PROVIDER_MAX_PER_SECOND: '1000',
  });
  assert.ok(c);
  await Promise.all(Array.from({ length: 9 }, () => c.collect(request())));
  assert.equal(provider.calls, 9);
  assert.ok(provider.maxInFlight <= 3, `max in flight ${provider.maxInFlight}`);
});

// --- Configuration ---------------------------------------------------------

test('providerCollectorFromEnv returns null when PROVIDER_BASE_URL is unset or empty', () => {
  assert.equal(providerCollectorFromEnv({}), null);
  assert.equal(providerCollectorFromEnv({ PROVIDER_BASE_URL: '', PROVIDER_API_KEY: API_KEY }), null);
});

test('providerCollectorFromEnv builds a working http_provider collector from valid settings', async (t) => {
  const provider = await fake(t, 'ok');
  const c = providerCollectorFromEnv({ PROVIDER_BASE_URL: provider.url, PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '20000' });
  assert.ok(c instanceof HttpProviderCollector);
  assert.equal(c.name, 'http_provider');
  assert.equal((await c.collect(request())).outcome, 'ok');
});

test('providerCollectorFromEnv applies PROVIDER_TIMEOUT_MS', async (t) => {
  const provider = await fake(t, 'slow');
  const c = providerCollectorFromEnv({ PROVIDER_BASE_URL: provider.url, PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '300' });
  assert.ok(c);
  const started = performance.now();
  const err = await collectorError(c.collect(request()));
  const elapsed = performance.now() - started;
  assert.equal(err.reason, 'provider timed out');
  assert.equal(provider.calls, 2);
  // Two attempts of 300 ms (and a pause of at most 2 s); with the default 10 s it would take over 20 s.
  assert.ok(elapsed >= 2 * 300 - TIMER_SLACK_MS && elapsed < 15_000, `took ${elapsed} ms`);
});

const badEnvs: Array<[string, NodeJS.ProcessEnv, RegExp]> = [
  ['a non-URL base', { PROVIDER_BASE_URL: 'not a url', PROVIDER_API_KEY: API_KEY }, /PROVIDER_BASE_URL/],
  ['an ftp base URL', { PROVIDER_BASE_URL: 'ftp://provider.example', PROVIDER_API_KEY: API_KEY }, /PROVIDER_BASE_URL/],
  ['credentials in the base URL', { PROVIDER_BASE_URL: 'https://u:hunter2@provider.example', PROVIDER_API_KEY: API_KEY }, /PROVIDER_BASE_URL/],
  ['a missing API key', { PROVIDER_BASE_URL: 'https://provider.example' }, /PROVIDER_API_KEY/],
  ['a zero timeout', { PROVIDER_BASE_URL: 'https://provider.example', PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '0' }, /PROVIDER_TIMEOUT_MS/],
  ['a negative timeout', { PROVIDER_BASE_URL: 'https://provider.example', PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '-5' }, /PROVIDER_TIMEOUT_MS/],
  ['a fractional timeout', { PROVIDER_BASE_URL: 'https://provider.example', PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '1.5' }, /PROVIDER_TIMEOUT_MS/],
  ['a non-numeric timeout', { PROVIDER_BASE_URL: 'https://provider.example', PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '10s' }, /PROVIDER_TIMEOUT_MS/],
  [
    'a timeout beyond the timer range',
    { PROVIDER_BASE_URL: 'https://provider.example', PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '9999999999' },
    /PROVIDER_TIMEOUT_MS/,
  ],
  ...['0', '-1', '2.5', 'many', '10001', '1e3'].map((value): [string, NodeJS.ProcessEnv, RegExp] => [
    `PROVIDER_MAX_CONCURRENCY=${value}`,
    { PROVIDER_BASE_URL: 'https://provider.example', PROVIDER_API_KEY: API_KEY, PROVIDER_MAX_CONCURRENCY: value },
    /^PROVIDER_MAX_CONCURRENCY must be an integer between 1 and 10000$/,
  ]),
  ...['0', '0.000', '-2', '1.2345', 'fast', '10001', '1e2', '.5'].map((value): [string, NodeJS.ProcessEnv, RegExp] => [
    `PROVIDER_MAX_PER_SECOND=${value}`,
    { PROVIDER_BASE_URL: 'https://provider.example', PROVIDER_API_KEY: API_KEY, PROVIDER_MAX_PER_SECOND: value },
    /^PROVIDER_MAX_PER_SECOND must be a positive number/,
  ]),
];

test('providerCollectorFromEnv accepts PROVIDER_MAX_CONCURRENCY and fractional PROVIDER_MAX_PER_SECOND', () => {
  const c = providerCollectorFromEnv({
    PROVIDER_BASE_URL: 'https://provider.example',
    PROVIDER_API_KEY: API_KEY,
    PROVIDER_MAX_CONCURRENCY: ' 4 ',
    PROVIDER_MAX_PER_SECOND: '0.5',
  });
  assert.ok(c instanceof HttpProviderCollector);
});

for (const [name, env, pattern] of badEnvs) {
  test(`providerCollectorFromEnv rejects ${name} with a one-line error naming the setting, not its value`, () => {
    assert.throws(
      () => providerCollectorFromEnv(env),
      (err: unknown) => {
        assert.ok(err instanceof Error);
        assert.match(err.message, pattern);
        assert.equal(err.message.includes('\n'), false);
        assert.equal(err.message.includes(API_KEY), false);
        assert.equal(err.message.includes('hunter2'), false);
        return true;
      },
    );
  });
}

test('an answer without activity in activity mode is not observed (gap not_delivered); its activity_gap is kept; [] is a positively empty list', async (t) => {
  const provider = await fake(t, [
    altered((a) => (a.activity = null)),
    altered((a) => {
      a.activity = null;
      a.activity_gap = 'unattributable';
    }),
    altered((a) => (a.activity = [])),
  ]);
  const c = collector(provider);
  const undelivered = await c.collect(request());
  assert.ok(undelivered.outcome === 'ok');
  assert.equal(undelivered.activity, null);
  assert.equal(undelivered.activity_gap, 'not_delivered');
  assert.ok(undelivered.missing_sections.includes('activity'));
  const unattributable = await c.collect(request());
  assert.ok(unattributable.outcome === 'ok');
  assert.equal(unattributable.activity, null);
  assert.equal(unattributable.activity_gap, 'unattributable');
  const empty = await c.collect(request());
  assert.ok(empty.outcome === 'ok');
  assert.deepEqual(empty.activity, []);
  assert.equal(empty.activity_gap, undefined);
  assert.ok(!empty.missing_sections.includes('activity'));
});
