/**
 * Fault test (decisions "Atomicity"): a `serve` process killed with
 * SIGKILL in the middle of a 100-person write leaves no partial roster,
 * receipt, idempotency record, scan item or queue job; the retry with the
 * same key on a fresh process then succeeds exactly once and replays after.
 *
 * The real CLI runs as a child process. PS_TEST_PAUSE_BEFORE_COMMIT_MS (the
 * test-only hook in src/use-cases/idempotent-write.ts) holds the write's
 * transaction open after all its statements ran; the test waits until
 * PostgreSQL shows that transaction idle just after the idempotency insert,
 * then kills the process.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
// A pool of the test's own: it reads the database while the `serve` child it killed left it as it was.
import { createDb, createPool, type Db } from '../../src/store/database.js';
import { changeWorkspace, createWorkspace } from '../../src/use-cases/workspace-settings.js';
import { issueKeyAsOperator } from '../../src/use-cases/manage-keys.js';
import { eventually, HIGH_LIMITS, people, reportBody } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

interface Child {
  process: ChildProcess;
  baseUrl: string;
  exited: Promise<void>;
}

describe('crash in the middle of a 100-person write', () => {
  let database: TestDatabase;
  let db: Db;
  let dataDir: string;
  let secret: string;
  const children: ChildProcess[] = [];

  before(async () => {
    database = await createTestDatabase();
    db = createDb(createPool(database.url, 4));
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-crash-'));
    const workspace = await createWorkspace(db, 'Crash workspace', new Date());
    await changeWorkspace(db, workspace.id, HIGH_LIMITS, new Date());
    secret = (await issueKeyAsOperator({ db, clock: { now: () => new Date() } }, { workspaceId: workspace.id, scopes: ['*'], mode: 'test' })).secret;
  });

  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await db.destroy();
    await database.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  /** Starts `profile-scan serve` on the test database; resolves with its address. */
  async function serve(pauseMs: number | null): Promise<Child> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: database.url,
      PORT: '0',
      WORKER_CONCURRENCY: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
    };
    delete env.PS_TEST_PAUSE_BEFORE_COMMIT_MS;
    if (pauseMs !== null) env.PS_TEST_PAUSE_BEFORE_COMMIT_MS = String(pauseMs);
    const child = spawn(process.execPath, [path.resolve('bin/profile-scan.js'), 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(child);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const baseUrl = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 60_000);
      child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${err}`)));
      child.stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        const match = /API listening on (http:\/\/[^\s]+)/.exec(err);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    return { process: child, baseUrl, exited };
  }

  async function stop(child: Child, signal: NodeJS.Signals): Promise<void> {
    child.process.kill(signal);
    await child.exited;
  }

  async function post(base: string, urlPath: string, key: string, body: unknown) {
    const res = await fetch(`${base}${urlPath}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  }

  /** Row counts of everything a write may create. */
  async function snapshot() {
    const count = async (table: string) => Number((await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(db)).rows[0].n);
    const jobs = await sql<{ n: number }>`select count(*)::int as n from scan_items where status = 'pending'`.execute(db);
    return {
      reports: await count('reports'),
      report_profiles: await count('report_profiles'),
      profile_events: await count('profile_events'),
      import_receipts: await count('import_receipts'),
      idempotency_records: await count('idempotency_records'),
      scan_runs: await count('scan_runs'),
      scan_items: await count('scan_items'),
      scan_item_jobs: Number(jobs.rows[0].n),
    };
  }

  /**
   * Sends the write to a paused server, waits until its transaction sits idle
   * right after the idempotency insert (all statements ran, COMMIT not sent),
   * SIGKILLs the server and waits until PostgreSQL has ended that session.
   */
  async function crashDuringCommit(urlPath: string, key: string, body: unknown): Promise<void> {
    const child = await serve(30_000);
    const inFlight = post(child.baseUrl, urlPath, key, body).then(
      () => 'answered',
      () => 'no answer',
    );
    const pausedSession = sql<{ pid: number }>`
      select pid from pg_stat_activity
      where datname = current_database() and state = 'idle in transaction'
        and query ilike 'insert into "idempotency_records"%'`;
    const [{ pid }] = await eventually(
      async () => {
        const { rows } = await pausedSession.execute(db);
        return rows.length > 0 ? rows : null;
      },
      30_000,
      50,
    );
    await stop(child, 'SIGKILL');
    assert.equal(await inFlight, 'no answer', 'the client saw an uncertain result');
    await eventually(
      async () => {
        const { rows } = await sql`select 1 from pg_stat_activity where pid = ${pid}`.execute(db);
        return rows.length === 0;
      },
      30_000,
      50,
    );
  }

  test('decisions/atomicity + 4.4 rule 9: POST /reports with 100 people killed before commit leaves nothing; the retry creates it once', async () => {
    const body = reportBody({ name: 'Crash create', profiles: people(100, 'create') });
    const before = await snapshot();
    await crashDuringCommit('/api/v1/reports', 'crash-create-1', body);
    assert.deepEqual(await snapshot(), before, 'no report, roster, idempotency record, scan item or queue job survived the crash');

    const child = await serve(null);
    try {
      const retry = await post(child.baseUrl, '/api/v1/reports', 'crash-create-1', body);
      assert.equal(retry.status, 201);
      assert.equal(retry.headers.get('idempotency-replayed'), null);
      assert.equal(retry.body.data.profiles.added, 100);
      const reportId = retry.body.data.report.id;
      const replay = await post(child.baseUrl, '/api/v1/reports', 'crash-create-1', body);
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotency-replayed'), 'true');
      assert.equal(replay.body.data.report.id, reportId);

      const after = await snapshot();
      assert.equal(after.reports, before.reports + 1, 'exactly one report');
      const active = await db.selectFrom('report_profiles').select('id').where('report_id', '=', reportId).where('status', '=', 'active').execute();
      assert.equal(active.length, 100);
      const items = await db.selectFrom('scan_items').select('id').where('report_id', '=', reportId).execute();
      assert.equal(items.length, 201, '100 full_profile + 100 activity + 1 company page');
      assert.equal(after.scan_item_jobs, before.scan_item_jobs + 201, 'one queue job per item');
      assert.equal(after.idempotency_records, before.idempotency_records + 1);
    } finally {
      await stop(child, 'SIGTERM');
    }
  });

  test('4.8 rules 3-4: a 100-person import killed before commit leaves nothing; the same key then succeeds once and replays', async () => {
    const setup = await serve(null);
    let reportId: string;
    try {
      const created = await post(setup.baseUrl, '/api/v1/reports', 'crash-import-report', reportBody({ name: 'Crash import' }));
      assert.equal(created.status, 201);
      reportId = created.body.data.report.id;
    } finally {
      await stop(setup, 'SIGTERM');
    }
    const importPath = `/api/v1/reports/${reportId}/profile-imports`;
    const body = { profiles: people(100, 'imported') };

    const before = await snapshot();
    await crashDuringCommit(importPath, 'crash-import-1', body);
    assert.deepEqual(await snapshot(), before, 'no roster, receipt, idempotency record, scan item or queue job survived the crash');

    const child = await serve(null);
    try {
      const retry = await post(child.baseUrl, importPath, 'crash-import-1', body);
      assert.equal(retry.status, 201);
      assert.equal(retry.headers.get('idempotency-replayed'), null);
      assert.equal(retry.body.data.counts.added, 100);
      const replay = await post(child.baseUrl, importPath, 'crash-import-1', body);
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotency-replayed'), 'true');
      assert.equal(replay.body.data.id, retry.body.data.id, 'the replay returns the same receipt');

      const after = await snapshot();
      assert.equal(after.import_receipts, before.import_receipts + 1, 'exactly one receipt');
      const active = await db.selectFrom('report_profiles').select('id').where('report_id', '=', reportId).where('status', '=', 'active').execute();
      assert.equal(active.length, 100, 'exactly 100 active attachments');
      const items = await db.selectFrom('scan_items').select('id').where('report_id', '=', reportId).execute();
      assert.equal(items.length, 201, '100 full_profile + 100 activity + 1 company page');
      const queued = await sql<{ id: string }>`select id from scan_items where status = 'pending' and ready_at <= now()`.execute(db);
      const queuedIds = new Set(queued.rows.map((r) => r.id));
      assert.ok(
        items.every((i) => queuedIds.has(i.id)),
        'every new item is queued, claimable now',
      );
      assert.equal(after.scan_item_jobs, before.scan_item_jobs + 201, 'and nothing else was queued');
    } finally {
      await stop(child, 'SIGTERM');
    }
  });
});
