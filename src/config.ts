/**
 * Configuration, from the environment only, for every role (serve, worker,
 * migrate, admin). Every value is parsed and validated here, at start; an
 * invalid one stops the process with a one-line message naming the variable,
 * never its value (it may be a secret).
 *
 * Test-only switches (CLOCK_OFFSET_MS, PS_TEST_PAUSE_BEFORE_COMMIT_MS) are
 * refused unless PROFILE_SCAN_TEST_HOOKS=1, and a process that has them
 * enabled says so loudly at start (src/logger.ts: announceTestHooks).
 */
import fs from 'node:fs';
import ipaddr from 'ipaddr.js';
import { defaultDataDir } from './data-dir.js';
import path from 'node:path';
import {
  DEFAULT_FETCH_MAX_BYTES,
  DEFAULT_FETCH_TIMEOUT_MS,
  DEFAULT_IMAGE_HOSTS,
  DEFAULT_MAX_REDIRECTS,
  parseAllowedRange,
  parseHostRule,
  type SafeFetchSettings,
} from './scanning/media/safe-fetch.js';

/** The HTTP data provider for live keys (docs/collectors.md); null when PROVIDER_BASE_URL is unset. */
export interface ProviderSettings {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxConcurrency: number;
  maxPerSecond: number;
}

/**
 * Bright Data's Scraper API for live keys (COLLECTOR=brightdata;
 * docs/collectors.md, "Bright Data"); null unless selected.
 */
export interface BrightDataSettings {
  apiKey: string;
  /** https://api.brightdata.com by default; a local server in tests. No trailing slash. */
  baseUrl: string;
  datasets: { profiles: string; companies: string; posts: string };
  /** URLs per provider call: up to 20 go to the synchronous /scrape, more to /trigger. */
  batchMax: number;
  /** How long a batch waits for more items before it is sent, ms. */
  batchWindowMs: number;
  /** Posts collected per person in activity mode (the posts dataset's limit_per_input). */
  postsPerPerson: number;
  /** Provider records per UTC day for all processes together; null: no budget. */
  dailyRecordBudget: number | null;
  /** Longest a collection may take, the asynchronous flow included, ms. */
  timeoutMs: number;
  /** Pause between progress polls of a snapshot, ms. */
  pollIntervalMs: number;
  /** The provider quotas (PROVIDER_MAX_CONCURRENCY, PROVIDER_MAX_PER_SECOND). */
  maxConcurrency: number;
  maxPerSecond: number;
}

/** Which collector live keys use (test keys always use the simulator). */
export type CollectorChoice = 'simulator' | 'http' | 'brightdata';

/** Where evidence media is stored: a local directory (default) or an S3-compatible bucket. */
export type MediaSettings =
  | { kind: 'file'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      /** Key prefix inside the bucket ('' or ending in '/'). */
      prefix: string;
      region: string;
      /** null: the AWS endpoint of the region. */
      endpoint: string | null;
      forcePathStyle: boolean;
      /** null: the SDK's default credential chain (AWS_* variables, instance roles…). */
      credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
    };

/** Windows of the maintenance task (docs/operations.md, "Retention"); milliseconds. */
export interface RetentionSettings {
  /** How often a process tries to run maintenance (one runner at a time across all processes); 0 = never in this process. */
  intervalMs: number;
  /** Expired idempotency records are deleted this long after their expiry. */
  expiredIdempotencyMs: number;
  /** Expired import receipts lose their contents this long after their expiry (the tombstone still answers 410). */
  receiptTombstoneMs: number;
  /** Rate-limit counters of windows that started longer ago than this are deleted. */
  rateCountersMs: number;
  /** Obsolete evidence no stored finding refers to is deleted (with media nothing else uses) this long after it became obsolete. */
  obsoleteMediaMs: number;
}

export interface TestHooks {
  enabled: boolean;
  /** Test-only: sleeps this long inside an idempotent write's transaction just before COMMIT. */
  pauseBeforeCommitMs: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Why DATA_DIR, unset, is not ./data (root in a private checkout: ./data-dir.ts), said at start; else null. */
  dataDirReason: string | null;
  databaseUrl: string | null;
  publicBaseUrl: string;
  /** False: PUBLIC_BASE_URL is unset and publicBaseUrl is derived from HOST and PORT (serve replaces it by the address it listens on). */
  publicBaseUrlConfigured: boolean;
  simulatorDelayMs: number;
  /** Items in flight at once in the in-process worker of `serve` (0 disables it) and, by default, in `worker`. */
  workerConcurrency: number;
  /** Seconds after which an item claimed by a dead worker is offered again. */
  itemLeaseSeconds: number;
  /** Attempts per scan item before it fails. */
  itemMaxAttempts: number;
  /** Secret for signing cursors; when unset, one is created in the database. */
  cursorSecret: string | null;
  logLevel: string;
  /** Test-only (PROFILE_SCAN_TEST_HOOKS=1): shifts the service clock (ms). */
  clockOffsetMs: number;
  /** Multiplier for the read limits, for benchmarks (workspace write limits are settings). */
  readLimitMultiplier: number;
  /** COLLECTOR, or `http` when PROVIDER_BASE_URL is set, else `simulator`. */
  collector: CollectorChoice;
  provider: ProviderSettings | null;
  brightData: BrightDataSettings | null;
  media: MediaSettings;
  /** How workers download the images collected records link to (EVIDENCE_*; scanning/media/safe-fetch.ts); null: never. */
  evidenceFetch: SafeFetchSettings | null;
  /**
   * TRUST_PROXY: addresses and CIDR ranges of the reverse proxies whose
   * `X-Forwarded-For` names the client (per-address limits, logs); null: off,
   * the socket's peer is the client.
   */
  trustProxy: string[] | null;
  /** Bearer token guarding GET /metrics on the API port; null = not served there (unless METRICS_PORT). */
  metricsToken: string | null;
  /** A separate listener (on HOST, or METRICS_HOST) for /metrics, /livez and /readyz; null = none. */
  metricsPort: number | null;
  metricsHost: string;
  /** Upper bound of a graceful shutdown (drain requests and items), ms. */
  shutdownTimeoutMs: number;
  retention: RetentionSettings;
  testHooks: TestHooks;
}

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer between ${min} and ${max}`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max}`);
  return value;
}

function url(name: string, raw: string, protocols: string[]): URL {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL (${protocols.join(' or ')})`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}`);
  }
  return parsed;
}

function text(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? null : raw;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false (1/0, yes/no, on/off)`);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration like `30s`, `10m`, `24h`, `7d` (or `0`); a bare number is seconds. */
function duration(env: NodeJS.ProcessEnv, name: string, fallbackMs: number, minMs = 0, maxMs = 3650 * UNIT_MS.d): number {
  const raw = text(env, name);
  if (raw === null) return fallbackMs;
  const match = /^(\d{1,10})(ms|s|m|h|d)?$/.exec(raw);
  const value = match ? Number(match[1]) * UNIT_MS[match[2] ?? 's'] : NaN;
  if (!match || value < minMs || value > maxMs) {
    throw new ConfigError(`${name} must be a duration like 30s, 10m, 24h or 7d${minMs > 0 ? ` (at least ${minMs / 1000} s)` : ''}`);
  }
  return value;
}

function hostname(name: string, raw: string): string {
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(raw)) throw new ConfigError(`${name} must be a hostname or IP address`);
  return raw;
}

/** setTimeout's ceiling; larger values fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;
const MAX_PROVIDER_CONCURRENCY = 10_000;
const MAX_PROVIDER_PER_SECOND = 10_000;
export const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;
export const DEFAULT_PROVIDER_LIMITS = { maxConcurrency: 16, maxPerSecond: 10 } as const;

/** Messages name the setting, never its value (it may hold credentials). */
export function checkProviderBaseUrl(value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError('PROVIDER_BASE_URL must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError('PROVIDER_BASE_URL must be an absolute http(s) URL');
  }
  if (parsed.username || parsed.password) {
    throw new ConfigError('PROVIDER_BASE_URL must not contain credentials; use PROVIDER_API_KEY');
  }
  if (parsed.search || parsed.hash) throw new ConfigError('PROVIDER_BASE_URL must not have a query or fragment');
  return value;
}

/** PROVIDER_MAX_CONCURRENCY and PROVIDER_MAX_PER_SECOND: the limits of every provider collector. */
export function parseProviderLimits(env: NodeJS.ProcessEnv): { maxConcurrency: number; maxPerSecond: number } {
  let maxConcurrency: number = DEFAULT_PROVIDER_LIMITS.maxConcurrency;
  const rawConcurrency = env.PROVIDER_MAX_CONCURRENCY?.trim();
  if (rawConcurrency !== undefined && rawConcurrency !== '') {
    if (!/^[1-9][0-9]{0,4}$/.test(rawConcurrency) || Number(rawConcurrency) > MAX_PROVIDER_CONCURRENCY) {
      throw new ConfigError(`PROVIDER_MAX_CONCURRENCY must be an integer between 1 and ${MAX_PROVIDER_CONCURRENCY}`);
    }
    maxConcurrency = Number(rawConcurrency);
  }
  let maxPerSecond: number = DEFAULT_PROVIDER_LIMITS.maxPerSecond;
  const rawPerSecond = env.PROVIDER_MAX_PER_SECOND?.trim();
  if (rawPerSecond !== undefined && rawPerSecond !== '') {
    const perSecond = Number(rawPerSecond);
    if (!/^[0-9]{1,5}(\.[0-9]{1,3})?$/.test(rawPerSecond) || perSecond <= 0 || perSecond > MAX_PROVIDER_PER_SECOND) {
      throw new ConfigError(`PROVIDER_MAX_PER_SECOND must be a positive number of calls per second (at most ${MAX_PROVIDER_PER_SECOND}, 3 decimals)`);
    }
    maxPerSecond = perSecond;
  }
  return { maxConcurrency, maxPerSecond };
}

/**
 * The PROVIDER_* settings, or null when PROVIDER_BASE_URL is unset (live work
 * then runs on the simulator, with a warning). Throws a one-line ConfigError.
 */
export function parseProviderSettings(env: NodeJS.ProcessEnv): ProviderSettings | null {
  const baseUrl = env.PROVIDER_BASE_URL?.trim();
  if (!baseUrl) return null;
  checkProviderBaseUrl(baseUrl);
  const apiKey = env.PROVIDER_API_KEY?.trim();
  if (!apiKey) throw new ConfigError('PROVIDER_API_KEY must be set when PROVIDER_BASE_URL is set');
  if (!/^[\x21-\x7e]+$/.test(apiKey)) throw new ConfigError('PROVIDER_API_KEY must contain only visible ASCII characters');
  let timeoutMs = DEFAULT_PROVIDER_TIMEOUT_MS;
  const rawTimeout = env.PROVIDER_TIMEOUT_MS?.trim();
  if (rawTimeout !== undefined && rawTimeout !== '') {
    if (!/^[1-9][0-9]{0,9}$/.test(rawTimeout) || Number(rawTimeout) > MAX_TIMER_MS) {
      throw new ConfigError(`PROVIDER_TIMEOUT_MS must be a positive integer of milliseconds (at most ${MAX_TIMER_MS})`);
    }
    timeoutMs = Number(rawTimeout);
  }
  const { maxConcurrency, maxPerSecond } = parseProviderLimits(env);
  return { baseUrl, apiKey, timeoutMs, maxConcurrency, maxPerSecond };
}

export const BRIGHTDATA_DEFAULTS = {
  baseUrl: 'https://api.brightdata.com',
  datasets: { profiles: 'gd_l1viktl72bvl7bjuj0', companies: 'gd_l1vikfnt1wgvvqz95w', posts: 'gd_lyy3tktm25m4avu764' },
  batchMax: 20,
  batchWindowMs: 500,
  postsPerPerson: 10,
  timeoutMs: 15 * 60_000,
  pollIntervalMs: 10_000,
} as const;

/** COLLECTOR (and PROVIDER_BASE_URL for the bridge). */
function parseCollectorChoice(env: NodeJS.ProcessEnv): CollectorChoice {
  const raw = text(env, 'COLLECTOR');
  if (raw === null) return text(env, 'PROVIDER_BASE_URL') !== null ? 'http' : 'simulator';
  const choice = raw.toLowerCase();
  if (choice !== 'simulator' && choice !== 'http' && choice !== 'brightdata') throw new ConfigError('COLLECTOR must be brightdata, http or simulator');
  if (choice === 'http' && text(env, 'PROVIDER_BASE_URL') === null) throw new ConfigError('COLLECTOR=http needs PROVIDER_BASE_URL');
  return choice;
}

/** The BRIGHTDATA_* settings when COLLECTOR=brightdata, else null. Messages name settings, never values. */
export function parseBrightDataSettings(env: NodeJS.ProcessEnv): BrightDataSettings | null {
  if (parseCollectorChoice(env) !== 'brightdata') return null;
  const apiKey = text(env, 'BRIGHTDATA_API_KEY');
  if (apiKey === null) throw new ConfigError('BRIGHTDATA_API_KEY must be set when COLLECTOR=brightdata');
  if (!/^[\x21-\x7e]+$/.test(apiKey)) throw new ConfigError('BRIGHTDATA_API_KEY must contain only visible ASCII characters');
  const rawBase = text(env, 'BRIGHTDATA_BASE_URL') ?? BRIGHTDATA_DEFAULTS.baseUrl;
  const base = url('BRIGHTDATA_BASE_URL', rawBase, ['http:', 'https:']);
  if (base.username || base.password) throw new ConfigError('BRIGHTDATA_BASE_URL must not contain credentials; use BRIGHTDATA_API_KEY');
  if (base.search || base.hash) throw new ConfigError('BRIGHTDATA_BASE_URL must not have a query or fragment');
  const dataset = (name: string, fallback: string) => {
    const value = text(env, name) ?? fallback;
    if (!/^[A-Za-z0-9_]{1,64}$/.test(value)) throw new ConfigError(`${name} must be a dataset id such as ${fallback}`);
    return value;
  };
  const budget = text(env, 'BRIGHTDATA_DAILY_RECORD_BUDGET');
  return {
    apiKey,
    baseUrl: base.toString().replace(/\/+$/, ''),
    datasets: {
      profiles: dataset('BRIGHTDATA_PROFILES_DATASET', BRIGHTDATA_DEFAULTS.datasets.profiles),
      companies: dataset('BRIGHTDATA_COMPANIES_DATASET', BRIGHTDATA_DEFAULTS.datasets.companies),
      posts: dataset('BRIGHTDATA_POSTS_DATASET', BRIGHTDATA_DEFAULTS.datasets.posts),
    },
    batchMax: integer(env, 'BRIGHTDATA_BATCH_MAX', BRIGHTDATA_DEFAULTS.batchMax, 1, 5000),
    batchWindowMs: integer(env, 'BRIGHTDATA_BATCH_WINDOW_MS', BRIGHTDATA_DEFAULTS.batchWindowMs, 0, 60_000),
    postsPerPerson: integer(env, 'BRIGHTDATA_POSTS_PER_PERSON', BRIGHTDATA_DEFAULTS.postsPerPerson, 1, 1000),
    dailyRecordBudget: budget === null || budget.toLowerCase() === 'unlimited' ? null : integer(env, 'BRIGHTDATA_DAILY_RECORD_BUDGET', 0, 0, 1_000_000_000),
    timeoutMs: integer(env, 'BRIGHTDATA_TIMEOUT_MS', BRIGHTDATA_DEFAULTS.timeoutMs, 1000, 24 * 3_600_000),
    pollIntervalMs: integer(env, 'BRIGHTDATA_POLL_INTERVAL_MS', BRIGHTDATA_DEFAULTS.pollIntervalMs, 10, 600_000),
    ...parseProviderLimits(env),
  };
}

/** S3_* settings; the local directory DATA_DIR/media when S3_BUCKET is unset. */
function parseMedia(env: NodeJS.ProcessEnv, dataDir: string): MediaSettings {
  const bucket = text(env, 'S3_BUCKET');
  const s3Names = ['S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_SESSION_TOKEN', 'S3_FORCE_PATH_STYLE', 'S3_PREFIX'];
  if (bucket === null) {
    const stray = s3Names.find((name) => text(env, name) !== null);
    if (stray) throw new ConfigError(`${stray} is set but S3_BUCKET is not; set S3_BUCKET to store evidence media in S3`);
    return { kind: 'file', dir: path.join(dataDir, 'media') };
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError('S3_BUCKET must be a bucket name (3-63 lowercase letters, digits, dots and hyphens)');
  let endpoint: string | null = null;
  const rawEndpoint = text(env, 'S3_ENDPOINT');
  if (rawEndpoint !== null) {
    const parsed = url('S3_ENDPOINT', rawEndpoint, ['http:', 'https:']);
    if (parsed.username || parsed.password) throw new ConfigError('S3_ENDPOINT must not contain credentials; use S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
    if (parsed.search || parsed.hash) throw new ConfigError('S3_ENDPOINT must not have a query or fragment');
    endpoint = parsed.toString().replace(/\/+$/, '');
  }
  const region = text(env, 'S3_REGION') ?? 'us-east-1';
  if (!/^[a-z0-9-]{1,64}$/.test(region)) throw new ConfigError('S3_REGION must be a region name such as us-east-1');
  const accessKeyId = text(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = text(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === null) !== (secretAccessKey === null)) {
    throw new ConfigError(
      `${accessKeyId === null ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY'} ` +
        `must be set together with ${accessKeyId === null ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID'}`,
    );
  }
  for (const [name, value] of [
    ['S3_ACCESS_KEY_ID', accessKeyId],
    ['S3_SECRET_ACCESS_KEY', secretAccessKey],
  ] as const) {
    if (value !== null && !/^[\x21-\x7e]+$/.test(value)) throw new ConfigError(`${name} must contain only visible ASCII characters`);
  }
  const sessionToken = text(env, 'S3_SESSION_TOKEN');
  if (sessionToken !== null && accessKeyId === null) throw new ConfigError('S3_SESSION_TOKEN needs S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
  let prefix = text(env, 'S3_PREFIX') ?? '';
  if (prefix !== '') {
    if (!/^[A-Za-z0-9!_.*'()\-/]{1,512}$/.test(prefix) || prefix.startsWith('/') || prefix.includes('//')) {
      throw new ConfigError("S3_PREFIX must be a key prefix of letters, digits and !_.*'()-/ (no leading or double slash)");
    }
    if (!prefix.endsWith('/')) prefix += '/';
  }
  return {
    kind: 's3',
    bucket,
    prefix,
    region,
    endpoint,
    // Path-style by default with a custom endpoint: most S3-compatible servers want it.
    forcePathStyle: flag(env, 'S3_FORCE_PATH_STYLE', endpoint !== null),
    credentials: accessKeyId !== null && secretAccessKey !== null ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } : null,
  };
}

/**
 * EVIDENCE_* settings of the safe fetcher (docs/collectors.md, "Evidence").
 * EVIDENCE_IMAGE_HOSTS=none turns downloads off; EVIDENCE_FETCH_ALLOW_ADDRESSES
 * and EVIDENCE_FETCH_CA_FILE exist for local development and tests.
 */
export function parseEvidenceFetch(env: NodeJS.ProcessEnv): SafeFetchSettings | null {
  const rawHosts = text(env, 'EVIDENCE_IMAGE_HOSTS');
  if (rawHosts !== null && rawHosts.toLowerCase() === 'none') return null;
  const list = (raw: string) =>
    raw
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
  const hosts = rawHosts === null ? [...DEFAULT_IMAGE_HOSTS] : list(rawHosts);
  for (const host of hosts) {
    try {
      parseHostRule(host);
    } catch {
      throw new ConfigError('EVIDENCE_IMAGE_HOSTS must be a comma-separated list of host names (optionally *.domain or host:port), or none');
    }
  }
  const allowedAddresses = list(text(env, 'EVIDENCE_FETCH_ALLOW_ADDRESSES') ?? '');
  for (const entry of allowedAddresses) {
    try {
      parseAllowedRange(entry);
    } catch {
      throw new ConfigError('EVIDENCE_FETCH_ALLOW_ADDRESSES must be a comma-separated list of IP addresses or CIDRs');
    }
  }
  const caFile = text(env, 'EVIDENCE_FETCH_CA_FILE');
  let extraCa: string | null = null;
  if (caFile !== null) {
    try {
      extraCa = fs.readFileSync(caFile, 'utf8');
    } catch {
      throw new ConfigError('EVIDENCE_FETCH_CA_FILE must name a readable PEM file');
    }
    if (!extraCa.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError('EVIDENCE_FETCH_CA_FILE must hold PEM certificates');
  }
  return {
    hosts,
    allowedAddresses,
    extraCa,
    maxBytes: DEFAULT_FETCH_MAX_BYTES,
    timeoutMs: integer(env, 'EVIDENCE_FETCH_TIMEOUT_MS', DEFAULT_FETCH_TIMEOUT_MS, 100, 120_000),
    maxRedirects: DEFAULT_MAX_REDIRECTS,
  };
}

/** Names proxy-addr (Fastify's `trustProxy`) understands besides addresses and CIDRs. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY: a comma-separated list of IP addresses, CIDR ranges or loopback/linklocal/uniquelocal; unset: off. */
export function parseTrustProxy(env: NodeJS.ProcessEnv): string[] | null {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === null) return null;
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const valid = PROXY_RANGE_NAMES.includes(entry) || (entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry));
    if (!valid) throw new ConfigError('TRUST_PROXY must be a comma-separated list of IP addresses or CIDR ranges (or loopback, linklocal, uniquelocal)');
  }
  return entries.length > 0 ? entries : null;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = hostname('HOST', (env.HOST ?? '127.0.0.1').trim() || '127.0.0.1');

  let databaseUrl: string | null = null;
  if (env.DATABASE_URL !== undefined && env.DATABASE_URL.trim() !== '') {
    url('DATABASE_URL', env.DATABASE_URL.trim(), ['postgres:', 'postgresql:']);
    databaseUrl = env.DATABASE_URL.trim();
  }
  // DATA_DIR unset: ./data, unless the embedded PostgreSQL could not reach it (./data-dir.ts).
  const explicitDataDir = env.DATA_DIR && env.DATA_DIR.trim() !== '' ? path.resolve(env.DATA_DIR) : null;
  const fallback = explicitDataDir === null ? defaultDataDir(process.cwd(), databaseUrl === null && process.getuid?.() === 0) : null;
  const dataDir = explicitDataDir ?? fallback!.dir;

  let publicBaseUrl: string;
  if (env.PUBLIC_BASE_URL !== undefined && env.PUBLIC_BASE_URL.trim() !== '') {
    const parsed = url('PUBLIC_BASE_URL', env.PUBLIC_BASE_URL.trim(), ['http:', 'https:']);
    if (parsed.search || parsed.hash) throw new ConfigError('PUBLIC_BASE_URL must not have a query or fragment');
    // The URLs the service builds from it stay within what the API documents (domain/schemas/common.ts BuiltUri).
    if (parsed.toString().length > 1024) throw new ConfigError('PUBLIC_BASE_URL must be at most 1024 characters');
    publicBaseUrl = parsed.toString().replace(/\/+$/, '');
  } else {
    const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    publicBaseUrl = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  }

  const logLevel = (env.LOG_LEVEL ?? 'info').trim();
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent');
  }
  const cursorSecret = env.CURSOR_SECRET && env.CURSOR_SECRET !== '' ? env.CURSOR_SECRET : null;
  if (cursorSecret !== null && cursorSecret.length < 32) throw new ConfigError('CURSOR_SECRET must be at least 32 characters');

  const metricsToken = text(env, 'METRICS_TOKEN');
  if (metricsToken !== null && !/^[\x21-\x7e]{16,256}$/.test(metricsToken)) {
    throw new ConfigError('METRICS_TOKEN must be 16 to 256 visible ASCII characters');
  }
  const metricsPortRaw = text(env, 'METRICS_PORT');
  const metricsPort = metricsPortRaw === null ? null : integer(env, 'METRICS_PORT', 0, 0, 65535);
  const metricsHost = hostname('METRICS_HOST', text(env, 'METRICS_HOST') ?? host);

  // Test-only switches: refused unless explicitly enabled.
  const testHooksEnabled = flag(env, 'PROFILE_SCAN_TEST_HOOKS', false);
  for (const name of ['CLOCK_OFFSET_MS', 'PS_TEST_PAUSE_BEFORE_COMMIT_MS']) {
    if (!testHooksEnabled && text(env, name) !== null) {
      throw new ConfigError(`${name} is a test-only switch; it is refused unless PROFILE_SCAN_TEST_HOOKS=1`);
    }
  }

  return {
    port,
    host,
    dataDir,
    dataDirReason: fallback?.reason ?? null,
    databaseUrl,
    publicBaseUrl,
    publicBaseUrlConfigured: env.PUBLIC_BASE_URL !== undefined && env.PUBLIC_BASE_URL.trim() !== '',
    simulatorDelayMs: integer(env, 'SIMULATOR_DELAY_MS', 300, 0, 60_000),
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 128, 0, 1024),
    itemLeaseSeconds: integer(env, 'ITEM_LEASE_SECONDS', 60, 5, 3600),
    itemMaxAttempts: integer(env, 'ITEM_MAX_ATTEMPTS', 3, 1, 20),
    cursorSecret,
    logLevel,
    clockOffsetMs: integer(env, 'CLOCK_OFFSET_MS', 0, -1e13, 1e13),
    readLimitMultiplier: integer(env, 'READ_LIMIT_MULTIPLIER', 1, 1, 1_000_000),
    collector: parseCollectorChoice(env),
    provider: parseProviderSettings(env),
    brightData: parseBrightDataSettings(env),
    media: parseMedia(env, dataDir),
    evidenceFetch: parseEvidenceFetch(env),
    trustProxy: parseTrustProxy(env),
    metricsToken,
    metricsPort,
    metricsHost,
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_SECONDS', 30, 1, 3600) * 1000,
    retention: {
      intervalMs: duration(env, 'MAINTENANCE_INTERVAL', 5 * UNIT_MS.m),
      expiredIdempotencyMs: duration(env, 'RETENTION_EXPIRED_IDEMPOTENCY', UNIT_MS.d),
      receiptTombstoneMs: duration(env, 'RETENTION_RECEIPT_TOMBSTONE', 0),
      rateCountersMs: duration(env, 'RETENTION_RATE_COUNTERS', 10 * UNIT_MS.m, 2 * UNIT_MS.m),
      obsoleteMediaMs: duration(env, 'RETENTION_OBSOLETE_MEDIA', 7 * UNIT_MS.d),
    },
    testHooks: {
      enabled: testHooksEnabled,
      pauseBeforeCommitMs: integer(env, 'PS_TEST_PAUSE_BEFORE_COMMIT_MS', 0, 0, 600_000),
    },
  };
}
