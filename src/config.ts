/**
 * Configuration, from the environment only. Every value is validated at start;
 * an invalid one stops the process with a one-line explanation naming the
 * variable (never its value when it may be a secret).
 */
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  publicBaseUrl: string;
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
  /** Test-only: shifts the service clock (ms). */
  clockOffsetMs: number;
  /** Multiplier for the read limits, for benchmarks (workspace write limits are settings). */
  readLimitMultiplier: number;
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = (env.HOST ?? '127.0.0.1').trim() || '127.0.0.1';
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(host)) throw new ConfigError('HOST must be a hostname or IP address');
  const dataDir = path.resolve(env.DATA_DIR && env.DATA_DIR.trim() !== '' ? env.DATA_DIR : './data');

  let databaseUrl: string | null = null;
  if (env.DATABASE_URL !== undefined && env.DATABASE_URL.trim() !== '') {
    url('DATABASE_URL', env.DATABASE_URL.trim(), ['postgres:', 'postgresql:']);
    databaseUrl = env.DATABASE_URL.trim();
  }

  let publicBaseUrl: string;
  if (env.PUBLIC_BASE_URL !== undefined && env.PUBLIC_BASE_URL.trim() !== '') {
    const parsed = url('PUBLIC_BASE_URL', env.PUBLIC_BASE_URL.trim(), ['http:', 'https:']);
    if (parsed.search || parsed.hash) throw new ConfigError('PUBLIC_BASE_URL must not have a query or fragment');
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

  return {
    port,
    host,
    dataDir,
    databaseUrl,
    publicBaseUrl,
    simulatorDelayMs: integer(env, 'SIMULATOR_DELAY_MS', 300, 0, 60_000),
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 64, 0, 1024),
    itemLeaseSeconds: integer(env, 'ITEM_LEASE_SECONDS', 60, 5, 3600),
    itemMaxAttempts: integer(env, 'ITEM_MAX_ATTEMPTS', 3, 1, 20),
    cursorSecret,
    logLevel,
    clockOffsetMs: integer(env, 'CLOCK_OFFSET_MS', 0, -1e13, 1e13),
    readLimitMultiplier: integer(env, 'READ_LIMIT_MULTIPLIER', 1, 1, 1_000_000),
  };
}
