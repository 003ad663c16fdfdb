/**
 * Scale-out past one machine: two `serve` processes with
 * WORKER_CONCURRENCY=0 (pure API nodes) and two `profile-scan worker`
 * processes, each with a DATA_DIR of its own (no shared disk), on one
 * PostgreSQL and one S3 bucket (a local S3 server). Real processes of the
 * compiled build (bin/profile-scan.js).
 *
 * Reports are created through API A; their evidence downloads through API B.
 * Mid-load one worker and API A are SIGKILLed; the client retries its
 * unanswered creates on API B with the same Idempotency-Key. Afterwards:
 * every report exists exactly once, every item succeeded exactly once (the
 * killed worker's items were claimed again after their lease), every
 * person has one analysis, every image downloads intact through B, and B and
 * the other worker kept serving.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { eventually, people, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { startService, type ServiceProcess } from '../support/processes.js';
import { startS3, type TestS3 } from '../support/s3.js';

const REPORTS = 8;
const PEOPLE = 3;
const LEASE_SECONDS = 5;

describe('scale-out: 2 API processes + 2 worker processes on one PostgreSQL and one bucket (bin/profile-scan.js)', () => {
  let t: TestApp;
  let s3: TestS3;
  let owner: Tenant;
  const processes: ServiceProcess[] = [];
  const dataDirs: string[] = [];
  let apiA: ServiceProcess;
  let apiB: ServiceProcess;
  let workerA: ServiceProcess;
  let workerB: ServiceProcess;
  /** Report id per idempotency key, as answered (by A or, on retry, by B). */
  const created = new Map<string, string>();
  let retriedOnB = 0;

  const role = async (name: string, args: string[], env: Record<string, string> = {}) => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `ps-scale-${name}-`));
    dataDirs.push(dataDir);
    const service = await startService(name, args, {
      DATABASE_URL: t.runtime.databaseUrl,
      DATA_DIR: dataDir,
      PORT: '0',
      ITEM_LEASE_SECONDS: String(LEASE_SECONDS),
      READ_LIMIT_MULTIPLIER: '1000',
      MAINTENANCE_INTERVAL: '0',
      SHUTDOWN_TIMEOUT_SECONDS: '5',
      ...s3.env,
      ...env,
    });
    processes.push(service);
    return service;
  };

  const createReport = async (base: string, key: string, index: number) => {
    const res = await fetch(`${base}/api/v1/reports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.secret}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(reportBody({ name: `Scale ${index}`, profiles: people(PEOPLE, `scale-${index}`) })),
      signal: AbortSignal.timeout(20_000),
    });
    const body = await res.json();
    assert.ok(res.status === 201 || res.status === 200, JSON.stringify(body));
    return body.data.report.id as string;
  };

  before(async () => {
    s3 = await startS3();
    t = await startTestApp({ env: s3.env });
    owner = await t.tenant();
    [apiA, apiB] = await Promise.all([role('api-a', ['serve'], { WORKER_CONCURRENCY: '0' }), role('api-b', ['serve'], { WORKER_CONCURRENCY: '0' })]);
    [workerA, workerB] = await Promise.all([
      role('worker-a', ['worker', '--concurrency', '3'], { SIMULATOR_DELAY_MS: '1500' }),
      role('worker-b', ['worker', '--concurrency', '3'], { SIMULATOR_DELAY_MS: '200' }),
    ]);

    // Creates through A, several in flight at once; A is killed while some are, and worker A while it holds items.
    const keys = Array.from({ length: REPORTS }, (_, i) => `scale-${i}`);
    const first = await createReport(apiA.url, keys[0], 0);
    created.set(keys[0], first);
    await eventually(
      async () => {
        const running = await t.runtime.db.selectFrom('scan_items').select('id').where('status', '=', 'running').execute();
        return running.length >= 2;
      },
      30_000,
      50,
    );
    const inFlight = keys.slice(1).map((key, i) =>
      createReport(apiA.url, key, i + 1).then(
        (id) => created.set(key, id),
        () => null,
      ),
    );
    // Some creates answered by A, the others still in flight (or not yet sent) when it dies.
    await eventually(async () => created.size >= 3, 30_000, 5);
    await Promise.all([workerA.kill('SIGKILL'), apiA.kill('SIGKILL')]);
    await Promise.all(inFlight);
    // The client retries what A never answered on B, with the same keys.
    for (const [i, key] of keys.entries()) {
      if (created.has(key)) continue;
      created.set(key, await createReport(apiB.url, key, i));
      retriedOnB++;
    }

    await eventually(
      async () => {
        const open = await t.runtime.db.selectFrom('scan_items').select('id').where('status', 'in', ['pending', 'running']).execute();
        return open.length === 0;
      },
      120_000,
      250,
    );
    // A run's counts and status are the folded values (docs/scanning.md, "What readers see"): a delta
    // the killed worker committed but never folded waits for a sweep of B's processes.
    await eventually(
      async () => {
        const pending = await t.runtime.db.selectFrom('rollup_deltas').select('id').execute();
        return pending.length === 0;
      },
      30_000,
      100,
    );
  });

  after(async () => {
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
    await t?.close();
    await s3?.close();
    for (const dir of dataDirs) await fs.rm(dir, { recursive: true, force: true });
  });

  test('API A and worker A were killed mid-load; API B and worker B kept running and B is ready', async () => {
    assert.equal(apiA.child.signalCode, 'SIGKILL');
    assert.equal(workerA.child.signalCode, 'SIGKILL');
    assert.equal(apiB.child.exitCode, null);
    assert.equal(workerB.child.exitCode, null);
    const ready = await fetch(`${apiB.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal((await fetch(`${apiB.url}/api/v1/context`, { headers: { authorization: `Bearer ${owner.secret}` } })).status, 200);
  });

  test('every report exists exactly once, whichever process answered (idempotent retries on B)', async (ctx) => {
    ctx.diagnostic(`creates retried on B after A was killed: ${retriedOnB}`);
    const reports = await t.runtime.db.selectFrom('reports').select(['id', 'name']).where('workspace_id', '=', owner.workspaceId).execute();
    assert.equal(reports.length, REPORTS, JSON.stringify(reports.map((r) => r.name)));
    assert.equal(new Set(reports.map((r) => r.name)).size, REPORTS);
    assert.deepEqual(new Set(created.values()), new Set(reports.map((r) => r.id)));
  });

  test('every item succeeded exactly once: killed items claimed again, one analysis per person, no duplicated evidence', async () => {
    const items = await t.runtime.db.selectFrom('scan_items').select(['id', 'status', 'attempts']).execute();
    assert.equal(items.length, REPORTS * (PEOPLE * 2 + 1));
    assert.deepEqual([...new Set(items.map((i) => i.status))], ['succeeded']);
    assert.ok(
      items.some((i) => i.attempts >= 2),
      'the killed worker held items that were claimed again',
    );
    const analyses = await sql<{ n: number; distinct_profiles: number }>`
      select count(*)::int as n, count(distinct profile_id)::int as distinct_profiles from profile_analyses`.execute(t.runtime.db);
    assert.equal(analyses.rows[0].n, REPORTS * PEOPLE);
    assert.equal(analyses.rows[0].distinct_profiles, REPORTS * PEOPLE);
    const evidence = await sql<{ duplicated: number }>`
      select count(*)::int as duplicated from (
        select report_id, profile_id, section from evidence_images where not obsolete group by 1, 2, 3 having count(*) > 1) d`.execute(t.runtime.db);
    assert.equal(evidence.rows[0].duplicated, 0);
  });

  test('evidence of reports created through A downloads intact through B (from the bucket; no shared disk)', async () => {
    const images = await t.runtime.db
      .selectFrom('evidence_images')
      .select(['id', 'report_id', 'original_sha256', 'preview_sha256'])
      .where('obsolete', '=', false)
      .where('report_id', '=', created.get('scale-0')!)
      .execute();
    assert.ok(images.length > 0);
    for (const image of images) {
      for (const [variant, hash] of [
        ['original', image.original_sha256],
        ['preview', image.preview_sha256],
      ] as const) {
        const res = await fetch(`${apiB.url}/api/v1/reports/${image.report_id}/evidence/${image.id}${variant === 'preview' ? '?variant=preview' : ''}`, {
          headers: { authorization: `Bearer ${owner.secret}` },
        });
        assert.equal(res.status, 200, `${variant} of ${image.id}`);
        assert.equal(
          createHash('sha256')
            .update(Buffer.from(await res.arrayBuffer()))
            .digest('hex'),
          hash,
        );
      }
    }
    for (const dir of dataDirs) await assert.rejects(fs.access(path.join(dir, 'media')), /ENOENT/, `${dir} holds no media`);
  });

  test('the runs read completed through B for every report', async () => {
    const runs = await t.runtime.db
      .selectFrom('scan_runs')
      .select(['id', 'report_id'])
      .where('report_id', 'in', [...created.values()])
      .execute();
    assert.equal(runs.length, REPORTS * 2);
    for (const run of runs) {
      const res = await fetch(`${apiB.url}/api/v1/reports/${run.report_id}/scans/${run.id}`, {
        headers: { authorization: `Bearer ${owner.secret}` },
      });
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.data.status, 'completed', JSON.stringify(body.data));
    }
  });
});
