/**
 * A dead worker is noticed in seconds (migrations 0027, 0028; docs/scanning.md,
 * "Leases and worker heartbeats"): with the default one-minute lease, the
 * items of a SIGKILLed worker process are claimed again within a third of
 * the lease after its death (the silence limit, plus a replacement worker's
 * start on a busy machine), because its heartbeat stopped and its liveness lock went with its
 * connection; a healthy worker's item is never claimed twice however long it
 * runs, even with its lease long expired, because its worker keeps beating;
 * a living worker whose beats stop (frozen: SIGSTOP, the extreme of a starved
 * event loop) keeps its items until the hung limit.
 *
 * Real `profile-scan worker` processes against the test database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { eventually, people, reportBody, startTestApp, type TestApp } from '../support/app.js';
import { startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';

async function createReport(t: TestApp, secret: string, key: string, n: number): Promise<string> {
  const res = await t.request('POST', '/api/v1/reports', {
    key: secret,
    headers: { 'idempotency-key': key },
    body: reportBody({ profiles: people(n, key) }),
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data.report.id;
}

const running = async (t: TestApp, reportId: string) =>
  (
    await sql<{ id: string; worker_id: string | null }>`
      select id, worker_id from scan_items where report_id = ${reportId} and status = 'running'`.execute(t.runtime.db)
  ).rows;

/** Seconds since the last beat of the worker holding the report's running items. */
const silentFor = async (t: TestApp, reportId: string) =>
  (
    await sql<{ s: number }>`
      select extract(epoch from now() - w.heartbeat_at)::float8 as s
        from scan_workers w where w.id = (select worker_id from scan_items where report_id = ${reportId} and status = 'running' limit 1)`.execute(t.runtime.db)
  ).rows[0]?.s ?? 0;

const unfinished = async (t: TestApp, reportId: string) =>
  (await sql<{ n: number }>`select count(*)::int as n from scan_items where report_id = ${reportId} and status <> 'succeeded'`.execute(t.runtime.db)).rows[0].n;

describe('a SIGKILLed worker, with the default 60-second lease', () => {
  let t: TestApp;
  const workers: WorkerProcess[] = [];
  let reclaimedAfterMs = 0;
  let held: string[] = [];
  let reportId: string;

  before(async () => {
    t = await startTestApp({ env: { ITEM_LEASE_SECONDS: '60' } });
    const { secret } = await t.tenant();
    // Worker A holds its items for ever (its collection never ends before the kill).
    const a = await startWorkerProcess(t, { concurrency: 4, env: { SIMULATOR_DELAY_MS: '40000', ITEM_LEASE_SECONDS: '60' } });
    workers.push(a);
    reportId = await createReport(t, secret, 'hb-kill', 3);
    await eventually(async () => (await running(t, reportId)).length === 4, 30_000, 50);
    held = (await running(t, reportId)).map((r) => r.id);
    a.child.kill('SIGKILL');
    await a.exited;
    const killedAt = Date.now();
    workers.push(await startWorkerProcess(t, { concurrency: 4, env: { SIMULATOR_DELAY_MS: '0', ITEM_LEASE_SECONDS: '60' } }));
    await eventually(
      async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from scan_items where id = any(${held}::uuid[]) and attempts >= 2`.execute(t.runtime.db);
        return rows[0].n === held.length;
      },
      60_000,
      100,
    );
    reclaimedAfterMs = Date.now() - killedAt;
  });
  after(async () => {
    await stopWorkerProcesses(workers);
    await t?.close();
  });

  test('its items are claimed again within a third of their lease after its death, long before the lease runs out', (ctx) => {
    ctx.diagnostic(`the killed worker's ${held.length} items were claimed again ${(reclaimedAfterMs / 1000).toFixed(1)} s after the kill`);
    assert.ok(reclaimedAfterMs <= 20_000, `${reclaimedAfterMs} ms`);
  });

  test('the report still completes, every item once', async () => {
    await eventually(
      async () =>
        (await sql<{ n: number }>`select count(*)::int as n from scan_items where report_id = ${reportId} and status <> 'succeeded'`.execute(t.runtime.db))
          .rows[0].n === 0,
      60_000,
      100,
    );
    const analyses = await t.runtime.db.selectFrom('profile_analyses').select('profile_id').where('report_id', '=', reportId).execute();
    assert.equal(analyses.length, 3);
  });
});

describe('a healthy worker with slow items', () => {
  let t: TestApp;
  const workers: WorkerProcess[] = [];

  before(async () => {
    t = await startTestApp({ env: { ITEM_LEASE_SECONDS: '60' } });
  });
  after(async () => {
    await stopWorkerProcesses(workers);
    await t?.close();
  });

  test('its items are never claimed twice, even with their leases long expired, while another worker waits for work', async () => {
    const { secret } = await t.tenant();
    workers.push(await startWorkerProcess(t, { concurrency: 8, env: { SIMULATOR_DELAY_MS: '12000' } }));
    const reportId = await createReport(t, secret, 'hb-slow', 2);
    await eventually(async () => (await running(t, reportId)).length === 5, 30_000, 50);
    // As if every lease had run out long ago: only the worker's heartbeat holds the items now.
    await sql`update scan_items set lease_expires_at = now() - interval '10 minutes' where report_id = ${reportId} and status = 'running'`.execute(
      t.runtime.db,
    );
    workers.push(await startWorkerProcess(t, { concurrency: 8, env: { SIMULATOR_DELAY_MS: '0' } }));
    await eventually(
      async () =>
        (await sql<{ n: number }>`select count(*)::int as n from scan_items where report_id = ${reportId} and status <> 'succeeded'`.execute(t.runtime.db))
          .rows[0].n === 0,
      60_000,
      200,
    );
    const items = await t.runtime.db.selectFrom('scan_items').select(['attempts']).where('report_id', '=', reportId).execute();
    assert.deepEqual(
      items.map((i) => i.attempts),
      [1, 1, 1, 1, 1],
    );
  });
  test('a frozen worker (SIGSTOP: no beats, its process alive) keeps its items past the dead limit; none runs twice', async () => {
    await stopWorkerProcesses(workers.splice(0)); // the earlier tests' workers would take these items
    const { secret } = await t.tenant();
    const a = await startWorkerProcess(t, { concurrency: 8, env: { SIMULATOR_DELAY_MS: '4000' } });
    workers.push(a);
    const reportId = await createReport(t, secret, 'hb-frozen', 2);
    await eventually(async () => (await running(t, reportId)).length === 5, 30_000, 50);
    a.child.kill('SIGSTOP');
    try {
      workers.push(await startWorkerProcess(t, { concurrency: 8, env: { SIMULATOR_DELAY_MS: '0' } }));
      // Past the dead limit (10 s), with the other worker claiming every second meanwhile.
      await eventually(async () => (await silentFor(t, reportId)) >= 13, 30_000, 200);
      const items = await t.runtime.db.selectFrom('scan_items').select(['status', 'attempts']).where('report_id', '=', reportId).execute();
      assert.deepEqual(
        items.map((i) => [i.status, i.attempts]),
        items.map(() => ['running', 1]),
      );
    } finally {
      a.child.kill('SIGCONT');
    }
    await eventually(async () => (await unfinished(t, reportId)) === 0, 60_000, 200);
    const items = await t.runtime.db.selectFrom('scan_items').select(['attempts']).where('report_id', '=', reportId).execute();
    assert.deepEqual(
      items.map((i) => i.attempts),
      [1, 1, 1, 1, 1],
    );
  });

  test('a worker silent past the hung limit loses its items whatever its lock says, and its late work changes nothing', async () => {
    await stopWorkerProcesses(workers.splice(0)); // the earlier tests' workers would take these items
    const { secret } = await t.tenant();
    const a = await startWorkerProcess(t, { concurrency: 8, env: { SIMULATOR_DELAY_MS: '4000' } });
    workers.push(a);
    const reportId = await createReport(t, secret, 'hb-hung', 2);
    await eventually(async () => (await running(t, reportId)).length === 5, 30_000, 50);
    a.child.kill('SIGSTOP');
    try {
      // A beat already on its way when the signal came may still land: wait until none does.
      await eventually(async () => (await silentFor(t, reportId)) >= 3, 30_000, 200);
      // As if it had been silent for a minute (frozen, it cannot beat meanwhile).
      await sql`update scan_workers set heartbeat_at = now() - interval '61 seconds'
                 where id = (select worker_id from scan_items where report_id = ${reportId} and status = 'running' limit 1)`.execute(t.runtime.db);
      workers.push(await startWorkerProcess(t, { concurrency: 8, env: { SIMULATOR_DELAY_MS: '0' } }));
      // Not a speed target (that is the dead-worker test above): a loaded CI machine may take long to start a process.
      await eventually(async () => (await unfinished(t, reportId)) === 0, 120_000, 200);
    } finally {
      a.child.kill('SIGCONT');
    }
    // Woken, the hung worker finds its claims taken: nothing of its own lands.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const items = await t.runtime.db.selectFrom('scan_items').select(['status', 'attempts']).where('report_id', '=', reportId).execute();
    assert.deepEqual(
      items.map((i) => [i.status, i.attempts]),
      items.map(() => ['succeeded', 2]),
    );
    const analyses = await t.runtime.db.selectFrom('profile_analyses').select('profile_id').where('report_id', '=', reportId).execute();
    assert.equal(analyses.length, 2);
  });
});

describe('a heartbeat connection made again while its liveness lock is still held elsewhere', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t?.close();
  });

  test('takes the lock at a later beat once it is free, so a claim still finds the worker alive', async () => {
    const worker = await t.startWorker(1);
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    try {
      const lockOf = (workerId: string) => [1886615403, workerId] as const;
      const { rows } = await holder.query<{ id: string; pid: number }>(
        `select w.id, l.pid from scan_workers w
           join pg_locks l on l.locktype = 'advisory' and l.classid = 1886615403 and l.objsubid = 2 and l.granted
                          and l.objid = (hashtext(w.id::text)::bigint & 4294967295)::oid
          where w.heartbeat_at > '-infinity'`,
      );
      assert.equal(rows.length, 1, 'the worker holds its lock');
      const [namespace, workerId] = lockOf(rows[0].id);
      // Its heartbeat session ends; the test takes the lock before the heartbeat's next connection can.
      await holder.query('select pg_terminate_backend($1)', [rows[0].pid]);
      await holder.query('select pg_advisory_lock($1, hashtext($2::uuid::text))', [namespace, workerId]);
      // The heartbeat comes back (a new connection, which finds the lock taken).
      const beatAt = async () =>
        (await holder.query<{ at: Date }>('select heartbeat_at as at from scan_workers where id = $1', [workerId])).rows[0].at.getTime();
      const terminatedAt = await beatAt();
      await eventually(async () => (await beatAt()) > terminatedAt, 15_000, 50);
      await holder.query('select pg_advisory_unlock($1, hashtext($2::uuid::text))', [namespace, workerId]);
      // Free now: a later beat takes it, and a probe (what a claim does for a silent worker) finds it held.
      await eventually(
        async () => {
          const probe = await holder.query<{ free: boolean }>('select pg_try_advisory_lock($1, hashtext($2::uuid::text)) as free', [namespace, workerId]);
          if (probe.rows[0].free) await holder.query('select pg_advisory_unlock($1, hashtext($2::uuid::text))', [namespace, workerId]);
          return !probe.rows[0].free;
        },
        15_000,
        100,
      );
    } finally {
      await holder.end();
      await worker.stop();
    }
  });
});
