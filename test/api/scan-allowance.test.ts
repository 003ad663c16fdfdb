/**
 * The scan allowance per workspace (docs/operations.md, "Scan allowance")
 * through a real server and PostgreSQL: admission reserves it inside the
 * write's transaction; a write that would exceed it is refused whole with
 * 409 `scan_allowance_exceeded` (nothing admitted, nothing saved, the key
 * free again); previews reserve nothing and say what is left in headers; the
 * month (UTC) starts it again; two API processes at the edge never
 * overshoot; the operator's command sets and shows it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ManualClock } from '../../src/clock.js';
import { allowanceMonth } from '../../src/domain/scan-allowance.js';
import { readScanAllowance, setScanAllowance } from '../../src/use-cases/scan-allowance.js';
import { removePerson } from '../../src/use-cases/manage-report.js';
import { reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { runAdmin, startService, type ServiceProcess } from '../support/processes.js';
import { webUser } from '../support/web.js';

const url = (slug: string) => `https://pronet.example/in/${slug}`;

describe('scan allowance', () => {
  let t: TestApp;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock(new Date('2026-11-20T12:00:00Z'));
    t = await startTestApp({ clock });
  });
  after(async () => t?.close());

  /** What a write of the workspace could have left behind. */
  async function counts(workspaceId: string) {
    const { rows } = await sql<Record<string, string>>`
      select (select count(*) from reports where workspace_id = ${workspaceId}) as reports,
             (select count(*) from report_profiles p join reports r on r.id = p.report_id where r.workspace_id = ${workspaceId}) as people,
             (select count(*) from scan_items i join reports r on r.id = i.report_id where r.workspace_id = ${workspaceId}) as items,
             (select count(*) from import_receipts where workspace_id = ${workspaceId}) as receipts,
             (select count(*) from idempotency_records where workspace_id = ${workspaceId}) as idempotency`.execute(t.runtime.db);
    return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
  }

  const create = (owner: Tenant, key: string, slugs: string[]) =>
    t.request('POST', '/api/v1/reports', {
      key: owner.secret,
      headers: { 'idempotency-key': key },
      body: reportBody({ profiles: slugs.map((slug) => ({ pronet_url: url(slug), name: `Person ${slug}` })) }),
    });
  const importPeople = (owner: Tenant, reportId: string, key: string | null, slugs: string[]) =>
    t.request('POST', `/api/v1/reports/${reportId}/profile-imports${key === null ? '?validation_only=true' : ''}`, {
      key: owner.secret,
      headers: key === null ? {} : { 'idempotency-key': key },
      body: { profiles: slugs.map((slug) => ({ pronet_url: url(slug) })) },
    });

  test('default: unlimited (existing installations keep their behaviour); admitted people are counted all the same', async () => {
    const owner = await t.tenant();
    assert.equal((await create(owner, 'u-1', ['a1', 'a2', 'a3'])).status, 201);
    const status = await readScanAllowance(t.runtime.db, owner.workspaceId, clock.now());
    assert.deepEqual(status, { limit: null, used: 3, remaining: null, resets_at: '2026-12-01T00:00:00.000Z' });
  });

  test('one profile scan per person queued, whatever the modes; duplicates, people already present and the company page cost nothing', async () => {
    const owner = await t.tenant();
    const created = await create(owner, 'c-1', ['b1', 'b2', 'b1']);
    assert.equal(created.status, 201);
    assert.equal((await readScanAllowance(t.runtime.db, owner.workspaceId, clock.now())).used, 2, 'two people, two modes each, one company page');
    const reportId = created.body.data.report.id;
    assert.equal((await importPeople(owner, reportId, 'c-2', ['b1', 'b2', 'b3'])).status, 201);
    assert.equal((await readScanAllowance(t.runtime.db, owner.workspaceId, clock.now())).used, 3, 'only b3 is new');
  });

  test('a restored person whose scans are still waiting in the queued runs costs nothing again (coalesced)', async () => {
    const owner = await t.tenant();
    const created = await create(owner, 'r-1', ['c1', 'c2']);
    const reportId = created.body.data.report.id;
    const profileId = created.body.data.profiles.rows[0].profile_id;
    await removePerson({ db: t.runtime.db, workspaceId: owner.workspaceId, now: clock.now() }, reportId, profileId);
    const restored = await importPeople(owner, reportId, 'r-2', ['c1']);
    assert.equal(restored.status, 201);
    assert.equal(restored.body.data.rows[0].status, 'restored');
    const coalesced = restored.body.data.scan_requests.every((r: { jobs_created: number }) => r.jobs_created === 0);
    assert.equal((await readScanAllowance(t.runtime.db, owner.workspaceId, clock.now())).used, coalesced ? 2 : 3);
    assert.ok(coalesced, 'the waiting items were joined, so nothing new was queued');
  });

  test('exhausted: report creation that would exceed it is 409 scan_allowance_exceeded, nothing admitted or saved; the same key works once raised', async () => {
    const owner = await t.tenant();
    await setScanAllowance(t.runtime.db, owner.workspaceId, 2, clock.now());
    const before = await counts(owner.workspaceId);
    const refused = await create(owner, 'x-1', ['d1', 'd2', 'd3']);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'scan_allowance_exceeded');
    assert.match(refused.body.error.message, /would queue 3 profile scans.*2 of 2 left this month.*Nothing was saved/);
    // The whole URL and name: a bare 'd1' may well occur in the answer's random request id.
    assert.ok(!refused.text.includes(url('d1')) && !refused.text.includes('Person d1'), 'no personal value echoed');
    assert.equal(refused.headers.get('scan-allowance-remaining'), '2');
    assert.equal(refused.headers.get('scan-allowance-limit'), '2');
    assert.equal(refused.headers.get('retry-after'), null, 'not a rate limit');
    assert.deepEqual(await counts(owner.workspaceId), before, 'no report, roster, item or idempotency record');
    assert.equal((await readScanAllowance(t.runtime.db, owner.workspaceId, clock.now())).used, 0);

    await setScanAllowance(t.runtime.db, owner.workspaceId, 3, clock.now());
    const again = await create(owner, 'x-1', ['d1', 'd2', 'd3']);
    assert.equal(again.status, 201, 'a refused write saved nothing: its key is free');
    assert.equal((await readScanAllowance(t.runtime.db, owner.workspaceId, clock.now())).remaining, 0);
  });

  test('exhausted: an import commit that would exceed it changes no roster, queues nothing and saves no receipt', async () => {
    const owner = await t.tenant();
    await setScanAllowance(t.runtime.db, owner.workspaceId, 3, clock.now());
    const reportId = (await create(owner, 'i-1', ['e1', 'e2'])).body.data.report.id;
    const before = await counts(owner.workspaceId);
    const refused = await importPeople(owner, reportId, 'i-2', ['e3', 'e4']);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'scan_allowance_exceeded');
    assert.deepEqual(await counts(owner.workspaceId), before);
    // At the edge exactly: the last scan is admitted, the next one is not.
    assert.equal((await importPeople(owner, reportId, 'i-3', ['e3'])).status, 201);
    assert.equal((await importPeople(owner, reportId, 'i-4', ['e4'])).status, 409);
    // A write that queues no one needs no allowance.
    assert.equal((await importPeople(owner, reportId, 'i-5', ['e1'])).status, 201);
    assert.equal((await create(owner, 'i-6', [])).status, 201);
  });

  test('4.8 rule 2: a validation-only import reserves nothing and states the allowance in Scan-Allowance-* headers; the body keeps its members', async () => {
    const owner = await t.tenant();
    await setScanAllowance(t.runtime.db, owner.workspaceId, 5, clock.now());
    const reportId = (await create(owner, 'p-1', ['f1'])).body.data.report.id;
    const preview = await importPeople(owner, reportId, null, ['f1', 'f2', 'f3', 'f3']);
    assert.equal(preview.status, 200);
    assert.equal(preview.body.data.counts.would_queue_profiles, 2, 'what the commit would use, at most');
    assert.deepEqual(Object.keys(preview.body.data.counts).sort(), [
      'already_present',
      'duplicate_in_input',
      'submitted',
      'would_add',
      'would_queue_profiles',
      'would_restore',
    ]);
    assert.deepEqual(
      ['limit', 'used', 'remaining', 'reset'].map((h) => preview.headers.get(`scan-allowance-${h}`)),
      ['5', '1', '4', '2026-12-01T00:00:00.000Z'],
    );
    await importPeople(owner, reportId, null, ['f4', 'f5', 'f6', 'f7', 'f8', 'f9']);
    assert.equal((await readScanAllowance(t.runtime.db, owner.workspaceId, clock.now())).used, 1, 'previews reserve nothing, even past the allowance');
    const unlimited = await t.tenant();
    const other = (await create(unlimited, 'p-2', [])).body.data.report.id;
    const open = await importPeople(unlimited, other, null, ['g1']);
    assert.equal(open.headers.get('scan-allowance-limit'), 'unlimited');
    assert.equal(open.headers.get('scan-allowance-remaining'), 'unlimited');
  });

  test('the month boundary (UTC): an exhausted allowance starts again on the first of the month', async () => {
    const owner = await t.tenant();
    await setScanAllowance(t.runtime.db, owner.workspaceId, 1, clock.now());
    const saved = clock.now();
    clock.set(new Date('2026-11-30T23:59:59.000Z'));
    try {
      assert.equal((await create(owner, 'm-1', ['h1'])).status, 201);
      assert.equal((await create(owner, 'm-2', ['h2'])).status, 409);
      clock.set(new Date('2026-12-01T00:00:00.000Z'));
      assert.equal(allowanceMonth(clock.now()).month, '2026-12-01');
      assert.equal((await create(owner, 'm-2', ['h2'])).status, 201);
      const december = await readScanAllowance(t.runtime.db, owner.workspaceId, clock.now());
      assert.deepEqual([december.used, december.remaining, december.resets_at], [1, 0, '2027-01-01T00:00:00.000Z']);
    } finally {
      clock.set(saved);
    }
    assert.equal((await readScanAllowance(t.runtime.db, owner.workspaceId, clock.now())).used, 1, 'November kept its own count');
  });

  test('web settings: a member sees the allowance read-only, as owners do; no page can change it', async () => {
    const owner = await t.tenant();
    await setScanAllowance(t.runtime.db, owner.workspaceId, 40, clock.now());
    assert.equal((await create(owner, 'w-1', ['k1', 'k2'])).status, 201);
    for (const role of ['member', 'owner'] as const) {
      const { client } = await webUser(t, owner.workspaceId, role);
      const page = await client.get('/settings');
      assert.equal(page.status, 200);
      const section = /<section[^>]*id="scan-allowance"[^>]*>([\s\S]*?)<\/section>/.exec(page.text)?.[1] ?? '';
      for (const text of ['40 profile scans', '2 profile scans', '38 profile scans']) assert.ok(section.includes(text), `${role}: ${text}`);
      assert.ok(!/<form|<input/.test(section), `${role}: read-only`);
    }
  });

  test('admin workspace update --scan-allowance sets it and shows this month; bad values are refused before the database', async () => {
    const owner = await t.tenant();
    const admin = (...args: string[]) => runAdmin(t, 'workspace', 'update', ...args);
    const set = JSON.parse((await admin(owner.workspaceId, '--scan-allowance', '250', '--json')).stdout);
    assert.equal(set.scan_allowance.limit, 250);
    assert.equal(set.scan_allowance.remaining, 250 - set.scan_allowance.used);
    const text = (await admin(owner.workspaceId, '--scan-allowance', 'unlimited')).stdout;
    assert.match(text, /scan allowance unlimited per month; 0 used this month/);
    assert.equal((await readScanAllowance(t.runtime.db, owner.workspaceId, clock.now())).limit, null);
    await assert.rejects(admin(owner.workspaceId, '--scan-allowance=-3'), /--scan-allowance takes a number/);
    await assert.rejects(admin(owner.workspaceId, '--scan-allowance', 'lots'), /--scan-allowance takes a number/);
  });
});

describe('scan allowance across two API processes (bin/profile-scan.js)', () => {
  let t: TestApp;
  const processes: ServiceProcess[] = [];
  const dirs: string[] = [];
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    for (const p of processes) await p.kill('SIGTERM');
    await t?.close();
    for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
  });

  test('concurrent writes at the edge through two API processes never overshoot: exactly the allowance is admitted', async () => {
    for (const name of ['a', 'b']) {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), `ps-allowance-${name}-`));
      dirs.push(dir);
      processes.push(
        await startService(`api-${name}`, ['serve'], {
          DATABASE_URL: t.runtime.databaseUrl,
          DATA_DIR: dir,
          PORT: '0',
          WORKER_CONCURRENCY: '0',
          MAINTENANCE_INTERVAL: '0',
          READ_LIMIT_MULTIPLIER: '1000',
        }),
      );
    }
    const owner = await t.tenant();
    const ALLOWANCE = 10;
    await setScanAllowance(t.runtime.db, owner.workspaceId, ALLOWANCE, new Date());
    const report = await t.request('POST', '/api/v1/reports', { key: owner.secret, headers: { 'idempotency-key': 'edge-report' }, body: reportBody() });
    const reportId = report.body.data.report.id;
    // 16 imports of 2 new people each, half through each process, all at once: 32 scans wanted, 10 allowed.
    const results = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const res = await fetch(`${processes[i % 2].url}/api/v1/reports/${reportId}/profile-imports`, {
          method: 'POST',
          headers: { authorization: `Bearer ${owner.secret}`, 'content-type': 'application/json', 'idempotency-key': `edge-${i}` },
          body: JSON.stringify({ profiles: [{ pronet_url: url(`edge-${i}-a`) }, { pronet_url: url(`edge-${i}-b`) }] }),
        });
        return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
      }),
    );
    const admitted = results.filter((r) => r.status === 201).length;
    const refused = results.filter((r) => r.status === 409 && r.body.error?.code === 'scan_allowance_exceeded').length;
    assert.equal(admitted + refused, 16, JSON.stringify(results.map((r) => r.status)));
    assert.equal(admitted, ALLOWANCE / 2, 'five imports of two people fill the allowance exactly');
    const status = await readScanAllowance(t.runtime.db, owner.workspaceId, new Date());
    assert.equal(status.used, ALLOWANCE);
    const people = await t.runtime.db
      .selectFrom('scan_items')
      .select((eb) => eb.fn.count<string>('profile_id').distinct().as('n'))
      .where('report_id', '=', reportId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(people.n), ALLOWANCE, 'exactly as many people queued as the allowance');
  });
});
