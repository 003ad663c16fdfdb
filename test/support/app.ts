/**
 * A real service for HTTP tests: a cloned, migrated database, the real server
 * listening on an ephemeral port on 127.0.0.1, and helpers to create
 * workspaces and keys through the same repositories the admin CLI uses.
 * Requests go over real HTTP with fetch.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ManualClock, type Clock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { KeyMode, Scope } from '../../src/domain/keys.js';
import { Health } from '../../src/http/ops.js';
import { buildServer } from '../../src/http/server.js';
import { Metrics } from '../../src/metrics.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import type { Logger } from '../../src/logger.js';
import { ScanItemQueue } from '../../src/store/queue-channel.js';
import { startScanWorker, type ScanWorker } from '../../src/scanning/worker.js';
import { updateWorkspace, type WorkspaceChanges } from '../../src/store/workspace-repository.js';
import { createWorkspace } from '../../src/use-cases/workspace-settings.js';
import { issueKeyAsOperator } from '../../src/use-cases/manage-keys.js';
import { createTestDatabase, type TestDatabase } from './db.js';

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface Tenant {
  workspaceId: string;
  keyId: string;
  userId: string;
  secret: string;
}

export interface TestApp {
  baseUrl: string;
  config: Config;
  clock: Clock;
  runtime: Runtime;
  database: TestDatabase;
  app: FastifyInstance;
  metrics: Metrics;
  health: Health;
  request<T = any>(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<Response<T>>;
  tenant(options?: { name?: string; scopes?: Scope[]; mode?: KeyMode; limits?: WorkspaceChanges }): Promise<Tenant>;
  key(workspaceId: string, options?: { scopes?: Scope[]; mode?: KeyMode }): Promise<Tenant>;
  startWorker(concurrency?: number): Promise<ScanWorker>;
  close(): Promise<void>;
}

/** Generous limits for tests that are not about limits. */
export const HIGH_LIMITS: WorkspaceChanges = {
  writes_per_minute_per_key: 100_000,
  writes_per_minute_per_workspace: 100_000,
  submitted_profiles_per_minute_per_workspace: 1_000_000,
};

export async function startTestApp(
  options: {
    clock?: Clock;
    env?: Record<string, string>;
    database?: TestDatabase;
    /** The server's logger (a test that reads the log). */ logger?: Logger;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-test-'));
  const config = loadConfig({
    DATABASE_URL: database.url,
    PORT: '0',
    SIMULATOR_DELAY_MS: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    READ_LIMIT_MULTIPLIER: '1000',
    ITEM_LEASE_SECONDS: '10',
    ...options.env,
  });
  const clock = options.clock ?? new ManualClock(new Date());
  const runtime = await openRuntime(config, { poolSize: 10 });
  // A metrics registry of its own (no process metrics: tests share the process) and the readiness state.
  const metrics = new Metrics({ role: 'test', defaultMetrics: false });
  metrics.useDatabase(runtime.db);
  metrics.watchPool('api', runtime.pool);
  const health = new Health(runtime.db, runtime.availability);
  const app = await buildServer({
    db: runtime.db,
    config,
    clock,
    cursorSecret: 'test-cursor-secret-0123456789abcdef',
    queue: new ScanItemQueue(),
    metrics,
    health,
    logger: options.logger,
    availability: runtime.availability,
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const workers: ScanWorker[] = [];

  const request: TestApp['request'] = async (method, urlPath, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${address}${urlPath}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: res.status, headers: res.headers, body: parsed as any, text };
  };

  const key: TestApp['key'] = async (workspaceId, opts = {}) => {
    const created = await issueKeyAsOperator({ db: runtime.db, clock }, { workspaceId, scopes: opts.scopes ?? ['*'], mode: opts.mode ?? 'test' });
    return { workspaceId, keyId: created.id, userId: created.user_id, secret: created.secret };
  };

  return {
    baseUrl: address,
    config,
    clock,
    runtime,
    database,
    app,
    metrics,
    health,
    request,
    key,
    tenant: async (opts = {}) => {
      const ws = await createWorkspace(runtime.db, opts.name ?? 'Test workspace', clock.now());
      await updateWorkspace(runtime.db, ws.id, opts.limits ?? HIGH_LIMITS, clock.now());
      return key(ws.id, opts);
    },
    startWorker: async (concurrency = 2) => {
      const worker = await startScanWorker({ runtime, config, clock, concurrency, log: () => {}, metrics });
      workers.push(worker);
      return worker;
    },
    close: async () => {
      for (const worker of workers) await worker.stop();
      await app.close();
      await runtime.close();
      if (!options.database) await database.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until every requested scan of the report is terminal, in the summary
 * and in its runs' stored statuses, and, with `analyzed`, that many people
 * are analyzed; returns the summary's data then.
 */
export async function scansFinished(t: Pick<TestApp, 'request'>, key: string, reportId: string, analyzed?: number, timeoutMs = 30_000): Promise<any> {
  const summary = async () => {
    const data = (await t.request('GET', `/api/v1/reports/${reportId}/analysis`, { key })).body?.data;
    return data?.work.all_requested_work_terminal && (analyzed === undefined || data.coverage.optimization.analyzed_profiles === analyzed) && data;
  };
  return eventually(async () => {
    const data = await summary();
    if (!data) return false;
    // The summary counts transitions not folded yet; a run's stored status follows a fold later
    // (docs/scanning.md, "What readers see"). Pages show both, so wait for the runs too.
    for (const runId of data.work.scan_run_ids as string[]) {
      const run = await t.request('GET', `/api/v1/reports/${reportId}/scans/${runId}`, { key });
      if (run.status !== 200 || ['queued', 'running'].includes(run.body.data.status)) return false;
    }
    return summary();
  }, timeoutMs);
}

/** Polls `check` until it returns a truthy value or the time runs out. */
export async function eventually<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 30_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export function reportBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Quarterly audit',
    company: { name: 'Acme', domain: 'www.acme.co.uk', pronet_company_url: 'https://pronet.example/company/acme' },
    ...overrides,
  };
}

export function people(n: number, prefix = 'person') {
  return Array.from({ length: n }, (_, i) => ({ pronet_url: `https://pronet.example/in/${prefix}-${i + 1}` }));
}

/** Creates a report through the API (POST /reports, asserting 201) and returns the write's `data`. */
export async function createReport(
  t: Pick<TestApp, 'request'>,
  key: string,
  body: Record<string, unknown> = {},
  idempotencyKey: string = randomUUID(),
): Promise<any> {
  const res = await t.request('POST', '/api/v1/reports', { key, headers: { 'idempotency-key': idempotencyKey }, body: reportBody(body) });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}
