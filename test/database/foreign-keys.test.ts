/**
 * Every row that belongs to a workspace, a report, a person, a run or a scan
 * item references it with a foreign key, with the ON DELETE action that
 * erasing a person or deleting a workspace needs (migration 0041). The rule
 * is held on the catalog, not on a list of tables: every uuid column of
 * every table is either a reference with its key and action, or declared
 * here as not a reference, so a table added later without its keys fails.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
// The subject is the schema: a database stopped before a migration, and the catalog's row types.
import { createDb, createPool } from '../../src/store/database.js';
import { migrateTo, migrateToLatest } from '../../src/store/migrator.js';
import type { Database } from '../../src/store/schema.js';
import { people, reportBody, startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { createEmptyTestDatabase, type TestDatabase } from '../support/db.js';
import { scanQueued } from '../support/handler.js';
import { foldsSettled } from '../support/rollups.js';

type Action = 'cascade' | 'no action' | 'set null' | 'restrict' | 'set default';

/** The table a reference column names, by the column's name. */
const PARENT_OF_COLUMN: Record<string, string> = {
  workspace_id: 'workspaces',
  report_id: 'reports',
  profile_id: 'report_profiles',
  recompute_profile_id: 'report_profiles',
  run_id: 'scan_runs',
  item_id: 'scan_items',
  user_id: 'users',
  created_by: 'users',
  import_id: 'import_receipts',
  account_id: 'accounts',
};

/**
 * What deleting the parent does to the row (the WHY of each is in migration
 * 0041): a workspace's, report's, person's and run's rows go with them; the
 * item a result came from is never deleted alone while the result is current;
 * accounts are deleted only with their workspace; a profile event outlives a
 * receipt.
 */
const ACTION_OF_PARENT: Record<string, Action> = {
  workspaces: 'cascade',
  reports: 'cascade',
  report_profiles: 'cascade',
  scan_runs: 'cascade',
  scan_items: 'no action',
  users: 'no action',
  accounts: 'no action',
  import_receipts: 'set null',
};

/** A pending roll-up delta still carries its report's totals when its run or person goes. */
const ACTION_OF_COLUMN: Record<string, Action> = {
  'rollup_deltas.run_id': 'set null',
  'rollup_deltas.recompute_profile_id': 'set null',
};

/** uuid columns that name no stored parent. */
const NOT_REFERENCES: Record<string, string> = {
  'scan_items.claim_id': 'the token of the claim that holds the item',
  'scan_items.worker_id': "a worker's heartbeat row, deleted when it retires; the item keeps who ran it",
  'activity_events.subject': 'generated from profile_id, which has the key',
  'provider_call_slots.holder': 'the token of the call that holds the slot',
  'audit_log.workspace_ref': 'the audit log outlives the workspace it names (migration 0048)',
  'audit_log.actor_ref': 'the audit log outlives the member who acted',
  'audit_log.object_ref': 'the audit log outlives the person, key or workspace it names',
};

const ACTIONS: Record<string, Action> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };

interface ForeignKey {
  name: string;
  table: string;
  parent: string;
  action: Action;
  columns: string[];
  parent_columns: string[];
  /** SET NULL (columns): the columns it nulls; empty when it nulls every column of the key. */
  set_null_columns: string[];
  validated: boolean;
}

async function foreignKeys(db: Kysely<Database>): Promise<ForeignKey[]> {
  const { rows } = await sql<Omit<ForeignKey, 'action'> & { action: string }>`
    select c.conname as name, c.conrelid::regclass::text as table, c.confrelid::regclass::text as parent,
           c.confdeltype as action, c.convalidated as validated,
           array(select a.attname::text from unnest(c.conkey) with ordinality k(n, o)
                   join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.o) as columns,
           array(select a.attname::text from unnest(c.confkey) with ordinality k(n, o)
                   join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.o) as parent_columns,
           array(select a.attname::text from unnest(coalesce(c.confdelsetcols, '{}')) k(n)
                   join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n) as set_null_columns
      from pg_constraint c
     where c.contype = 'f' and c.connamespace = 'public'::regnamespace`.execute(db);
  return rows.map((r) => ({ ...r, action: ACTIONS[r.action] }));
}

/** Every uuid column of every table but the tables' own `id`. */
async function uuidColumns(db: Kysely<Database>): Promise<{ table: string; column: string }[]> {
  const { rows } = await sql<{ table: string; column: string }>`
    select c.table_name as table, c.column_name as column
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = 'public' and t.table_type = 'BASE TABLE' and c.data_type = 'uuid' and c.column_name <> 'id'
     order by 1, 2`.execute(db);
  return rows;
}

/** What the catalog breaks of the rule: one line per reference column without its key or with another action. */
async function referencesWithoutTheirKeys(db: Kysely<Database>): Promise<string[]> {
  const keys = await foreignKeys(db);
  const problems: string[] = [];
  for (const { table, column } of await uuidColumns(db)) {
    const name = `${table}.${column}`;
    if (NOT_REFERENCES[name]) continue;
    const parent = PARENT_OF_COLUMN[column];
    if (!parent) {
      problems.push(`${name}: a uuid column whose parent is not known (name it in PARENT_OF_COLUMN or NOT_REFERENCES)`);
      continue;
    }
    const expected = ACTION_OF_COLUMN[name] ?? ACTION_OF_PARENT[parent];
    const containing = keys.filter((k) => k.table === table && k.columns.includes(column));
    const at = (k: ForeignKey) => k.parent_columns[k.columns.indexOf(column)];
    // The key to the parent itself; else a key whose parent carries the same column (an item's
    // report, proven by its run's).
    const key = containing.find((k) => k.parent === parent && at(k) === 'id') ?? containing.find((k) => at(k) === column && k.parent !== parent);
    if (!key) {
      problems.push(`${name}: no foreign key to ${parent}`);
      continue;
    }
    if (!key.validated) problems.push(`${name}: ${key.name} is not validated`);
    if (key.action !== expected) problems.push(`${name}: ${key.name} does ${key.action} on delete, not ${expected}`);
    if (key.action === 'set null' && !(key.columns.length === 1 || (key.set_null_columns.length === 1 && key.set_null_columns[0] === column))) {
      problems.push(`${name}: ${key.name} sets other columns of its key to null`);
    }
  }
  return problems;
}

describe('foreign keys', () => {
  let t: TestApp;
  let owner: Tenant;

  before(async () => {
    t = await startTestApp();
    owner = await t.tenant();
  });
  after(async () => {
    await t?.close();
  });

  async function scannedReport(tenant: Tenant, key: string, count: number): Promise<{ reportId: string; profileIds: string[] }> {
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': key },
      body: reportBody({ profiles: people(count, key) }),
    });
    assert.equal(created.status, 201, created.text);
    const reportId: string = created.body.data.report.id;
    const imported = await t.request('POST', `/api/v1/reports/${reportId}/profile-imports`, {
      key: tenant.secret,
      headers: { 'idempotency-key': `${key}-import` },
      body: { profiles: people(1, `${key}-imported`) },
    });
    assert.equal(imported.status, 201, imported.text);
    await scanQueued(t);
    // The runs' counts and the totals as the folds leave them, before anything is deleted.
    await foldsSettled(t);
    const profiles = await t.runtime.db.selectFrom('report_profiles').select('id').where('report_id', '=', reportId).orderBy('added_at').execute();
    return { reportId, profileIds: profiles.map((p) => p.id) };
  }

  /** How many rows of every table name one of `ids` in a reference column to `parent`. */
  async function rowsNaming(parent: string, ids: string[]): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const { table, column } of await uuidColumns(t.runtime.db)) {
      if (PARENT_OF_COLUMN[column] !== parent || NOT_REFERENCES[`${table}.${column}`]) continue;
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where ${sql.ref(column)} = any(${ids}::uuid[])`.execute(
        t.runtime.db,
      );
      counts[`${table}.${column}`] = rows[0].n;
    }
    return counts;
  }

  const nonZero = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));

  test('every uuid column that names a workspace, report, person, run, item, user or import has a foreign key with the ON DELETE action erasure needs', async () => {
    assert.deepEqual(await referencesWithoutTheirKeys(t.runtime.db), []);
  });

  test('the catalog walk finds a planted table whose rows name a parent without a key, with another action, or a parent it does not know', async () => {
    await sql`create table planted_scan_rows (
                id uuid primary key,
                report_id uuid not null references reports (id),
                profile_id uuid,
                person uuid)`.execute(t.runtime.db);
    try {
      assert.deepEqual((await referencesWithoutTheirKeys(t.runtime.db)).sort(), [
        'planted_scan_rows.person: a uuid column whose parent is not known (name it in PARENT_OF_COLUMN or NOT_REFERENCES)',
        'planted_scan_rows.profile_id: no foreign key to report_profiles',
        'planted_scan_rows.report_id: planted_scan_rows_report_id_fkey does no action on delete, not cascade',
      ]);
    } finally {
      await sql`drop table planted_scan_rows`.execute(t.runtime.db);
    }
  });

  test('the keys refuse a scan row whose person is missing or of another report, and one whose item is missing', async () => {
    const first = await scannedReport(owner, 'refuse-a', 1);
    const second = await scannedReport(owner, 'refuse-b', 1);
    const db = t.runtime.db;
    const refused = (constraint: RegExp) => (error: { code?: string; constraint?: string }) => {
      assert.equal(error.code, '23503');
      assert.match(error.constraint ?? '', constraint);
      return true;
    };
    const event = await db
      .selectFrom('activity_events')
      .select('id')
      .where('report_id', '=', first.reportId)
      .where('profile_id', 'is not', null)
      .executeTakeFirstOrThrow();
    await assert.rejects(
      db.updateTable('activity_events').set({ profile_id: second.profileIds[0] }).where('id', '=', event.id).execute(),
      refused(/^activity_events_report_id_profile_id_fkey$/),
    );
    const image = await db.selectFrom('evidence_images').select('id').where('report_id', '=', first.reportId).executeTakeFirstOrThrow();
    await assert.rejects(
      db.updateTable('evidence_images').set({ item_id: randomUUID() }).where('id', '=', image.id).execute(),
      refused(/^evidence_images_item_id_fkey$/),
    );
    await assert.rejects(
      db
        .insertInto('profile_contributions')
        .values({ profile_id: randomUUID(), report_id: first.reportId, contribution: JSON.stringify({}) })
        .execute(),
      refused(/^profile_contributions_report_id_profile_id_fkey$/),
    );
  });

  test("an item whose person's analysis and evidence came from it is not deleted alone", async () => {
    const { profileIds } = await scannedReport(owner, 'item-alone', 1);
    const analysis = await t.runtime.db.selectFrom('profile_analyses').select('item_id').where('profile_id', '=', profileIds[0]).executeTakeFirstOrThrow();
    await assert.rejects(
      t.runtime.db.deleteFrom('scan_items').where('id', '=', analysis.item_id).execute(),
      (error: { code?: string; constraint?: string }) => {
        assert.equal(error.code, '23503');
        assert.match(error.constraint ?? '', /^(profile_analyses|evidence_images)_item_id_fkey$/);
        return true;
      },
    );
  });

  test("deleting a person deletes every row that names them, keeps their report's runs and receipts, and touches no one else", async () => {
    const { reportId, profileIds } = await scannedReport(owner, 'erase-one', 2);
    const [erased, kept] = profileIds;
    const keptBefore = await rowsNaming('report_profiles', [kept]);
    const runsBefore = await t.runtime.db.selectFrom('scan_runs').selectAll().where('report_id', '=', reportId).orderBy('id').execute();
    assert.ok(Object.values(await rowsNaming('report_profiles', [erased])).filter((n) => n > 0).length >= 6, 'the person has rows in many tables');

    await t.runtime.db.deleteFrom('report_profiles').where('id', '=', erased).execute();

    assert.deepEqual(nonZero(await rowsNaming('report_profiles', [erased])), {});
    assert.deepEqual(await rowsNaming('report_profiles', [kept]), keptBefore);
    assert.deepEqual(await t.runtime.db.selectFrom('scan_runs').selectAll().where('report_id', '=', reportId).orderBy('id').execute(), runsBefore);
    assert.equal((await rowsNaming('reports', [reportId]))['import_receipts.report_id'], 1);
  });

  test("deleting a workspace deletes every row of it and of its reports, people, runs, items and users, and touches no other workspace's", async () => {
    const other = await t.tenant();
    const gone = await t.tenant();
    await scannedReport(other, 'stays', 1);
    await scannedReport(gone, 'goes', 2);
    const idsOf = async (table: 'reports' | 'report_profiles' | 'scan_runs' | 'users' | 'import_receipts', workspaceId: string) =>
      (await t.runtime.db.selectFrom(table).select('id').where('workspace_id', '=', workspaceId).execute()).map((r) => r.id);
    /** The ids of a workspace's rows that other rows reference, by the table they are of. */
    const parentsOf = async (workspaceId: string): Promise<Record<string, string[]>> => {
      const reports = await idsOf('reports', workspaceId);
      return {
        workspaces: [workspaceId],
        reports,
        report_profiles: await idsOf('report_profiles', workspaceId),
        scan_runs: await idsOf('scan_runs', workspaceId),
        scan_items: (await t.runtime.db.selectFrom('scan_items').select('id').where('report_id', 'in', reports).execute()).map((r) => r.id),
        users: await idsOf('users', workspaceId),
        import_receipts: await idsOf('import_receipts', workspaceId),
      };
    };
    const rowsNamingAny = async (parents: Record<string, string[]>) =>
      Object.fromEntries(await Promise.all(Object.entries(parents).map(async ([parent, ids]) => [parent, await rowsNaming(parent, ids)] as const)));
    const kept = await parentsOf(other.workspaceId);
    const keptBefore = await rowsNamingAny(kept);
    const goes = await parentsOf(gone.workspaceId);
    for (const parent of ['report_profiles', 'scan_runs', 'scan_items', 'users', 'import_receipts']) {
      assert.ok(goes[parent].length > 0, `the workspace has ${parent}`);
    }

    await t.runtime.db.deleteFrom('workspaces').where('id', '=', gone.workspaceId).execute();

    const left = await rowsNamingAny(goes);
    assert.deepEqual(
      Object.fromEntries(Object.entries(left).map(([parent, counts]) => [parent, nonZero(counts)])),
      Object.fromEntries(Object.keys(goes).map((p) => [p, {}])),
    );
    assert.deepEqual(await rowsNamingAny(kept), keptBefore);
  });
});

describe('migration 0041 on a database whose scan rows went without keys', () => {
  let database: TestDatabase;
  let db: Kysely<Database>;
  let pool: pg.Pool;

  before(async () => {
    database = await createEmptyTestDatabase();
    pool = createPool(database.url, 2);
    db = createDb(pool, { statementCache: null });
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  test('deletes the rows whose report, person or item is missing or of another report, nulls what only points back, and validates every key', async () => {
    await migrateTo(db, '0040_scan_rows_without_foreign_keys');
    const at = new Date('2026-01-01T00:00:00Z');
    const [workspace, reportA, reportB, personA, personB, runA, itemA] = Array.from({ length: 7 }, () => randomUUID());
    await sql`insert into workspaces (id, name, slug, created_at, updated_at) values (${workspace}, 'W', 'w', ${at}, ${at})`.execute(db);
    for (const report of [reportA, reportB]) {
      await sql`insert into reports (id, workspace_id, name, company_name, supplied_domain, pronet_company_url, visibility, created_at, updated_at)
                values (${report}, ${workspace}, 'R', 'Acme', 'acme.example', 'https://pronet.example/company/acme', 'private', ${at}, ${at})`.execute(db);
    }
    for (const [person, report] of [
      [personA, reportA],
      [personB, reportB],
    ]) {
      await sql`insert into report_profiles (id, report_id, workspace_id, pronet_url, source, status, added_at, created_at, updated_at)
                values (${person}, ${report}, ${workspace}, ${`https://pronet.example/in/${person}`}, 'urls', 'active', ${at}, ${at}, ${at})`.execute(db);
    }
    await sql`insert into scan_runs (id, report_id, workspace_id, mode, key_mode, status, created_at)
              values (${runA}, ${reportA}, ${workspace}, 'full_profile', 'test', 'running', ${at})`.execute(db);
    await sql`insert into scan_items (id, run_id, report_id, profile_id, kind, status, created_at, ready_at)
              values (${itemA}, ${runA}, ${reportA}, ${personA}, 'person', 'succeeded', ${at}, ${at})`.execute(db);
    const event = (person: string) => sql`insert into activity_events
        (id, report_id, profile_id, external_id, event_type, actor_kind, actor, counts, provenance, revision, content_hash)
        values (${randomUUID()}, ${reportA}, ${person}, ${randomUUID()}, 'post', 'person', '{}', '{}', 'scanner', 'r', 'h')`;
    await event(personA).execute(db);
    await event(personB).execute(db);
    const image = (item: string) => sql`insert into evidence_images
        (id, report_id, profile_id, item_id, section, original_sha256, original_size, original_type, preview_sha256, preview_size, preview_type, created_at, origin)
        values (${randomUUID()}, ${reportA}, ${personA}, ${item}, 'about', ${randomUUID()}, 1, 'image/png', ${randomUUID()}, 1, 'image/webp', ${at}, 'rendered')`;
    await image(itemA).execute(db);
    await image(randomUUID()).execute(db);
    await sql`insert into profile_contributions (profile_id, report_id, contribution) values (${personA}, ${reportA}, '{}'), (${randomUUID()}, ${reportA}, '{}')`.execute(
      db,
    );
    await sql`insert into rollup_deltas (report_id, run_id, at, recompute_profile_id) values (${reportA}, ${randomUUID()}, ${at}, ${randomUUID()})`.execute(db);

    await migrateToLatest(db);

    const kept = async (table: 'activity_events' | 'evidence_images' | 'profile_contributions') =>
      (await db.selectFrom(table).select('profile_id').execute()).map((r) => r.profile_id);
    assert.deepEqual(await kept('activity_events'), [personA]);
    assert.deepEqual(await kept('evidence_images'), [personA]);
    assert.deepEqual(await kept('profile_contributions'), [personA]);
    assert.deepEqual(await db.selectFrom('rollup_deltas').select(['report_id', 'run_id', 'recompute_profile_id']).execute(), [
      { report_id: reportA, run_id: null, recompute_profile_id: null },
    ]);
    assert.deepEqual(await referencesWithoutTheirKeys(db), []);
  });
});
