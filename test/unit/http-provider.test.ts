/**
 * The HTTP provider collector against a real local HTTP server (the fake
 * provider): mapping, status handling, in-call retries, timeouts, limits,
 * strict validation, secrecy of reasons, abort, and configuration from env.
 */

import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { CollectorError, type CollectRequest } from '../../src/scanning/collectors/collector.js';
import {
  HttpProviderCollector,
  providerCollectorFromEnv,
  type HttpProviderOptions,
} from '../../src/scanning/collectors/http-provider.js';
import {
  CAPTURED_AT,
  PNG_1X1_BASE64,
  okAnswer,
  startFakeProvider,
  type Behavior,
  type FakeProvider,
  type FakeProviderOptions,
} from '../support/fake-provider.js';

const API_KEY = 'pk_secret_key_7f3a9c';
const PERSON_URL = 'https://pronet.example/in/ada-lovelace-42';
const COMPANY_URL = 'https://pronet.example/company/example-corp';
const TIMEOUT_MS = 250;
const MiB = 1024 * 1024;

async function fake(t: TestContext, behavior: Behavior | Behavior[], options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const provider = await startFakeProvider({ behavior, apiKey: API_KEY, slowMs: 3_000, ...options });
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

/** An 'ok' answer for the request, altered by `mutate`. */
function altered(mutate: (answer: any) => void): Behavior {
  return (req) => {
    const answer = okAnswer(req);
    mutate(answer);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) };
  };
}

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
  const provider = await fake(t, altered((a) => {
    a.extra = 'x';
    a.profile.internal_note = 'secret';
  }));
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

test('a transient 503 followed by a good answer succeeds within the same call', async (t) => {
  const provider = await fake(t, ['unavailable_503', 'ok'], { retryAfterSeconds: 0 });
  const result = await collector(provider).collect(request());
  assert.equal(result.outcome, 'ok');
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

test('429 waits for Retry-After, capped by maxRetryDelayMs, before the next in-call attempt', async (t) => {
  // Retry-After: 1 s, cap 300 ms, backoff base 10 ms: only Retry-After explains a ≥ 300 ms pause,
  // only the cap explains < 1 s.
  const provider = await fake(t, ['rate_limited', 'ok'], { retryAfterSeconds: 1 });
  const started = performance.now();
  const result = await collector(provider, { maxRetryDelayMs: 300 }).collect(request());
  const elapsed = performance.now() - started;
  assert.equal(result.outcome, 'ok');
  assert.equal(provider.calls, 2);
  assert.ok(elapsed >= 290, `paused ${elapsed} ms, expected ≥ 300 (Retry-After honoured)`);
  assert.ok(elapsed < 900, `paused ${elapsed} ms, expected < 1000 (cap applied)`);
});

test('persistent 429 ends as a retryable "provider answered 429"', async (t) => {
  const provider = await fake(t, 'rate_limited', { retryAfterSeconds: 0 });
  const err = await collectorError(collector(provider).collect(request()));
  assert.equal(err.reason, 'provider answered 429');
  assert.equal(err.retryable, true);
  assert.equal(provider.calls, 2);
});

// --- Timeouts, connection faults, abort ------------------------------------

test('a provider slower than timeoutMs gives a retryable "provider timed out" within timeout × attempts + margin', async (t) => {
  const provider = await fake(t, 'slow');
  const started = performance.now();
  const err = await collectorError(collector(provider).collect(request()));
  const elapsed = performance.now() - started;
  assert.equal(err.reason, 'provider timed out');
  assert.equal(err.retryable, true);
  assert.equal(provider.calls, 2);
  assert.ok(elapsed < TIMEOUT_MS * 2 + 300 + 250, `took ${elapsed} ms`);
});

test('the timeout covers the body read, not only the headers', async (t) => {
  const provider = await fake(t, 'slow_body');
  const started = performance.now();
  const err = await collectorError(collector(provider, { maxAttemptsPerCall: 1 }).collect(request()));
  const elapsed = performance.now() - started;
  assert.equal(err.reason, 'provider timed out');
  assert.equal(err.retryable, true);
  assert.ok(elapsed < TIMEOUT_MS + 250, `took ${elapsed} ms`);
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

test('aborting the request signal stops a pending call promptly, without further attempts', async (t) => {
  const provider = await fake(t, 'slow');
  const controller = new AbortController();
  const c = collector(provider, { timeoutMs: 5_000, maxAttemptsPerCall: 3 });
  const pending = c.collect(request({ signal: controller.signal }));
  setTimeout(() => controller.abort(), 50);
  const started = performance.now();
  const err = await collectorError(pending);
  assert.ok(performance.now() - started < 250, 'abort was not prompt');
  assert.equal(err.reason, 'collection aborted');
  assert.equal(err.retryable, true);
  assert.equal(provider.calls, 1);
});

test('aborting during a Retry-After pause stops promptly', async (t) => {
  const provider = await fake(t, 'rate_limited', { retryAfterSeconds: 5 });
  const controller = new AbortController();
  const c = collector(provider, { maxRetryDelayMs: 5_000 });
  const started = performance.now();
  const pending = c.collect(request({ signal: controller.signal }));
  setTimeout(() => controller.abort(), 100);
  const err = await collectorError(pending);
  assert.ok(performance.now() - started < 400, 'abort was not prompt');
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
  ['200 with a non-JSON content type', { status: 200, headers: { 'content-type': 'text/html' }, body: JSON.stringify(okAnswer({ kind: 'person', mode: 'activity', url: PERSON_URL })) }],
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
  const provider = await fake(t, altered((a) => {
    a.screenshots = [
      { section: 'about', media_type: 'image/jpeg', data_base64: JPEG_BYTES.toString('base64') },
      { section: 'activity', media_type: 'image/webp', data_base64: WEBP_BYTES.toString('base64') },
    ];
  }));
  const result = await collector(provider).collect(request());
  assert.equal(result.outcome, 'ok');
  if (result.outcome !== 'ok') return;
  assert.deepEqual(result.screenshots.map((s) => s.bytes), [JPEG_BYTES, WEBP_BYTES]);
});

test('a screenshot over 10 MiB is rejected as malformed', async (t) => {
  const big = Buffer.alloc(10 * MiB + 1);
  Buffer.from(PNG_1X1_BASE64, 'base64').copy(big);
  const provider = await fake(t, altered((a) => (a.screenshots[0].data_base64 = big.toString('base64'))));
  const err = await collectorError(collector(provider, { timeoutMs: 5_000 }).collect(request()));
  assert.equal(err.reason, 'provider returned a malformed answer');
});

test('a screenshot of exactly 10 MiB is accepted', async (t) => {
  const big = Buffer.alloc(10 * MiB);
  Buffer.from(PNG_1X1_BASE64, 'base64').copy(big);
  const provider = await fake(t, altered((a) => (a.screenshots[0].data_base64 = big.toString('base64'))));
  const result = await collector(provider, { timeoutMs: 5_000 }).collect(request());
  assert.equal(result.outcome, 'ok');
  if (result.outcome === 'ok') assert.equal(result.screenshots[0].bytes.length, 10 * MiB);
});

test('a streamed body over 50 MiB is cut off as a retryable "provider answer too large"', async (t) => {
  const provider = await fake(t, 'oversized', { oversizeBytes: 60 * MiB });
  const err = await collectorError(collector(provider, { timeoutMs: 5_000 }).collect(request()));
  assert.equal(err.reason, 'provider answer too large');
  assert.equal(err.retryable, true);
  assert.equal(provider.calls, 1);
});

test('a declared Content-Length over 50 MiB is rejected before reading the body', async (t) => {
  const provider = await fake(t, 'oversized_declared');
  const started = performance.now();
  const err = await collectorError(collector(provider, { timeoutMs: 2_000 }).collect(request()));
  assert.equal(err.reason, 'provider answer too large');
  assert.ok(performance.now() - started < 1_000, 'waited for the body instead of trusting the header');
});

// --- Secrecy ---------------------------------------------------------------

test('no failure reason, message or cause mentions the API key or the person URL', async (t) => {
  const behaviors: Behavior[] = [
    'slow', 'slow_body', 'error_500', 'rate_limited', 'unauthorized', 'redirect', 'garbage',
    'wrong_shape_gif', 'wrong_shape_missing', 'oversized_declared', 'drop', 'inaccessible', 'not_found',
    altered((a) => (a.screenshots[0].media_type = `image/${PERSON_URL}`)),
    { status: 200, headers: { 'content-type': 'application/json' }, body: `{"status":"ok","profile":"${API_KEY} ${PERSON_URL}"` },
  ];
  const provider = await fake(t, 'ok', { retryAfterSeconds: 0 });
  const texts: string[] = [];
  for (const behavior of behaviors) {
    provider.setBehavior(behavior);
    try {
      const result = await collector(provider).collect(request());
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

// --- Configuration ---------------------------------------------------------

test('providerCollectorFromEnv returns null when PROVIDER_BASE_URL is unset or empty', () => {
  assert.equal(providerCollectorFromEnv({}), null);
  assert.equal(providerCollectorFromEnv({ PROVIDER_BASE_URL: '', PROVIDER_API_KEY: API_KEY }), null);
});

test('providerCollectorFromEnv builds a working http_provider collector from valid settings', async (t) => {
  const provider = await fake(t, 'ok');
  const c = providerCollectorFromEnv({ PROVIDER_BASE_URL: provider.url, PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '2000' });
  assert.ok(c instanceof HttpProviderCollector);
  assert.equal(c.name, 'http_provider');
  assert.equal((await c.collect(request())).outcome, 'ok');
});

test('providerCollectorFromEnv applies PROVIDER_TIMEOUT_MS', async (t) => {
  const provider = await fake(t, 'slow');
  const c = providerCollectorFromEnv({ PROVIDER_BASE_URL: provider.url, PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '150' });
  assert.ok(c);
  const started = performance.now();
  const err = await collectorError(c.collect(request()));
  assert.equal(err.reason, 'provider timed out');
  // Two attempts of 150 ms plus the default (≤ 200 ms) pause.
  assert.ok(performance.now() - started < 150 * 2 + 200 + 250);
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
  ['a timeout beyond the timer range', { PROVIDER_BASE_URL: 'https://provider.example', PROVIDER_API_KEY: API_KEY, PROVIDER_TIMEOUT_MS: '9999999999' }, /PROVIDER_TIMEOUT_MS/],
];

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
