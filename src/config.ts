/**
 * Configuration, from the environment only, for every role (serve, worker,
 * migrate, admin), from one source: SETTINGS names every variable with its
 * type and bounds, its default and what it means. loadConfig reads each one
 * through it (an invalid value stops the process with a one-line message
 * naming the variable, never its value: it may be a secret), applies the
 * rules between settings (S3 credentials go together, a provider key goes with
 * its URL …) and returns the Config deep-frozen: nothing changes it after
 * start. The README's configuration table is rendered from SETTINGS
 * (scripts/gen-config-doc.ts; test/unit/config-doc.test.ts keeps it equal).
 *
 * Test-only switches (CLOCK_OFFSET_MS, PS_TEST_PAUSE_BEFORE_COMMIT_MS) are
 * refused unless PROFILE_SCAN_TEST_HOOKS=1, and a process that has them
 * enabled says so loudly at start (src/logger.ts: announceTestHooks).
 */
import fs from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { defaultDataDir } from './data-dir.js';
import {
  DEFAULT_FETCH_MAX_BYTES,
  DEFAULT_FETCH_TIMEOUT_MS,
  DEFAULT_IMAGE_HOSTS,
  DEFAULT_MAX_REDIRECTS,
  parseAllowedRange,
  parseHostRule,
  type SafeFetchSettings,
} from './domain/fetch-policy.js';

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
  /** A batch is sent once no item has joined it for this long, and at the latest a bounded number of windows after its first (the collector's BATCH_HOLD_WINDOWS), ms. */
  batchWindowMs: number;
  /** Posts collected per person in activity mode (the posts dataset's limit_per_input). */
  postsPerPerson: number;
  /** Provider records per UTC day for all processes together; null: no budget. */
  dailyRecordBudget: number | null;
  /** Longest a collection may take, the asynchronous flow included, ms. */
  timeoutMs: number;
  /** Pause between progress polls of a snapshot, ms. */
  pollIntervalMs: number;
  /** Longest one HTTP exchange with the provider may take (a hanging socket counts as a failure after it), ms. */
  exchangeTimeoutMs: number;
  /** A company page captured less than this long ago (per workspace and page) is reused instead of bought again, ms. */
  companyMaxAgeMs: number;
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
  /** Audit log entries older than this are deleted. */
  auditLogMs: number;
  /** People removed from a report longer ago than this are erased (0: never). */
  removedPeopleMs: number;
  /** The people of reports archived longer ago than this are erased (0: never). */
  archivedReportsMs: number;
  /** A person's scans and a report's completed rounds older than this many months are deleted (the analysis shown stays). */
  historyMonths: number;
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
  /** Statement texts prepared once per database connection, at most (DATABASE_STATEMENT_CACHE; 0: none). */
  databaseStatementCache: number;
  /**
   * How long the service waits for the database before taking it as
   * unreachable (DATABASE_TIMEOUT_MS): a new connection, and, within an API
   * request or web page, a statement's answer (store/database.ts).
   */
  databaseTimeoutMs: number;
  /**
   * PUBLIC_BASE_URL, without a trailing slash; null when unset: the address
   * the server listens on is the public one (http/server.ts: app.publicBaseUrl).
   */
  publicBaseUrl: string | null;
  simulatorDelayMs: number;
  /** SIMULATOR_EDITS: the file of edits to simulated profiles; null: none. */
  simulatorEdits: string | null;
  /** Items in flight at once in the in-process worker of `serve` (0 disables it) and, by default, in `worker`. */
  workerConcurrency: number;
  /** How often a process with scan workers runs due scheduled refreshes (REFRESH_SCHEDULE_INTERVAL; 0: never). */
  refreshScheduleIntervalMs: number;
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
  /** Who creates workspaces (WEB_WORKSPACE_CREATION): anyone signed in, on the web, or the operator only. */
  webWorkspaceCreation: 'signed-in' | 'operator';
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

// ---------------------------------------------------------------- how a value is read

/** Reads a set (trimmed, non-empty) value; throws a ConfigError naming the variable, never the value. */
type Parse<T> = (raw: string, name: string) => T;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** setTimeout's ceiling; larger values fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

function integer(min: number, max: number): Parse<number> {
  return (raw, name) => {
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw) || value < min || value > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max}`);
    return value;
  };
}

/** A duration like `30s`, `10m`, `24h`, `7d` (or `0`); a bare number is seconds. */
function duration(minMs = 0, maxMs = 3650 * UNIT_MS.d): Parse<number> {
  return (raw, name) => {
    const match = /^(\d{1,10})(ms|s|m|h|d)?$/.exec(raw);
    const value = match ? Number(match[1]) * UNIT_MS[match[2] ?? 's'] : NaN;
    if (!match || value < minMs || value > maxMs) {
      throw new ConfigError(`${name} must be a duration like 30s, 10m, 24h or 7d${minMs > 0 ? ` (at least ${minMs / 1000} s)` : ''}`);
    }
    return value;
  };
}

const flag: Parse<boolean> = (raw, name) => {
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false (1/0, yes/no, on/off)`);
};

function oneOf<const V extends string>(values: readonly V[], options: { lowerCase?: boolean; problem?: string } = {}): Parse<V> {
  return (raw, name) => {
    const value = options.lowerCase ? raw.toLowerCase() : raw;
    if (!(values as readonly string[]).includes(value)) throw new ConfigError(`${name} ${options.problem ?? `must be one of ${values.join(', ')}`}`);
    return value as V;
  };
}

/** A value matching `pattern`, else `${name} ${problem}`. */
function matching(pattern: RegExp, problem: string): Parse<string> {
  return (raw, name) => {
    if (!pattern.test(raw)) throw new ConfigError(`${name} ${problem}`);
    return raw;
  };
}

const visibleAscii = matching(/^[\x21-\x7e]+$/, 'must contain only visible ASCII characters');

const hostName = matching(/^[A-Za-z0-9.:\-[\]]+$/, 'must be a hostname or IP address');

/** An absolute URL of one of `protocols`. */
function absoluteUrl(raw: string, name: string, protocols: string[]): URL {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL (${protocols.join(' or ')})`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(`${name} must use ${protocols.join(' or ')}`);
  return parsed;
}

/**
 * An absolute URL of one of `protocols`, without credentials (`useInstead`
 * names the setting for them), query or fragment; returned without a trailing
 * slash.
 */
function baseUrl(protocols: string[], useInstead: string): Parse<string> {
  return (raw, name) => {
    const parsed = absoluteUrl(raw, name, protocols);
    if (parsed.username || parsed.password) throw new ConfigError(`${name} must not contain credentials; use ${useInstead}`);
    if (parsed.search || parsed.hash) throw new ConfigError(`${name} must not have a query or fragment`);
    return parsed.toString().replace(/\/+$/, '');
  };
}

/** A comma-separated list, each entry accepted by `check` (which throws), else `${name} ${problem}`. */
function list(check: (entry: string) => unknown, problem: string): Parse<string[]> {
  return (raw, name) => {
    const entries = raw
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    for (const entry of entries) {
      try {
        if (check(entry) === false) throw new Error('refused');
      } catch {
        throw new ConfigError(`${name} ${problem}`);
      }
    }
    return entries;
  };
}

/** Names proxy-addr (Fastify's `trustProxy`) understands besides addresses and CIDRs. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

// ---------------------------------------------------------------- the settings

/** One environment variable: how it is read, its value when unset, and what the configuration table says of it. */
export interface Setting<T, F extends T | null = T | null> {
  parse: Parse<T>;
  /** The value when unset; null: none, or derived from other settings by loadConfig (as `shown` says). */
  fallback: F;
  /** The default as the table shows it. */
  shown: string;
  meaning: string;
  /** Refused unless PROFILE_SCAN_TEST_HOOKS=1. */
  testOnly?: boolean;
}

function setting<T, F extends T | null>(fallback: F, parse: Parse<T>, meaning: string, shown?: string, testOnly = false): Setting<T, F> {
  return { parse, fallback, meaning, shown: shown ?? (fallback === null ? 'unset' : `\`${String(fallback)}\``), ...(testOnly ? { testOnly } : {}) };
}

export const BRIGHTDATA_DEFAULTS = {
  baseUrl: 'https://api.brightdata.com',
  datasets: { profiles: 'gd_l1viktl72bvl7bjuj0', companies: 'gd_l1vikfnt1wgvvqz95w', posts: 'gd_lyy3tktm25m4avu764' },
} as const;

const dataset = matching(/^[A-Za-z0-9_]{1,64}$/, 'must be a dataset id such as gd_l1viktl72bvl7bjuj0');

/** Every variable the service reads, in the order of the configuration table. */
export const SETTINGS = {
  PORT: setting(8080, integer(0, 65535), 'HTTP port (`0` = any free port)'),
  HOST: setting('127.0.0.1', hostName, 'Bind address'),
  DATA_DIR: setting(
    null,
    (raw) => path.resolve(raw),
    'Embedded PostgreSQL (`postgres/`, `postgres.json`) and evidence media (`media/`)',
    '`./data` (root in a private checkout: `/var/lib/profile-scan/<checkout>-<hash>`)',
  ),
  DATABASE_URL: setting(
    null,
    (raw, name) => {
      absoluteUrl(raw, name, ['postgres:', 'postgresql:']);
      return raw;
    },
    'Use this PostgreSQL instead of the embedded one',
  ),
  DATABASE_STATEMENT_CACHE: setting(
    256,
    integer(0, 10_000),
    'Statement texts each database connection prepares once and reuses, plans included (`0` = none: every statement is planned on each run)',
  ),
  DATABASE_TIMEOUT_MS: setting(
    10_000,
    integer(100, 600_000),
    'How long the service waits for the database before taking it as unreachable: a new connection, and a statement of an API request or web page that gets no answer (the request answers 503 `unavailable` with `Retry-After` within about twice this; a statement of a reachable database that runs this long is cancelled and answers 500; `docs/operations.md`)',
  ),
  PUBLIC_BASE_URL: setting(
    null,
    (raw, name) => {
      const url = baseUrl(['http:', 'https:'], 'a URL without credentials')(raw, name);
      // The URLs the service builds from it stay within what the API documents (domain/schemas/common.ts BuiltUri).
      if (url.length > 1024) throw new ConfigError(`${name} must be at most 1024 characters`);
      return url;
    },
    'Base of `workspace_url`, `public_url` and `Location`',
    'the address the server listens on',
  ),
  SIMULATOR_DELAY_MS: setting(300, integer(0, 60_000), 'Simulated collection time per item (0 in tests)'),
  SIMULATOR_EDITS: setting(
    null,
    (raw) => path.resolve(raw),
    "A JSON file of edits to simulated people's profiles, read again when it changes: their next scan differs (`docs/collectors.md`)",
  ),
  WORKER_CONCURRENCY: setting(
    128,
    integer(0, 1024),
    "Items in flight at once in `serve`'s scan worker thread (`0` = none) and, by default, in `profile-scan worker`",
  ),
  ITEM_LEASE_SECONDS: setting(
    60,
    integer(5, 3600),
    "An item's collection time budget (80 % of it, unless the collector has its own) and the lease of items claimed without a worker heartbeat; a worker's items are its own while it beats (every 2 s), and a dead worker's are claimed again 10 s after its last beat (`docs/scanning.md`)",
  ),
  ITEM_MAX_ATTEMPTS: setting(3, integer(1, 20), 'Attempts per item before it fails'),
  CURSOR_SECRET: setting(
    null,
    matching(/^.{32,}$/su, 'must be at least 32 characters'),
    'Cursor signing secret (≥ 32 chars); by default one is created in the database and shared by all processes',
    'generated',
  ),
  COLLECTOR: setting(
    null,
    oneOf(['brightdata', 'http', 'simulator'], { lowerCase: true, problem: 'must be brightdata, http or simulator' }),
    "What collects for live keys: `brightdata` (real people through Bright Data's LinkedIn Scraper API), `http` (our bridge protocol) or `simulator`; test keys always use the simulator (`docs/collectors.md`)",
    '`http` with `PROVIDER_BASE_URL`, else `simulator`',
  ),
  BRIGHTDATA_API_KEY: setting(null, visibleAscii, "Bright Data's API key (required with `COLLECTOR=brightdata`)"),
  BRIGHTDATA_BASE_URL: setting(BRIGHTDATA_DEFAULTS.baseUrl, baseUrl(['http:', 'https:'], 'BRIGHTDATA_API_KEY'), "Where Bright Data's API is"),
  BRIGHTDATA_PROFILES_DATASET: setting(BRIGHTDATA_DEFAULTS.datasets.profiles, dataset, 'Dataset id of LinkedIn profiles (`docs/collectors.md`, "Bright Data")'),
  BRIGHTDATA_POSTS_DATASET: setting(BRIGHTDATA_DEFAULTS.datasets.posts, dataset, 'Dataset id of LinkedIn posts'),
  BRIGHTDATA_COMPANIES_DATASET: setting(BRIGHTDATA_DEFAULTS.datasets.companies, dataset, 'Dataset id of LinkedIn company pages'),
  BRIGHTDATA_BATCH_MAX: setting(20, integer(1, 5000), 'Most URLs per provider call (up to 20 go to the synchronous `/scrape`, more to `/trigger`)'),
  BRIGHTDATA_BATCH_WINDOW_MS: setting(
    500,
    integer(0, 60_000),
    'A batch goes out once no item has joined it for this long, or a bounded number of windows after its first (`docs/collectors.md`), ms',
  ),
  BRIGHTDATA_POSTS_PER_PERSON: setting(10, integer(1, 1000), 'Posts read (and billed) per person'),
  BRIGHTDATA_DAILY_RECORD_BUDGET: setting(
    null,
    (raw, name) => (raw.toLowerCase() === 'unlimited' ? null : integer(0, 1_000_000_000)(raw, name)),
    'Provider records billed per UTC day, all processes together; a batch runs as far as it fits, the rest waits (for the next day once all is billed)',
    'unlimited',
  ),
  BRIGHTDATA_TIMEOUT_MS: setting(15 * 60_000, integer(1000, 24 * 3_600_000), "An item's time budget for its provider job, ms"),
  BRIGHTDATA_POLL_INTERVAL_MS: setting(10_000, integer(10, 600_000), "How often a job's progress is asked, ms"),
  BRIGHTDATA_EXCHANGE_TIMEOUT_MS: setting(
    90_000,
    integer(100, 600_000),
    'Longest one HTTP exchange with Bright Data may take, ms (a synchronous `/scrape` waits up to a minute on its side)',
  ),
  BRIGHTDATA_COMPANY_MAX_AGE: setting(
    24 * UNIT_MS.h,
    duration(),
    'A company page captured less than this long ago (per workspace and page URL) is reused instead of bought again (`0` = always buy)',
    '`24h`',
  ),
  PROVIDER_BASE_URL: setting(
    null,
    baseUrl(['http:', 'https:'], 'PROVIDER_API_KEY'),
    'The generic HTTP provider (`COLLECTOR=http`), a bridge for services we do not support yet (`docs/collectors.md`)',
  ),
  PROVIDER_API_KEY: setting(null, visibleAscii, "The HTTP provider's key (required with `PROVIDER_BASE_URL`)"),
  PROVIDER_TIMEOUT_MS: setting(10_000, integer(1, MAX_TIMER_MS), 'Deadline of one call to the HTTP provider, ms'),
  PROVIDER_MAX_CONCURRENCY: setting(
    16,
    integer(1, 10_000),
    'Calls in flight to the provider (Bright Data or HTTP), all worker processes together (shared through PostgreSQL)',
  ),
  PROVIDER_MAX_PER_SECOND: setting(
    10,
    (raw, name) => {
      const value = Number(raw);
      if (!/^[0-9]{1,5}(\.[0-9]{1,3})?$/.test(raw) || value <= 0 || value > 10_000)
        throw new ConfigError(`${name} must be a positive number of calls per second (at most 10000, 3 decimals)`);
      return value;
    },
    'Call starts per second to the provider, all worker processes together',
  ),
  EVIDENCE_IMAGE_HOSTS: setting(
    DEFAULT_IMAGE_HOSTS as string[] | null,
    (raw, name) =>
      raw.toLowerCase() === 'none'
        ? null
        : list(parseHostRule, 'must be a comma-separated list of host names (optionally *.domain or host:port), or none')(raw, name),
    'Hosts the workers download linked images (photo, banner, logo) from as captured evidence: names, `*.domain` for subdomains, `host:port` for a port other than 443; `none` turns downloads off (`docs/collectors.md`, "Evidence")',
    `\`${DEFAULT_IMAGE_HOSTS.join(',')}\``,
  ),
  EVIDENCE_FETCH_TIMEOUT_MS: setting(DEFAULT_FETCH_TIMEOUT_MS, integer(100, 120_000), 'Deadline of one image download, redirects and body included'),
  EVIDENCE_FETCH_ALLOW_ADDRESSES: setting(
    null,
    list(parseAllowedRange, 'must be a comma-separated list of IP addresses or CIDRs'),
    'Local development and tests only: CIDRs the image downloads may reach although they are private or loopback (e.g. `127.0.0.1/32`); never needed for a real CDN',
  ),
  EVIDENCE_FETCH_CA_FILE: setting(
    null,
    (raw, name) => {
      let pem: string;
      try {
        pem = fs.readFileSync(raw, 'utf8');
      } catch {
        throw new ConfigError(`${name} must name a readable PEM file`);
      }
      if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`${name} must hold PEM certificates`);
      return pem;
    },
    "Local development and tests only: a PEM file of CA certificates trusted for image downloads besides the system's (a local CDN's self-signed CA)",
  ),
  TRUST_PROXY: setting(
    null,
    list(
      (entry) => PROXY_RANGE_NAMES.includes(entry) || (entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry)),
      'must be a comma-separated list of IP addresses or CIDR ranges (or loopback, linklocal, uniquelocal)',
    ),
    'Addresses or CIDR ranges of reverse proxies whose `X-Forwarded-For` names the client for per-address limits and logs (`docs/operations.md`, "Behind a reverse proxy")',
    'unset (off)',
  ),
  WEB_WORKSPACE_CREATION: setting(
    'signed-in',
    oneOf(['signed-in', 'operator'], { lowerCase: true, problem: 'must be signed-in or operator' }),
    'Who creates workspaces: `signed-in` (anyone signed in, on the Workspaces page, and the operator) or `operator` (only `profile-scan admin workspace create`; the page says so)',
  ),
  LOG_LEVEL: setting(
    'info',
    oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    '`fatal`…`trace`, `silent`: JSON log lines on stderr, keys, cookies and the public token redacted (`docs/operations.md`, "Logs")',
  ),
  READ_LIMIT_MULTIPLIER: setting(1, integer(1, 1_000_000), 'Multiplies the read limits (benchmarks)'),
  S3_BUCKET: setting(
    null,
    matching(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name (3-63 lowercase letters, digits, dots and hyphens)'),
    'Store evidence media in this S3-compatible bucket instead of `DATA_DIR/media` (it must exist)',
  ),
  S3_ENDPOINT: setting(null, baseUrl(['http:', 'https:'], 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY'), "The S3 server (e.g. MinIO's URL)", 'AWS'),
  S3_REGION: setting('us-east-1', matching(/^[a-z0-9-]{1,64}$/, 'must be a region name such as us-east-1'), 'The S3 region'),
  S3_ACCESS_KEY_ID: setting(null, visibleAscii, 'S3 credentials, with `S3_SECRET_ACCESS_KEY` (both or neither)', 'SDK default chain'),
  S3_SECRET_ACCESS_KEY: setting(null, visibleAscii, 'S3 credentials, with `S3_ACCESS_KEY_ID`', 'SDK default chain'),
  S3_SESSION_TOKEN: setting(null, (raw) => raw, 'A session token for those credentials'),
  S3_FORCE_PATH_STYLE: setting(null, flag, 'Path-style addressing', 'on with `S3_ENDPOINT`'),
  S3_PREFIX: setting(
    '',
    (raw, name) => {
      if (!/^[A-Za-z0-9!_.*'()\-/]{1,512}$/.test(raw) || raw.startsWith('/') || raw.includes('//')) {
        throw new ConfigError(`${name} must be a key prefix of letters, digits and !_.*'()-/ (no leading or double slash)`);
      }
      return raw.endsWith('/') ? raw : `${raw}/`;
    },
    'A key prefix inside the bucket',
    'none',
  ),
  METRICS_TOKEN: setting(
    null,
    matching(/^[\x21-\x7e]{16,256}$/, 'must be 16 to 256 visible ASCII characters'),
    'Serve `GET /metrics` on the API port to `Authorization: Bearer <token>` (16+ characters)',
  ),
  METRICS_PORT: setting(null, integer(0, 65535), 'A separate listener for `/metrics`, `/livez`, `/readyz` (the only one of `profile-scan worker`)'),
  METRICS_HOST: setting(null, hostName, "The metrics listener's bind address", '`HOST`'),
  SHUTDOWN_TIMEOUT_SECONDS: setting(
    30,
    integer(1, 3600),
    'On SIGTERM: drain requests and items this long, then hand unfinished items back to the queue and exit',
  ),
  MAINTENANCE_INTERVAL: setting(5 * UNIT_MS.m, duration(), 'How often retention runs (one runner across all processes; `0` = never in this process)', '`5m`'),
  REFRESH_SCHEDULE_INTERVAL: setting(
    UNIT_MS.m,
    duration(),
    "How often a process with scan workers looks for reports' due scheduled refreshes (each runs once across all processes; `0` = never in this process)",
    '`1m`',
  ),
  RETENTION_EXPIRED_IDEMPOTENCY: setting(
    UNIT_MS.d,
    duration(),
    'Expired idempotency records are deleted this long after their expiry (`docs/operations.md`, "Retention")',
    '`1d`',
  ),
  RETENTION_RECEIPT_TOMBSTONE: setting(
    0,
    duration(),
    'Expired import receipts lose their contents this long after their expiry (the tombstone still answers 410)',
    '`0`',
  ),
  RETENTION_RATE_COUNTERS: setting(10 * UNIT_MS.m, duration(2 * UNIT_MS.m), 'Rate-limit counters of windows older than this are deleted', '`10m`'),
  RETENTION_OBSOLETE_MEDIA: setting(
    7 * UNIT_MS.d,
    duration(),
    'Obsolete evidence no stored finding refers to is deleted (with media nothing else uses) this long after it became obsolete',
    '`7d`',
  ),
  RETENTION_REMOVED_PEOPLE: setting(
    0,
    duration(),
    'People removed from a report are erased (every stored value, finding, event and evidence image) this long after their removal; `0` keeps them, so a later import restores them',
    '`0` (kept)',
  ),
  RETENTION_ARCHIVED_REPORTS: setting(
    0,
    duration(),
    "The people of a report archived this long ago are erased (the report's name and counts stay); `0` keeps them",
    '`0` (kept)',
  ),
  RETENTION_AUDIT_LOG: setting(
    730 * UNIT_MS.d,
    duration(UNIT_MS.d),
    'Audit log entries (erasures, exports, deletions, keys, roles, sharing) are deleted this long after they were recorded',
    '`730d`',
  ),
  HISTORY_RETENTION_MONTHS: setting(
    24,
    integer(1, 1200),
    "A person's scans and a report's completed rounds (the history progress is read from), and superseded scans' items and evidence, are deleted this many months after the scan; the analysis shown and each person's latest scan stay",
  ),
  PROFILE_SCAN_TEST_HOOKS: setting(
    false,
    flag,
    '`1` allows the test-only `CLOCK_OFFSET_MS` and `PS_TEST_PAUSE_BEFORE_COMMIT_MS` (refused otherwise; announced in the log)',
    'unset',
  ),
  CLOCK_OFFSET_MS: setting(0, integer(-1e13, 1e13), 'Test-only: shifts the service clock, ms', 'unset', true),
  PS_TEST_PAUSE_BEFORE_COMMIT_MS: setting(
    0,
    integer(0, 600_000),
    "Test-only: sleeps this long inside an idempotent write's transaction just before COMMIT",
    'unset',
    true,
  ),
} satisfies Record<string, Setting<unknown>>;

export type SettingName = keyof typeof SETTINGS;
type ValueOf<S> = S extends Setting<infer T, infer F> ? T | F : never;

/** One setting's value: parsed when set (trimmed, non-empty), else its fallback. */
export function readSetting<N extends SettingName>(env: NodeJS.ProcessEnv, name: N): ValueOf<(typeof SETTINGS)[N]> {
  const definition: Setting<unknown> = SETTINGS[name];
  const raw = env[name]?.trim();
  return (raw === undefined || raw === '' ? definition.fallback : definition.parse(raw, name)) as ValueOf<(typeof SETTINGS)[N]>;
}

function isSet(env: NodeJS.ProcessEnv, name: SettingName): boolean {
  const raw = env[name]?.trim();
  return raw !== undefined && raw !== '';
}

// ---------------------------------------------------------------- groups of settings

/** The limits of every provider collector (PROVIDER_MAX_CONCURRENCY, PROVIDER_MAX_PER_SECOND). */
function providerLimits(env: NodeJS.ProcessEnv): { maxConcurrency: number; maxPerSecond: number } {
  return { maxConcurrency: readSetting(env, 'PROVIDER_MAX_CONCURRENCY'), maxPerSecond: readSetting(env, 'PROVIDER_MAX_PER_SECOND') };
}

/** A provider base URL as PROVIDER_BASE_URL is read: validated and normalized (no trailing slash). Messages name the setting, never its value (it may hold credentials). */
export function providerBaseUrl(value: string): string {
  return SETTINGS.PROVIDER_BASE_URL.parse(value, 'PROVIDER_BASE_URL');
}

/**
 * The PROVIDER_* settings, or null when PROVIDER_BASE_URL is unset (live work
 * then runs on the simulator, with a warning). Throws a one-line ConfigError.
 */
export function parseProviderSettings(env: NodeJS.ProcessEnv): ProviderSettings | null {
  if (!isSet(env, 'PROVIDER_BASE_URL')) return null;
  const baseUrl = readSetting(env, 'PROVIDER_BASE_URL')!;
  const apiKey = readSetting(env, 'PROVIDER_API_KEY');
  if (apiKey === null) throw new ConfigError('PROVIDER_API_KEY must be set when PROVIDER_BASE_URL is set');
  return { baseUrl, apiKey, timeoutMs: readSetting(env, 'PROVIDER_TIMEOUT_MS'), ...providerLimits(env) };
}

/** COLLECTOR (and PROVIDER_BASE_URL for the bridge). */
function collectorChoice(env: NodeJS.ProcessEnv): CollectorChoice {
  const choice = readSetting(env, 'COLLECTOR');
  if (choice === null) return isSet(env, 'PROVIDER_BASE_URL') ? 'http' : 'simulator';
  if (choice === 'http' && !isSet(env, 'PROVIDER_BASE_URL')) throw new ConfigError('COLLECTOR=http needs PROVIDER_BASE_URL');
  return choice;
}

/** The BRIGHTDATA_* settings when COLLECTOR=brightdata, else null. Messages name settings, never values. */
export function parseBrightDataSettings(env: NodeJS.ProcessEnv): BrightDataSettings | null {
  if (collectorChoice(env) !== 'brightdata') return null;
  const apiKey = readSetting(env, 'BRIGHTDATA_API_KEY');
  if (apiKey === null) throw new ConfigError('BRIGHTDATA_API_KEY must be set when COLLECTOR=brightdata');
  return {
    apiKey,
    baseUrl: readSetting(env, 'BRIGHTDATA_BASE_URL'),
    datasets: {
      profiles: readSetting(env, 'BRIGHTDATA_PROFILES_DATASET'),
      companies: readSetting(env, 'BRIGHTDATA_COMPANIES_DATASET'),
      posts: readSetting(env, 'BRIGHTDATA_POSTS_DATASET'),
    },
    batchMax: readSetting(env, 'BRIGHTDATA_BATCH_MAX'),
    batchWindowMs: readSetting(env, 'BRIGHTDATA_BATCH_WINDOW_MS'),
    postsPerPerson: readSetting(env, 'BRIGHTDATA_POSTS_PER_PERSON'),
    dailyRecordBudget: readSetting(env, 'BRIGHTDATA_DAILY_RECORD_BUDGET'),
    timeoutMs: readSetting(env, 'BRIGHTDATA_TIMEOUT_MS'),
    pollIntervalMs: readSetting(env, 'BRIGHTDATA_POLL_INTERVAL_MS'),
    exchangeTimeoutMs: readSetting(env, 'BRIGHTDATA_EXCHANGE_TIMEOUT_MS'),
    companyMaxAgeMs: readSetting(env, 'BRIGHTDATA_COMPANY_MAX_AGE'),
    ...providerLimits(env),
  };
}

const S3_NAMES = ['S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_SESSION_TOKEN', 'S3_FORCE_PATH_STYLE', 'S3_PREFIX'] as const;

/** S3_* settings; the local directory DATA_DIR/media when S3_BUCKET is unset. */
function media(env: NodeJS.ProcessEnv, dataDir: string): MediaSettings {
  const bucket = readSetting(env, 'S3_BUCKET');
  if (bucket === null) {
    const stray = S3_NAMES.find((name) => isSet(env, name));
    if (stray) throw new ConfigError(`${stray} is set but S3_BUCKET is not; set S3_BUCKET to store evidence media in S3`);
    return { kind: 'file', dir: path.join(dataDir, 'media') };
  }
  const endpoint = readSetting(env, 'S3_ENDPOINT');
  const region = readSetting(env, 'S3_REGION');
  const accessKeyId = readSetting(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = readSetting(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === null) !== (secretAccessKey === null)) {
    throw new ConfigError(
      `${accessKeyId === null ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY'} ` +
        `must be set together with ${accessKeyId === null ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID'}`,
    );
  }
  const sessionToken = readSetting(env, 'S3_SESSION_TOKEN');
  if (sessionToken !== null && accessKeyId === null) throw new ConfigError('S3_SESSION_TOKEN needs S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
  return {
    kind: 's3',
    bucket,
    prefix: readSetting(env, 'S3_PREFIX'),
    region,
    endpoint,
    // Path-style by default with a custom endpoint: most S3-compatible servers want it.
    forcePathStyle: readSetting(env, 'S3_FORCE_PATH_STYLE') ?? endpoint !== null,
    credentials: accessKeyId !== null && secretAccessKey !== null ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } : null,
  };
}

/**
 * EVIDENCE_* settings of the safe fetcher (docs/collectors.md, "Evidence").
 * EVIDENCE_IMAGE_HOSTS=none turns downloads off; EVIDENCE_FETCH_ALLOW_ADDRESSES
 * and EVIDENCE_FETCH_CA_FILE exist for local development and tests.
 */
export function parseEvidenceFetch(env: NodeJS.ProcessEnv): SafeFetchSettings | null {
  const hosts = readSetting(env, 'EVIDENCE_IMAGE_HOSTS');
  if (hosts === null) return null;
  return {
    hosts: [...hosts],
    allowedAddresses: readSetting(env, 'EVIDENCE_FETCH_ALLOW_ADDRESSES') ?? [],
    extraCa: readSetting(env, 'EVIDENCE_FETCH_CA_FILE'),
    maxBytes: DEFAULT_FETCH_MAX_BYTES,
    timeoutMs: readSetting(env, 'EVIDENCE_FETCH_TIMEOUT_MS'),
    maxRedirects: DEFAULT_MAX_REDIRECTS,
  };
}

/**
 * The service's public address: PUBLIC_BASE_URL; else the address a server
 * listens on (`listening`: the port is known only then when PORT=0); else
 * http://HOST:PORT. An unspecified bind address (0.0.0.0, ::) is shown as
 * 127.0.0.1.
 */
export function publicBaseUrlOf(config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'>, listening?: { address: string; port: number } | null): string {
  if (config.publicBaseUrl !== null) return config.publicBaseUrl;
  const host = listening?.address ?? config.host;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${listening?.port ?? config.port}`;
}

/** Freezes an object and everything it holds: the configuration does not change after start. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Test-only switches: refused unless explicitly enabled.
  const testHooksEnabled = readSetting(env, 'PROFILE_SCAN_TEST_HOOKS');
  for (const [name, definition] of Object.entries(SETTINGS) as Array<[SettingName, Setting<unknown>]>) {
    if (definition.testOnly && !testHooksEnabled && isSet(env, name)) {
      throw new ConfigError(`${name} is a test-only switch; it is refused unless PROFILE_SCAN_TEST_HOOKS=1`);
    }
  }
  const port = readSetting(env, 'PORT');
  const host = readSetting(env, 'HOST');
  const databaseUrl = readSetting(env, 'DATABASE_URL');
  // DATA_DIR unset: ./data, unless the embedded PostgreSQL could not reach it (./data-dir.ts).
  const explicitDataDir = readSetting(env, 'DATA_DIR');
  const fallback = explicitDataDir === null ? defaultDataDir(process.cwd(), databaseUrl === null && process.getuid?.() === 0) : null;
  const dataDir = explicitDataDir ?? fallback!.dir;
  const metricsPort = readSetting(env, 'METRICS_PORT');

  return deepFreeze({
    port,
    host,
    dataDir,
    dataDirReason: fallback?.reason ?? null,
    databaseUrl,
    databaseStatementCache: readSetting(env, 'DATABASE_STATEMENT_CACHE'),
    databaseTimeoutMs: readSetting(env, 'DATABASE_TIMEOUT_MS'),
    publicBaseUrl: readSetting(env, 'PUBLIC_BASE_URL'),
    simulatorDelayMs: readSetting(env, 'SIMULATOR_DELAY_MS'),
    simulatorEdits: readSetting(env, 'SIMULATOR_EDITS'),
    workerConcurrency: readSetting(env, 'WORKER_CONCURRENCY'),
    refreshScheduleIntervalMs: readSetting(env, 'REFRESH_SCHEDULE_INTERVAL'),
    itemLeaseSeconds: readSetting(env, 'ITEM_LEASE_SECONDS'),
    itemMaxAttempts: readSetting(env, 'ITEM_MAX_ATTEMPTS'),
    cursorSecret: readSetting(env, 'CURSOR_SECRET'),
    logLevel: readSetting(env, 'LOG_LEVEL'),
    clockOffsetMs: readSetting(env, 'CLOCK_OFFSET_MS'),
    readLimitMultiplier: readSetting(env, 'READ_LIMIT_MULTIPLIER'),
    collector: collectorChoice(env),
    provider: parseProviderSettings(env),
    brightData: parseBrightDataSettings(env),
    media: media(env, dataDir),
    evidenceFetch: parseEvidenceFetch(env),
    trustProxy: readSetting(env, 'TRUST_PROXY'),
    webWorkspaceCreation: readSetting(env, 'WEB_WORKSPACE_CREATION'),
    metricsToken: readSetting(env, 'METRICS_TOKEN'),
    metricsPort,
    metricsHost: readSetting(env, 'METRICS_HOST') ?? host,
    shutdownTimeoutMs: readSetting(env, 'SHUTDOWN_TIMEOUT_SECONDS') * 1000,
    retention: {
      intervalMs: readSetting(env, 'MAINTENANCE_INTERVAL'),
      expiredIdempotencyMs: readSetting(env, 'RETENTION_EXPIRED_IDEMPOTENCY'),
      receiptTombstoneMs: readSetting(env, 'RETENTION_RECEIPT_TOMBSTONE'),
      rateCountersMs: readSetting(env, 'RETENTION_RATE_COUNTERS'),
      obsoleteMediaMs: readSetting(env, 'RETENTION_OBSOLETE_MEDIA'),
      auditLogMs: readSetting(env, 'RETENTION_AUDIT_LOG'),
      removedPeopleMs: readSetting(env, 'RETENTION_REMOVED_PEOPLE'),
      archivedReportsMs: readSetting(env, 'RETENTION_ARCHIVED_REPORTS'),
      historyMonths: readSetting(env, 'HISTORY_RETENTION_MONTHS'),
    },
    testHooks: {
      enabled: testHooksEnabled,
      pauseBeforeCommitMs: readSetting(env, 'PS_TEST_PAUSE_BEFORE_COMMIT_MS'),
    },
  });
}
