/**
 * Readers never depend on a worker being alive: an API-only node
 * (`profile-scan serve` with WORKER_CONCURRENCY=0) folds roll-up deltas that
 * no transition folded (here: items finished while another transaction held
 * their report, as a write of another process does), so the report's counts
 * catch up with no worker running anywhere (src/queue/sweep.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { processItem } from '../../src/scanning/item-handler.js';
// Items finished by hand while another transaction holds their report leave deltas no transition folded.
import { claimItem } from '../../src/queue/claim.js';
import { type Claim } from '../../src/queue/item.js';
import { settlePendingRollups } from '../../src/queue/settle.js';
import { eventually, people, reportBody, startTestApp, type TestApp } from '../support/app.js';
import { handlerContext } from '../support/handler.js';
import { startService, type ServiceProcess } from '../support/processes.js';
import { assertTotalsMatchRebuild } from '../support/rollups.js';

describe('an API-only node folds roll-up deltas left behind', () => {
  let t: TestApp;
  let api: ServiceProcess | null = null;
  let dataDir: string;

  before(async () => {
    t = await startTestApp();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-api-sweep-'));
  });
  after(async () => {
    await api?.kill('SIGTERM');
    await t?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  test('with no worker running anywhere, the deltas are folded within seconds and the counts are exact', async () => {
    const { secret } = await t.tenant();
    const res = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'sweep' },
      body: reportBody({ profiles: people(4, 'sweep') }),
    });
    assert.equal(res.status, 201, res.text);
    const reportId: string = res.body.data.report.id;
    const ctx = handlerContext(t);
    const claims: Claim[] = [];
    for (let claim = await claimItem(t.runtime.db, 30); claim; claim = await claimItem(t.runtime.db, 30)) claims.push(claim);
    const persons = new Set(
      (await t.runtime.db.selectFrom('scan_items').select('id').where('report_id', '=', reportId).where('kind', '=', 'person').execute()).map((i) => i.id),
    );
    // The people's items finish while another transaction holds the report: their folds leave the deltas.
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from reports where id = $1 for no key update', [reportId]);
      const outcomes = await Promise.all(claims.filter((c) => persons.has(c.itemId)).map((claim) => processItem(ctx, claim)));
      assert.ok(outcomes.every((o) => o === 'succeeded'));
      // The folds those transitions asked for found the report held; none may still be in flight (a busy
      // fold tries again a few ms later) when the holder lets go, or it would fold the deltas itself.
      await settlePendingRollups(t.runtime.db);
    } finally {
      await holder.query('commit');
      await holder.end();
    }
    const pending = async () => (await t.runtime.db.selectFrom('rollup_deltas').select('id').where('report_id', '=', reportId).execute()).length;
    assert.ok((await pending()) >= 8, 'deltas left behind');

    api = await startService('api-only', ['serve'], {
      DATABASE_URL: t.runtime.databaseUrl,
      DATA_DIR: dataDir,
      PORT: '0',
      WORKER_CONCURRENCY: '0',
      MAINTENANCE_INTERVAL: '0',
    });
    assert.match(api.output(), /no in-process worker/);
    await eventually(async () => (await pending()) === 0, 15_000, 100);
    const report = await t.request('GET', `/api/v1/reports/${reportId}`, { key: secret });
    assert.equal(report.body.data.analyzed_profile_count, 4);
    // The company page's claimed item, finished now, leaves the maintained totals equal to a rebuild.
    for (const claim of claims.filter((c) => !persons.has(c.itemId))) assert.equal(await processItem(ctx, claim), 'succeeded');
    await eventually(async () => (await pending()) === 0, 15_000, 100);
    await assertTotalsMatchRebuild(t, reportId);
  });
});
