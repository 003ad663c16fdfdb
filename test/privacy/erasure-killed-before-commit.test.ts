/**
 * A crash in the middle of an erasure, before its transaction commits: the
 * operator's `admin erase-person` is stopped inside its transaction by a row
 * lock this test holds on a row the erasure must lock (the stored response
 * of the report's creation, which names the person and which the erasure
 * tombstones after it has already marked the person removed and settled the
 * roll-ups), and is SIGKILLed while it waits. Once the lock is released the
 * orphaned transaction finds no client to commit for and is rolled back:
 * nothing of the person is erased (all or nothing), no blob is queued or
 * deleted, no erasure is recorded. The request was never answered (the
 * command died without output), and answering it again is running it again:
 * the second run completes, after which the catalog walk finds nothing of
 * the person and their blobs are gone from the bucket.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { S3MediaStore } from '../../src/scanning/media/s3-media-store.js';
import { eventually, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { findInCatalog } from '../support/catalog.js';
import { startS3, type TestS3 } from '../support/s3.js';

const root = path.resolve(import.meta.dirname, '../..');
const ERASED = 'https://pronet.example/in/killed-before-commit-person';
const ERASED_NAME = 'Quilla Precommit';

describe('an erasure killed before its transaction commits', () => {
  let s3: TestS3;
  let t: TestApp;
  let owner: Tenant;
  let media: S3MediaStore;
  let holder: pg.Client;

  before(async () => {
    s3 = await startS3();
    t = await startTestApp({ env: s3.env });
    const settings = t.config.media;
    assert.equal(settings.kind, 's3');
    media = new S3MediaStore(settings);
    owner = await t.tenant();
    holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
  });
  after(async () => {
    await holder?.end().catch(() => {});
    await t?.close();
    await s3?.close();
  });

  function eraseCommand(): ReturnType<typeof spawn> {
    return spawn(
      process.execPath,
      [path.join(root, 'bin/profile-scan.js'), 'admin', 'erase-person', '--workspace', owner.workspaceId, '--url', ERASED, '--json'],
      {
        env: { ...process.env, DATABASE_URL: t.database.url, PUBLIC_BASE_URL: t.baseUrl, LOG_LEVEL: 'silent', ...s3.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
  }

  test('nothing is half-erased; running the request again completes it and leaves no row or blob of the person', async () => {
    const created = await t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': randomUUID() },
      body: reportBody({ profiles: [{ pronet_url: ERASED, name: ERASED_NAME }, { pronet_url: 'https://pronet.example/in/killed-before-commit-kept' }] }),
    });
    assert.equal(created.status, 201, created.text);
    const reportId = created.body.data.report.id as string;
    const worker = await t.startWorker(2);
    await eventually(async () => {
      const open = await t.runtime.db
        .selectFrom('scan_items')
        .select('id')
        .where('report_id', '=', reportId)
        .where('status', 'in', ['pending', 'running'])
        .execute();
      return open.length === 0;
    });
    await worker.stop();
    const person = await t.runtime.db.selectFrom('report_profiles').select(['id', 'status']).where('pronet_url', '=', ERASED).executeTakeFirstOrThrow();
    const evidence = await t.runtime.db
      .selectFrom('evidence_images')
      .select(['original_sha256', 'preview_sha256'])
      .where('profile_id', '=', person.id)
      .execute();
    const used = new Set(
      (await t.runtime.db.selectFrom('evidence_images').select(['original_sha256', 'preview_sha256']).where('profile_id', '<>', person.id).execute()).flatMap(
        (e) => [e.original_sha256, e.preview_sha256],
      ),
    );
    const theirs = [...new Set(evidence.flatMap((e) => [e.original_sha256, e.preview_sha256]))].filter((h) => !used.has(h));
    assert.ok(theirs.length > 0, 'blobs of theirs alone');
    const needles = [ERASED, ERASED_NAME, person.id];
    const rowsBefore = (await findInCatalog(t.runtime.db, needles)).map((h) => `${h.table}: ${h.row}`).sort();
    assert.ok(rowsBefore.some((r) => r.startsWith('report_profiles:')) && rowsBefore.some((r) => r.startsWith('profile_analyses:')));
    const totalsBefore = await t.runtime.db.selectFrom('report_aggregates').select('totals').where('report_id', '=', reportId).executeTakeFirstOrThrow();

    // The lock: the creation's stored response names the person (by id), so the erasure locks it to tombstone it.
    await holder.query('begin');
    const locked = await holder.query(`select key from idempotency_records where workspace_id = $1 and strpos(response::text, $2) > 0 for update`, [
      owner.workspaceId,
      person.id,
    ]);
    assert.equal(locked.rowCount, 1);
    const child = eraseCommand();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Waiting for the lock, inside its transaction, having already marked the person removed.
    let waiting = 0;
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await eventually(async () => {
      // Not the holder's connection: its transaction would see one snapshot of the statistics.
      const { rows } = await sql<{ pid: number; query: string }>`
        select pid, query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(t.runtime.db);
      assert.equal(stderr, '', 'the command runs');
      assert.equal(child.exitCode, null, 'the command runs');
      assert.ok(rows.length <= 1, JSON.stringify(rows));
      if (rows.length === 0) return false;
      assert.match(rows[0].query, /idempotency_records/);
      waiting = rows[0].pid;
      return true;
    }, 120_000);
    const { rows: held } = await sql<{ n: string }>`select count(*) as n from pg_locks where pid = ${waiting} and mode = 'RowExclusiveLock'`.execute(
      t.runtime.db,
    );
    assert.ok(Number(held[0].n) > 0, 'the erasure has written in its transaction');
    child.kill('SIGKILL');
    assert.equal(await exited, null, 'killed');
    await holder.query('rollback');
    // The orphaned transaction resumes, cannot answer its client and is rolled back with its backend.
    await eventually(async () => {
      const { rows } = await sql`select 1 from pg_stat_activity where pid = ${waiting}`.execute(t.runtime.db);
      return rows.length === 0;
    });

    const rowsAfterCrash = (await findInCatalog(t.runtime.db, needles)).map((h) => `${h.table}: ${h.row}`).sort();
    assert.deepEqual(rowsAfterCrash, rowsBefore, 'every row of the person is as it was: nothing half-erased');
    const after = await t.runtime.db.selectFrom('report_profiles').select('status').where('id', '=', person.id).executeTakeFirstOrThrow();
    assert.equal(after.status, 'active', 'the removal inside the transaction did not commit');
    assert.deepEqual(
      await t.runtime.db.selectFrom('report_aggregates').select('totals').where('report_id', '=', reportId).executeTakeFirstOrThrow(),
      totalsBefore,
    );
    assert.deepEqual(await t.runtime.db.selectFrom('blob_deletions').select('sha256').execute(), [], 'no blob queued');
    for (const h of theirs) assert.notEqual(await media.get(h), null, 'no blob deleted for rows that are still there');
    const audit = await t.runtime.db.selectFrom('audit_log').select('action').where('action', '=', 'erase_person').execute();
    assert.deepEqual(audit, [], 'no erasure recorded');

    // Answering the request: the same command, run again, completes.
    const again = eraseCommand();
    let out = '';
    again.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => again.once('exit', (c) => resolve(c)));
    assert.equal(code, 0, out);
    assert.equal(JSON.parse(out).erased, 1, out);
    assert.deepEqual(
      (await findInCatalog(t.runtime.db, [ERASED, ERASED_NAME])).map((h) => `${h.table}: ${h.row}`),
      [],
      'the catalog walk finds no value of the person (the audit log and a tombstoned response name its id only)',
    );
    assert.deepEqual(await t.runtime.db.selectFrom('blob_deletions').select('sha256').execute(), [], 'nothing left queued');
    for (const h of theirs) assert.equal(await media.get(h), null, `deleted ${h}`);
    for (const h of used) assert.notEqual(await media.get(h), null, `kept ${h}`);
  });
});
