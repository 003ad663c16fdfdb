/**
 * Configuration in one place: every setting is parsed and
 * checked by loadConfig, an invalid one fails with one line naming the
 * setting and never its value, and test-only switches are refused unless
 * PROFILE_SCAN_TEST_HOOKS=1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig, publicBaseUrlOf } from '../../src/config.js';

const SECRET = 'hunter2-SECRET-value-0123456789';

function refuses(env: NodeJS.ProcessEnv, pattern: RegExp): void {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, pattern);
      assert.equal(error.message.includes('\n'), false, 'one line');
      assert.equal(error.message.includes(SECRET), false, 'never the value');
      return true;
    },
  );
}

test('defaults: the local media directory, no metrics, 30 s shutdown, retention windows, no test hooks', () => {
  const config = loadConfig({ DATA_DIR: '/srv/ps' });
  assert.deepEqual(config.media, { kind: 'file', dir: '/srv/ps/media' });
  assert.equal(config.metricsToken, null);
  assert.equal(config.metricsPort, null);
  assert.equal(config.shutdownTimeoutMs, 30_000);
  assert.deepEqual(config.retention, {
    intervalMs: 300_000,
    expiredIdempotencyMs: 86_400_000,
    receiptTombstoneMs: 0,
    rateCountersMs: 600_000,
    obsoleteMediaMs: 7 * 86_400_000,
    auditLogMs: 730 * 86_400_000,
    removedPeopleMs: 0,
    archivedReportsMs: 0,
    historyMonths: 24,
  });
  assert.deepEqual(config.testHooks, { enabled: false, pauseBeforeCommitMs: 0 });
  assert.equal(config.clockOffsetMs, 0);
  assert.equal(config.provider, null);
});

test('test-only switches are refused without PROFILE_SCAN_TEST_HOOKS=1, honoured with it', () => {
  refuses({ CLOCK_OFFSET_MS: '1000' }, /^CLOCK_OFFSET_MS is a test-only switch; it is refused unless PROFILE_SCAN_TEST_HOOKS=1$/);
  refuses({ PS_TEST_PAUSE_BEFORE_COMMIT_MS: '500' }, /^PS_TEST_PAUSE_BEFORE_COMMIT_MS is a test-only switch/);
  const config = loadConfig({ PROFILE_SCAN_TEST_HOOKS: '1', CLOCK_OFFSET_MS: '-5000', PS_TEST_PAUSE_BEFORE_COMMIT_MS: '500' });
  assert.equal(config.testHooks.enabled, true);
  assert.equal(config.clockOffsetMs, -5000);
  assert.equal(config.testHooks.pauseBeforeCommitMs, 500);
  refuses({ PROFILE_SCAN_TEST_HOOKS: 'maybe' }, /^PROFILE_SCAN_TEST_HOOKS must be true or false/);
});

test('S3: a bucket selects the S3 store; path style by default with an endpoint; the prefix ends in a slash', () => {
  const config = loadConfig({
    S3_BUCKET: 'evidence',
    S3_ENDPOINT: 'http://127.0.0.1:9000/',
    S3_ACCESS_KEY_ID: 'AKIA',
    S3_SECRET_ACCESS_KEY: SECRET,
    S3_PREFIX: 'profile-scan/media',
  });
  assert.deepEqual(config.media, {
    kind: 's3',
    bucket: 'evidence',
    prefix: 'profile-scan/media/',
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9000',
    forcePathStyle: true,
    credentials: { accessKeyId: 'AKIA', secretAccessKey: SECRET },
  });
  const aws = loadConfig({ S3_BUCKET: 'evidence', S3_REGION: 'eu-west-3' });
  assert.equal(aws.media.kind === 's3' && aws.media.forcePathStyle, false);
  assert.equal(aws.media.kind === 's3' && aws.media.credentials, null, 'the SDK default chain');
});

test('S3 settings are checked, naming the setting and never a secret', () => {
  refuses({ S3_ENDPOINT: 'http://127.0.0.1:9000' }, /^S3_ENDPOINT is set but S3_BUCKET is not/);
  refuses({ S3_BUCKET: 'Bad_Bucket' }, /^S3_BUCKET must be a bucket name/);
  refuses({ S3_BUCKET: 'evidence', S3_ENDPOINT: `http://user:${SECRET}@host` }, /^S3_ENDPOINT must not contain credentials/);
  refuses({ S3_BUCKET: 'evidence', S3_ENDPOINT: 'ftp://host' }, /^S3_ENDPOINT must use http: or https:/);
  refuses({ S3_BUCKET: 'evidence', S3_SECRET_ACCESS_KEY: SECRET }, /^S3_ACCESS_KEY_ID must be set together with S3_SECRET_ACCESS_KEY$/);
  refuses(
    { S3_BUCKET: 'evidence', S3_ACCESS_KEY_ID: 'AKIA', S3_SECRET_ACCESS_KEY: `${SECRET} x` },
    /^S3_SECRET_ACCESS_KEY must contain only visible ASCII characters$/,
  );
  refuses({ S3_BUCKET: 'evidence', S3_FORCE_PATH_STYLE: 'sometimes' }, /^S3_FORCE_PATH_STYLE must be true or false/);
  refuses({ S3_BUCKET: 'evidence', S3_PREFIX: '/abs' }, /^S3_PREFIX must be a key prefix/);
});

test('metrics, shutdown and retention settings are checked', () => {
  const config = loadConfig({
    METRICS_TOKEN: SECRET,
    METRICS_PORT: '9464',
    METRICS_HOST: '0.0.0.0',
    SHUTDOWN_TIMEOUT_SECONDS: '5',
    MAINTENANCE_INTERVAL: '0',
    RETENTION_OBSOLETE_MEDIA: '36h',
  });
  assert.equal(config.metricsToken, SECRET);
  assert.equal(config.metricsPort, 9464);
  assert.equal(config.metricsHost, '0.0.0.0');
  assert.equal(config.shutdownTimeoutMs, 5000);
  assert.equal(config.retention.intervalMs, 0);
  assert.equal(config.retention.obsoleteMediaMs, 36 * 3_600_000);
  assert.equal(loadConfig({ RETENTION_RATE_COUNTERS: '300' }).retention.rateCountersMs, 300_000, 'a bare number is seconds');
  refuses({ METRICS_TOKEN: 'short' }, /^METRICS_TOKEN must be 16 to 256 visible ASCII characters$/);
  refuses({ METRICS_PORT: 'http' }, /^METRICS_PORT must be an integer between 0 and 65535$/);
  refuses({ SHUTDOWN_TIMEOUT_SECONDS: '0' }, /^SHUTDOWN_TIMEOUT_SECONDS must be an integer between 1 and 3600$/);
  refuses({ RETENTION_OBSOLETE_MEDIA: 'a week' }, /^RETENTION_OBSOLETE_MEDIA must be a duration like 30s, 10m, 24h or 7d$/);
  refuses({ RETENTION_RATE_COUNTERS: '1m' }, /^RETENTION_RATE_COUNTERS must be a duration like 30s, 10m, 24h or 7d \(at least 120 s\)$/);
});

test('provider settings are parsed here too, with the same messages', () => {
  const config = loadConfig({ PROVIDER_BASE_URL: 'https://provider.example', PROVIDER_API_KEY: SECRET, PROVIDER_MAX_PER_SECOND: '2.5' });
  assert.deepEqual(config.provider, {
    baseUrl: 'https://provider.example',
    apiKey: SECRET,
    timeoutMs: 10_000,
    maxConcurrency: 16,
    maxPerSecond: 2.5,
  });
  refuses({ PROVIDER_BASE_URL: 'https://provider.example' }, /^PROVIDER_API_KEY must be set when PROVIDER_BASE_URL is set$/);
  refuses({ PROVIDER_BASE_URL: `https://u:${SECRET}@provider.example`, PROVIDER_API_KEY: 'k' }, /^PROVIDER_BASE_URL must not contain credentials/);
});

test('the configuration is frozen once loaded, its nested settings too', () => {
  const config = loadConfig({ DATA_DIR: '/srv/ps', S3_BUCKET: 'evidence' });
  assert.ok(Object.isFrozen(config) && Object.isFrozen(config.retention) && Object.isFrozen(config.media));
  assert.throws(() => {
    (config as { port: number }).port = 1;
  }, TypeError);
});

test('the public address: PUBLIC_BASE_URL, else where the server listens, else http://HOST:PORT', () => {
  assert.equal(publicBaseUrlOf(loadConfig({ PUBLIC_BASE_URL: 'https://scan.example.com/' }), { address: '127.0.0.1', port: 4000 }), 'https://scan.example.com');
  assert.equal(publicBaseUrlOf(loadConfig({ PORT: '0', HOST: '0.0.0.0' }), { address: '0.0.0.0', port: 43_210 }), 'http://127.0.0.1:43210');
  assert.equal(publicBaseUrlOf(loadConfig({ PORT: '9000', HOST: '::1' })), 'http://[::1]:9000');
});

test('every setting is read through its declaration: a bad value of any of them names it', () => {
  for (const [name, value] of [
    ['PORT', '70000'],
    ['WORKER_CONCURRENCY', 'many'],
    ['LOG_LEVEL', 'loud'],
    ['CURSOR_SECRET', 'short'],
    ['PUBLIC_BASE_URL', 'ftp://x'],
    ['EVIDENCE_FETCH_TIMEOUT_MS', '1'],
    ['TRUST_PROXY', 'not-an-address'],
  ]) {
    refuses({ [name]: value }, new RegExp(`^${name} `));
  }
});
