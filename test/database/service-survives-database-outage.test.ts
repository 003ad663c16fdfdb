/**
 * The service survives its database (docs/operations.md, "When the database
 * goes away"): a PostgreSQL cluster of the test's own (initdb into a
 * temporary directory, run as the `postgres` user under root, like the
 * embedded server) is crash-restarted (`pg_ctl restart -m immediate`) and then
 * stopped (`-m fast`) for a few seconds while clients create reports and
 * import people through a real `serve` process, and a separate `worker`
 * process scans them (both `node bin/profile-scan.js`, the compiled build). Then the same with the embedded PostgreSQL of a
 * `serve` killed (SIGKILL) and started again by its supervisor. Then a
 * failover: the address the service uses moves from a crashed cluster to its
 * promoted synchronous standby.
 *
 * What must hold: the processes live; every answer while the database is
 * away is 503 `unavailable` with Retry-After and X-Request-ID (never a 500,
 * never a hang); afterwards every acknowledged write exists once, every run
 * is terminal with every person analyzed, and no item spent an attempt on
 * the outage. After a restart a worker's LISTEN and liveness lock are back:
 * a new item is claimed at once by notification, and a claim elsewhere (a
 * worker that starts just then included) does not take a live worker's items.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { systemClock } from '../../src/clock.js';
import { startScanWorker, type ScanWorker } from '../../src/scanning/worker.js';
// The embedded server's controls, and claims that stage workers the outage caught mid-item.
import { embeddedPgCtl, startEmbeddedPostgres } from '../../src/store/embedded-postgres.js';
import { claimItem } from '../../src/queue/claim.js';
import { eventually, people, reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { startService, type ServiceProcess } from '../support/processes.js';
import { startRelay, type Relay } from '../support/relay.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';

const STOP_SECONDS = 20;
const METRICS_TOKEN = 'outage-metrics-token-0123456789';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  what: string;
  status: number;
  retryAfter: string | null;
  requestId: string | null;
  bodyRequestId: string | null;
  code: string | null;
}

/**
 * Clients writing and reading through `baseUrl` until stopped: each writer
 * creates reports of 3 people and imports 2 more into its last one, re-sending
 * a write answered 503 with the same Idempotency-Key (the contract's advice)
 * until it is acknowledged. Every answer is recorded.
 */
function startLoad(baseUrl: string, secret: string, label: string, writers = 2) {
  const answers: Answer[] = [];
  const failures: string[] = [];
  const reports = new Map<string, number>(); // acknowledged report id -> people acknowledged in it
  let stopping = false;
  const send = async (what: string, method: string, urlPath: string, body?: unknown, key?: string) => {
    for (;;) {
      let res: Response;
      try {
        res = await fetch(`${baseUrl}${urlPath}`, {
          method,
          headers: {
            authorization: `Bearer ${secret}`,
            ...(body ? { 'content-type': 'application/json' } : {}),
            ...(key ? { 'idempotency-key': key } : {}),
          },
          body: body ? JSON.stringify(body) : undefined,
          // Bounded: no answer may hang past this.
          signal: AbortSignal.timeout(15_000),
        });
      } catch (error) {
        failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      }
      const parsed = (await res.json().catch(() => null)) as { request_id?: string; error?: { code?: string }; data?: any } | null;
      answers.push({
        what,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        requestId: res.headers.get('x-request-id'),
        bodyRequestId: parsed?.request_id ?? null,
        code: parsed?.error?.code ?? null,
      });
      if (res.status !== 503 || method === 'GET') return res.status < 300 ? parsed?.data : null;
      await sleep(200);
    }
  };
  const writer = async (w: number) => {
    let last: string | null = null;
    for (let i = 0; !stopping; i++) {
      if (last === null || i % 2 === 0) {
        const data = await send('create', 'POST', '/api/v1/reports', reportBody({ profiles: people(3, `${label}-${w}-${i}`) }), `${label}-${w}-${i}`);
        if (data?.report?.id) {
          last = data.report.id as string;
          reports.set(last, 3);
        }
      } else {
        const data = await send(
          'import',
          'POST',
          `/api/v1/reports/${last}/profile-imports`,
          { profiles: people(2, `${label}-${w}-${i}-imp`) },
          `${label}-${w}-${i}`,
        );
        if (data?.counts) reports.set(last, reports.get(last)! + data.counts.added);
      }
      await send('read', 'GET', '/api/v1/reports?limit=5');
      await sleep(50);
    }
  };
  const running = Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
  return {
    answers,
    failures,
    reports,
    stop: async () => {
      stopping = true;
      await running;
    },
  };
}

function assertOutageAnswers(answers: Answer[]): void {
  assert.ok(answers.length > 0);
  const unavailable = answers.filter((a) => a.status === 503);
  assert.ok(unavailable.length > 0, 'some requests met the database away');
  for (const a of answers) {
    assert.ok(a.status < 300 || a.status === 503, `${a.what} answered ${a.status} (${a.code})`);
    assert.ok(a.requestId && a.requestId === a.bodyRequestId, `${a.what} ${a.status}: X-Request-ID equals request_id`);
  }
  for (const a of unavailable) {
    assert.equal(a.code, 'unavailable');
    assert.ok(Number(a.retryAfter) >= 1, `${a.what}: Retry-After ${a.retryAfter}`);
  }
}

/** Every acknowledged report exists once with every acknowledged person once, all scanned and analyzed, no attempt spent on the outage. */
async function assertWorkComplete(t: TestApp, secret: string, reports: Map<string, number>, workspaceId: string): Promise<void> {
  assert.ok(reports.size > 0);
  const stored = await t.runtime.db.selectFrom('reports').select('id').where('workspace_id', '=', workspaceId).execute();
  assert.deepEqual(stored.map((r) => r.id).sort(), [...reports.keys()].sort(), 'one report per acknowledged creation');
  for (const [reportId, count] of reports) {
    const roster = await t.request('GET', `/api/v1/reports/${reportId}/profiles?limit=100`, { key: secret });
    assert.equal(roster.status, 200);
    const rows = await t.runtime.db.selectFrom('report_profiles').select('report_id').where('report_id', '=', reportId).execute();
    assert.equal(
      roster.body.data.length,
      count,
      `report ${reportId}: every acknowledged person once (${rows.length} rows stored; ${roster.text.slice(0, 300)})`,
    );
    await scansFinished(t, secret, reportId, count);
  }
  const items = await t.runtime.db
    .selectFrom('scan_items')
    .select(['status', 'attempts', sql<number>`count(*)::int`.as('n')])
    .where('report_id', 'in', [...reports.keys()])
    .groupBy(['status', 'attempts'])
    .execute();
  assert.deepEqual(
    items.map((i) => [i.status, i.attempts]),
    [['succeeded', 1]],
    'every item succeeded on its first attempt',
  );
}

describe('a cluster of its own crash-restarted and stopped under load', () => {
  let dataDir: string;
  let t: TestApp;
  let secret: string;
  let workspaceId: string;
  let serve: ServiceProcess;
  let worker: WorkerProcess;
  let load: ReturnType<typeof startLoad>;
  const pgCtl = async (...args: string[]) => {
    const result = await embeddedPgCtl(dataDir, args);
    assert.equal(result.code, 0, result.output);
  };
  const logFile = () => path.join(dataDir, 'postgres', 'server.log');

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-outage-'));
    const cluster = await startEmbeddedPostgres({ dataDir, database: 'profile_scan' });
    t = await startTestApp({ clock: systemClock, database: { url: cluster.url, drop: async () => {} } });
    ({ secret, workspaceId } = await t.tenant());
    serve = await startService('serve', ['serve'], {
      DATABASE_URL: cluster.url,
      DATA_DIR: t.config.dataDir,
      PORT: '0',
      WORKER_CONCURRENCY: '0',
      READ_LIMIT_MULTIPLIER: '1000',
      MAINTENANCE_INTERVAL: '0',
      METRICS_TOKEN,
    });
    worker = await startWorkerProcess(t, { concurrency: 8, env: { SIMULATOR_DELAY_MS: '200', MAINTENANCE_INTERVAL: '0' } });

    load = startLoad(serve.url, secret, 'pg');
    await sleep(1500);
    await pgCtl('restart', '-m', 'immediate', '-w', '-t', '60', '-l', logFile());
    await sleep(1500);
    await pgCtl('stop', '-m', 'fast', '-w', '-t', '60');
    await sleep(STOP_SECONDS * 1000);
    // Started as before, on its port (pg_ctl start alone would not know it).
    await startEmbeddedPostgres({ dataDir, database: 'profile_scan' });
    await sleep(1500);
    await load.stop();
  });

  after(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await serve?.kill('SIGTERM');
    await t?.close();
    if (dataDir) {
      await embeddedPgCtl(dataDir, ['stop', '-m', 'immediate', '-w']).catch(() => undefined);
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  test('the server and the worker process stay alive through the restart and the stop', () => {
    assert.equal(serve.child.exitCode, null, serve.output());
    assert.equal(worker.child.exitCode, null, worker.output());
    assert.doesNotMatch(serve.output() + worker.output(), /Unhandled 'error' event/);
  });

  test('every answer is a success or 503 unavailable with Retry-After and X-Request-ID; none hangs or fails', () => {
    assert.deepEqual(load.failures, []);
    assertOutageAnswers(load.answers);
  });

  test('every acknowledged write exists once, and every run ends with every person analyzed on its first attempt', async () => {
    await assertWorkComplete(t, secret, load.reports, workspaceId);
  });

  test('the outage is said once per process (not per attempt), and /readyz and /metrics tell it', async () => {
    // What each process said of the database, in order: 'lost' or 'back'.
    const said = (output: string) =>
      output.split('\n').flatMap((line) => (line.includes('database unavailable') ? ['lost'] : line.includes('database reachable again') ? ['back'] : []));
    // Two outages (the crash-restart, the stop); a process may miss a short one it never touched, and a
    // stop that ends the pooled connections one by one can be seen as a loss, a query answered on a
    // connection not ended yet, and a loss again. Either way, once per outage: a loss follows a recovery.
    for (const role of [worker, serve]) {
      const events = said(role.output());
      const losses = events.filter((e) => e === 'lost').length;
      assert.ok(losses >= 1 && losses <= 4, role.output());
      assert.ok(
        events.every((e, i) => e !== 'lost' || i === 0 || events[i - 1] === 'back'),
        role.output(),
      );
    }
    assert.equal((await fetch(`${serve.url}/readyz`)).status, 200);
    const metrics = await (await fetch(`${serve.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    assert.match(metrics, /profile_scan_database_outages_total\{[^}]*part="api"[^}]*\} [1-4]\n/);
    assert.match(metrics, /profile_scan_database_reconnects_total\{[^}]*session="pool"[^}]*\} [1-4]\n/);
  });

  test('after a restart the LISTEN and the liveness lock are back: a new item is claimed at once, and no one takes a live worker’s items', async () => {
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, 'the worker process stops cleanly');
    // Polling only once a minute: a prompt claim is the notification's doing.
    const slow: ScanWorker = await startScanWorker({
      runtime: t.runtime,
      config: { ...t.config, simulatorDelayMs: 4000 },
      clock: systemClock,
      concurrency: 16,
      log: () => {},
      pollMs: 60_000,
    });
    try {
      const held = async () => {
        const { rows } = await sql<{ locks: number; listens: number }>`
          select (select count(*)::int from pg_locks where locktype = 'advisory' and classid = 1886615403 and granted) as locks,
                 (select count(*)::int from pg_stat_activity where pid <> pg_backend_pid() and state = 'idle' and query = 'listen scan_items') as listens`.execute(
          t.runtime.db,
        );
        return rows[0].locks >= 1 && rows[0].listens >= 1;
      };
      await eventually(held, 10_000, 50);
      await pgCtl('restart', '-m', 'immediate', '-w', '-t', '60', '-l', logFile());
      await eventually(async () => held().catch(() => false), 20_000, 50);

      const created = await t.request('POST', '/api/v1/reports', {
        key: secret,
        headers: { 'idempotency-key': 'after-restart' },
        body: reportBody({ profiles: people(2, 'after-restart') }),
      });
      assert.equal(created.status, 201, created.text);
      const reportId = created.body.data.report.id as string;
      const started = Date.now();
      await eventually(
        async () => {
          const pending = await t.runtime.db.selectFrom('scan_items').select('id').where('report_id', '=', reportId).where('status', '=', 'pending').execute();
          return pending.length === 0;
        },
        1000,
        20,
      );
      assert.ok(Date.now() - started < 1000);
      // Taken for dead at once when its lock is free: the lock, taken again, keeps its items its own.
      const taken = await claimItem(t.runtime.db, 10, { id: randomUUID(), deadSeconds: 0, hungSeconds: 60 });
      assert.equal(taken, null);
    } finally {
      await slow.stop({ timeoutMs: 100 });
    }
  });

  test('a worker that starts as the database returns does not take the items of a live worker that has not beaten again yet', async () => {
    const live: ScanWorker = await startScanWorker({
      runtime: t.runtime,
      config: { ...t.config, simulatorDelayMs: 60_000 },
      clock: systemClock,
      concurrency: 2,
      log: () => {},
    });
    try {
      const created = await t.request('POST', '/api/v1/reports', {
        key: secret,
        headers: { 'idempotency-key': 'live-worker-items' },
        body: reportBody({ profiles: people(2, 'live-worker-items') }),
      });
      assert.equal(created.status, 201, created.text);
      // What the live worker holds (it is the only worker beating): as many items as its concurrency.
      const held = () =>
        t.runtime.db
          .selectFrom('scan_items')
          .select(['id', 'claim_id', 'worker_id'])
          .where('status', '=', 'running')
          .where('worker_id', 'is not', null)
          .orderBy('id')
          .execute();
      const before = await eventually(async () => {
        const rows = await held();
        return rows.length === 2 && new Set(rows.map((r) => r.worker_id)).size === 1 && rows;
      });
      // Silent longer than the newcomer's dead limit, its lock gone with the server's sessions.
      await pgCtl('stop', '-m', 'fast', '-w', '-t', '60');
      await sleep(2500);
      await startEmbeddedPostgres({ dataDir, database: 'profile_scan' });
      const newcomer = { id: randomUUID(), deadSeconds: 2, hungSeconds: 60 };
      // Everything the newcomer can claim (items of other reports, pending, may come too).
      const claimAll = async () => {
        const ids: string[] = [];
        for (let c = await claimItem(t.runtime.db, 10, newcomer); c; c = await claimItem(t.runtime.db, 10, newcomer)) ids.push(c.itemId);
        return ids;
      };
      const liveItems = before.map((r) => r.id);
      const first = await eventually(async () => claimAll().catch(() => null), 10_000, 20);
      assert.deepEqual(
        first.filter((id) => liveItems.includes(id)),
        [],
        'the first claims after the return take nothing of the live worker',
      );
      // Past the newcomer's dead limit from the return: the live worker has beaten and locked again.
      await sleep(2500);
      assert.deepEqual(
        (await claimAll()).filter((id) => liveItems.includes(id)),
        [],
        'nor claims once the live worker beats again',
      );
      const now = (await held()).filter((r) => liveItems.includes(r.id));
      assert.deepEqual(now, before, 'its items are still its own, under the same claims');
    } finally {
      await live.stop({ timeoutMs: 100 });
    }
  });
});

describe('the embedded PostgreSQL killed and started again by its supervisor', () => {
  let dataDir: string;
  let t: TestApp;
  let secret: string;
  let workspaceId: string;
  let serve: ServiceProcess;
  let worker: WorkerProcess;
  let load: ReturnType<typeof startLoad>;

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-embedded-outage-'));
    serve = await startService('serve', ['serve'], {
      DATABASE_URL: '',
      DATA_DIR: dataDir,
      PORT: '0',
      WORKER_CONCURRENCY: '4',
      SIMULATOR_DELAY_MS: '200',
      READ_LIMIT_MULTIPLIER: '1000',
      MAINTENANCE_INTERVAL: '0',
    });
    const shared = await startEmbeddedPostgres({ dataDir, database: 'profile_scan' });
    assert.equal(shared.owned, false, 'the serve process owns the server');
    t = await startTestApp({ clock: systemClock, database: { url: shared.url, drop: async () => {} } });
    ({ secret, workspaceId } = await t.tenant());
    worker = await startWorkerProcess(t, {
      concurrency: 4,
      env: { DATABASE_URL: '', DATA_DIR: dataDir, SIMULATOR_DELAY_MS: '200', MAINTENANCE_INTERVAL: '0' },
    });

    load = startLoad(serve.url, secret, 'emb');
    await sleep(1500);
    const pid = Number((await fs.readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    await eventually(async () => serve.output().includes('started the embedded PostgreSQL again'), 60_000, 100);
    await sleep(1500);
    await load.stop();
  });

  after(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await t?.close();
    await serve?.kill('SIGTERM');
    if (dataDir) {
      await embeddedPgCtl(dataDir, ['stop', '-m', 'immediate', '-w']).catch(() => undefined);
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  test('the server, its worker thread and the worker process stay alive; the supervisor said the restart once', () => {
    assert.equal(serve.child.exitCode, null, serve.output());
    assert.equal(worker.child.exitCode, null, worker.output());
    assert.equal(
      serve
        .output()
        .split('\n')
        .filter((l) => l.includes('is not running; starting it again')).length,
      1,
      serve.output(),
    );
  });

  test('every answer is a success or 503 unavailable with Retry-After and X-Request-ID', () => {
    assert.deepEqual(load.failures, []);
    assertOutageAnswers(load.answers);
  });

  test('every acknowledged write exists once, and every run ends with every person analyzed on its first attempt', async () => {
    await assertWorkComplete(t, secret, load.reports, workspaceId);
  });
});

/**
 * A failover: the service's DATABASE_URL names an address (the relay) that
 * reaches cluster A, whose synchronous standby B streams from it (made from a
 * copy of A's data directory, started with `standby.signal`, with the
 * embedded package's own binaries). A crashes (`-m immediate`), B is promoted
 * (`pg_ctl promote`) and the address moves to B.
 */
describe('a failover to a promoted standby behind the same address', () => {
  let dirA: string;
  let dirB: string;
  let relay: Relay;
  let t: TestApp;
  let secret: string;
  let workspaceId: string;
  let serve: ServiceProcess;
  let worker: WorkerProcess;
  let load: ReturnType<typeof startLoad>;
  let portB: number;

  const pgCtl = async (dir: string, ...args: string[]) => {
    const result = await embeddedPgCtl(dir, args);
    assert.equal(result.code, 0, result.output);
  };
  const info = async (dir: string) => JSON.parse(await fs.readFile(path.join(dir, 'postgres.json'), 'utf8')) as { port: number; password: string };
  const tcpUrl = (port: number, password: string, database = 'profile_scan') =>
    `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  const on = async <T>(url: string, statement: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(statement)).rows as T[];
    } finally {
      await client.end();
    }
  };

  before(async () => {
    dirA = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-failover-a-'));
    dirB = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-failover-b-'));
    await startEmbeddedPostgres({ dataDir: dirA, database: 'profile_scan' });
    const a = await info(dirA);
    // B: a copy of A's cluster made while A is stopped, that starts as A's standby.
    await pgCtl(dirA, 'stop', '-m', 'fast', '-w', '-t', '60');
    const copied = spawnSync('cp', ['-a', path.join(dirA, 'postgres'), path.join(dirB, 'postgres')]);
    assert.equal(copied.status, 0, String(copied.stderr));
    const clusterB = path.join(dirB, 'postgres');
    const owner = await fs.stat(clusterB);
    await fs.writeFile(path.join(clusterB, 'standby.signal'), '');
    await fs.chown(path.join(clusterB, 'standby.signal'), owner.uid, owner.gid);
    await fs.appendFile(
      path.join(clusterB, 'postgresql.auto.conf'),
      `primary_conninfo = 'host=127.0.0.1 port=${a.port} user=postgres password=${a.password} application_name=standby_b'\n`,
    );
    await fs.writeFile(path.join(dirB, 'postgres.json'), JSON.stringify({ ...a, port: 0 }), { mode: 0o600 });
    await startEmbeddedPostgres({ dataDir: dirA, database: 'profile_scan' });
    await startEmbeddedPostgres({ dataDir: dirB, database: 'profile_scan' });
    portB = (await info(dirB)).port;
    const adminA = tcpUrl(a.port, a.password, 'postgres');
    await eventually(async () => (await on<{ n: number }>(adminA, `select count(*)::int as n from pg_stat_replication where state = 'streaming'`))[0].n === 1);
    // Synchronous: a commit A acknowledged is on B (a failover loses no acknowledged write).
    await on(adminA, `alter system set synchronous_standby_names = 'standby_b'`);
    await on(adminA, 'select pg_reload_conf()');
    await eventually(async () => (await on<{ n: number }>(adminA, `select count(*)::int as n from pg_stat_replication where sync_state = 'sync'`))[0].n === 1);

    relay = await startRelay({ host: '127.0.0.1', port: a.port });
    const url = tcpUrl(relay.port, a.password);
    t = await startTestApp({ clock: systemClock, database: { url, drop: async () => {} } });
    ({ secret, workspaceId } = await t.tenant());
    serve = await startService('serve', ['serve'], {
      DATABASE_URL: url,
      DATA_DIR: t.config.dataDir,
      PORT: '0',
      WORKER_CONCURRENCY: '0',
      READ_LIMIT_MULTIPLIER: '1000',
      MAINTENANCE_INTERVAL: '0',
    });
    worker = await startWorkerProcess(t, { concurrency: 8, env: { SIMULATOR_DELAY_MS: '200', MAINTENANCE_INTERVAL: '0' } });

    load = startLoad(serve.url, secret, 'fo');
    await sleep(1500);
    await pgCtl(dirA, 'stop', '-m', 'immediate', '-w', '-t', '60');
    await pgCtl(dirB, 'promote', '-w', '-t', '60');
    relay.retarget({ host: '127.0.0.1', port: portB });
    await sleep(2500);
    await load.stop();
  });

  after(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await serve?.kill('SIGTERM');
    await t?.close();
    await relay?.close();
    for (const dir of [dirA, dirB]) {
      if (!dir) continue;
      await embeddedPgCtl(dir, ['stop', '-m', 'immediate', '-w']).catch(() => undefined);
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test('the server and the worker process stay alive through the failover', () => {
    assert.equal(serve.child.exitCode, null, serve.output());
    assert.equal(worker.child.exitCode, null, worker.output());
    assert.doesNotMatch(serve.output() + worker.output(), /Unhandled 'error' event/);
  });

  test('every answer is a success or 503 unavailable with Retry-After and X-Request-ID', () => {
    assert.deepEqual(load.failures, []);
    assertOutageAnswers(load.answers);
  });

  test('on the promoted standby: every acknowledged write exists once, and every run ends with every person analyzed on its first attempt', async () => {
    const promoted = await on<{ recovering: boolean }>(tcpUrl(portB, (await info(dirB)).password), 'select pg_is_in_recovery() as recovering');
    assert.equal(promoted[0].recovering, false);
    await assertWorkComplete(t, secret, load.reports, workspaceId);
  });

  test('the worker listens on the promoted server, and a new item is claimed at once', async () => {
    const b = await info(dirB);
    await eventually(
      async () =>
        (await on<{ n: number }>(tcpUrl(portB, b.password), `select count(*)::int as n from pg_stat_activity where query = 'listen scan_items'`))[0].n >= 1,
      10_000,
      50,
    );
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'after-failover' },
      body: reportBody({ profiles: people(1, 'after-failover') }),
    });
    assert.equal(created.status, 201, created.text);
    await scansFinished(t, secret, created.body.data.report.id, 1);
    // The promotion moved the server to a new timeline: the epoch claims count silence from.
    const epochs = await on<{ timeline: number }>(tcpUrl(portB, b.password), 'select timeline from database_epochs order by seen_at');
    assert.ok(
      epochs.some((e) => e.timeline > 1),
      JSON.stringify(epochs),
    );
  });
});
