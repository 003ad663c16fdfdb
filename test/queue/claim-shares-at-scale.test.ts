/**
 * The claim at scale (migration 0026, docs/scanning.md "The claim at scale"):
 * with 1,000 workspaces contending, claims are shared equally among
 * workspaces, then among a workspace's reports, whatever each one's backlog;
 * a workspace that arrives late starts level with the others (no credit for
 * its idle time); deferred work is skipped until its time, then offered; and
 * the queue's index follows plain SQL on scan_items.
 *
 * Claims are made one at a time with claimItem (the workers' call) on a real
 * PostgreSQL; the queue is written with SQL, as an admission writes it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
// The claim called by hand: the shares it hands out are what the test measures.
import { claimItem } from '../../src/queue/claim.js';
import { startTestApp, type TestApp } from '../support/app.js';

const WORKSPACES = 1000;

/** Workspaces with one report each of `items` pending people; returns the workspace ids. */
async function seed(t: TestApp, label: string, workspaces: number, reportsEach: number, itemsEach: number, readyIn = '0 seconds'): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    with w as (
      insert into workspaces (id, name, slug, created_at, updated_at)
      select gen_random_uuid(), ${label} || ' ' || i, ${label} || '-' || i, now(), now() from generate_series(1, ${workspaces}::int) i
      returning id),
    r as (
      insert into reports (id, workspace_id, name, company_name, supplied_domain, root_domain, pronet_company_url, visibility, archived, created_at, updated_at)
      select gen_random_uuid(), w.id, 'Report ' || k, 'Acme', 'acme.example', 'acme.example', 'https://pronet.example/company/acme', 'private', false, now(), now()
        from w, generate_series(1, ${reportsEach}::int) k
      returning id, workspace_id),
    p as (
      insert into report_profiles (id, report_id, workspace_id, pronet_url, source, status, added_at, created_at, updated_at)
      select gen_random_uuid(), r.id, r.workspace_id, 'https://pronet.example/in/' || r.id || '-' || k, 'api_import', 'active', now(), now(), now()
        from r, generate_series(1, ${itemsEach}::int) k
      returning id, report_id),
    runs as (
      insert into scan_runs (id, report_id, workspace_id, mode, key_mode, status, requested, created_at)
      select gen_random_uuid(), r.id, r.workspace_id, 'full_profile', 'test', 'queued', ${itemsEach}::int, now() from r
      returning id, report_id)
    select id from w`.execute(t.runtime.db);
  await sql`
    insert into scan_items (id, run_id, run_mode, run_created_at, report_id, profile_id, kind, status, created_at, ready_at)
    select gen_random_uuid(), runs.id, runs.mode, runs.created_at, p.report_id, p.id, 'person', 'pending', now(), now() + ${readyIn}::interval
      from report_profiles p join scan_runs runs on runs.report_id = p.report_id
      join reports r on r.id = p.report_id
     where r.workspace_id = any(${rows.map((r) => r.id)}::uuid[])`.execute(t.runtime.db);
  return rows.map((r) => r.id);
}

/** Claims `n` items; the workspace and report of each, in order. */
async function claim(t: TestApp, n: number): Promise<Array<{ workspace: string; report: string }>> {
  const claimed: string[] = [];
  for (let i = 0; i < n; i++) {
    const c = await claimItem(t.runtime.db, 600);
    if (!c) break;
    claimed.push(c.itemId);
  }
  const { rows } = await sql<{ id: string; workspace: string; report: string }>`
    select i.id, r.workspace_id as workspace, r.id as report from scan_items i join reports r on r.id = i.report_id
     where i.id = any(${claimed}::uuid[])`.execute(t.runtime.db);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return claimed.map((id) => byId.get(id)!);
}

const countBy = <T>(values: T[]) => values.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<T, number>());

describe('the claim with 1,000 workspaces contending', () => {
  let t: TestApp;
  let big: string;
  let many: string;
  let first: Array<{ workspace: string; report: string }>;

  before(async () => {
    t = await startTestApp();
    await seed(t, 'small', WORKSPACES - 2, 1, 4);
    [big] = await seed(t, 'big', 1, 1, 5000);
    [many] = await seed(t, 'many', 1, 20, 3);
    first = await claim(t, 3 * WORKSPACES);
  });
  after(async () => t?.close());

  test('every workspace gets the same share of the claims, whatever its backlog', () => {
    assert.equal(first.length, 3 * WORKSPACES);
    const shares = countBy(first.map((c) => c.workspace));
    assert.equal(shares.size, WORKSPACES);
    for (const [workspace, n] of shares) assert.equal(n, 3, `workspace ${workspace}: ${n} claims`);
    assert.equal(shares.get(big), 3, 'the workspace with 5,000 queued people took no more than its share');
  });

  test('inside a workspace, its claims go to its reports in turn', () => {
    const reports = countBy(first.filter((c) => c.workspace === many).map((c) => c.report));
    assert.equal(reports.size, 3, 'three claims, three different reports');
  });

  test('a workspace that arrives late starts level with the others: served within a round, never a burst for its idle time', async () => {
    const [late] = await seed(t, 'late', 1, 1, 10);
    // A round: one claim for each of the 1,001 workspaces now level (with 1,000 claims, the one whose id sorts last would wait for the next).
    const round = WORKSPACES + 1;
    const next = await claim(t, round);
    const lateClaims = next.filter((c) => c.workspace === late).length;
    assert.ok(lateClaims >= 1 && lateClaims <= 2, `late workspace: ${lateClaims} claims in a round of ${round}`);
    const bigClaims = countBy(next.map((c) => c.workspace)).get(big) ?? 0;
    assert.ok(bigClaims <= 2, `the workspace with 5,000 queued people: ${bigClaims} claims in a round of ${round}`);
  });
});

describe('deferred work and the queue index', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t?.close());

  test('work deferred into the future is not claimed; once its time has come it is', async () => {
    const [deferred] = await seed(t, 'deferred', 1, 1, 2, '2 seconds');
    assert.equal(await claimItem(t.runtime.db, 600), null);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const claimed = await claim(t, 5);
    assert.deepEqual(
      claimed.map((c) => c.workspace),
      [deferred, deferred],
    );
  });

  test('items deferred by hand (an update of ready_at) are skipped until their time', async () => {
    const [ws] = await seed(t, 'by-hand', 1, 2, 2);
    await sql`update scan_items i set ready_at = now() + interval '1 hour' from reports r
               where r.id = i.report_id and r.workspace_id = ${ws} and i.status = 'pending'`.execute(t.runtime.db);
    const row = await t.runtime.db.selectFrom('queue_workspaces').select(['ready']).where('workspace_id', '=', ws).executeTakeFirstOrThrow();
    assert.equal(row.ready, false);
    assert.equal(await claimItem(t.runtime.db, 600), null);
    await sql`update scan_items i set ready_at = now() from reports r
               where r.id = i.report_id and r.workspace_id = ${ws} and i.status = 'pending'`.execute(t.runtime.db);
    assert.equal((await claim(t, 10)).length, 4);
  });

  test('a report whose pending items were cancelled is passed over, and the claim goes on to the next', async () => {
    const [gone, kept] = await seed(t, 'cancel', 2, 1, 3);
    await sql`update scan_items i set status = 'cancelled' from reports r
               where r.id = i.report_id and r.workspace_id = ${gone} and i.status = 'pending'`.execute(t.runtime.db);
    const claimed = await claim(t, 10);
    assert.deepEqual(
      claimed.map((c) => c.workspace),
      [kept, kept, kept],
    );
    const row = await t.runtime.db.selectFrom('queue_workspaces').select(['ready', 'ready_at']).where('workspace_id', '=', gone).executeTakeFirstOrThrow();
    assert.deepEqual(row, { ready: false, ready_at: null });
  });
});
