/**
 * Every database function has one current definition, in its file of
 * src/store/functions, which the migration runner applies after the numbered
 * migrations whenever the file's text changes (src/store/migrator.ts,
 * applyFunctionDefinitions; migration 0050 records what each database runs).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createDb, createPool, type Db } from '../../src/store/database.js';
import { applyFunctionDefinitions, functionDefinitionFiles, migrateToLatest } from '../../src/store/migrator.js';
import { createEmptyTestDatabase, createTestDatabase, type TestDatabase } from '../support/db.js';

const root = path.resolve(import.meta.dirname, '../..');
const functionsDir = path.join(root, 'src/store/functions');

/** `pg_get_functiondef` of every function of the schema public that no extension brought, by signature. */
async function functionDefinitions(client: pg.Client): Promise<Map<string, string>> {
  const { rows } = await client.query<{ signature: string; definition: string }>(
    `select p.oid::regprocedure::text as signature, pg_get_functiondef(p.oid) as definition
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public'
        and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
      order by 1`,
  );
  return new Map(rows.map((r) => [r.signature, r.definition]));
}

async function connected(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

describe('a database migrated from nothing', () => {
  let migrated: TestDatabase;
  let scratch: TestDatabase;
  before(async () => {
    migrated = await createEmptyTestDatabase();
    scratch = await createEmptyTestDatabase();
  });
  after(async () => {
    await migrated?.drop();
    await scratch?.drop();
  });

  test('ends with exactly the functions the files define, each as its file defines it', async () => {
    const pool = createPool(migrated.url, 2);
    const db = createDb(pool, { statementCache: null });
    try {
      const applied = await migrateToLatest(db);
      const files = await functionDefinitionFiles();
      assert.deepEqual(
        applied.filter((name) => name.startsWith('functions/')),
        files.map((f) => `functions/${f.file.replace(/\.sql$/, '')}`),
        'a fresh database runs every file once, after the numbered migrations',
      );
      assert.ok(applied.indexOf('functions/claim_scan_item') > applied.indexOf('0050_function_definitions'));
    } finally {
      await db.destroy();
    }

    // The files' effect alone: each file run in an empty database (bodies not checked against
    // tables that are not there), which then holds nothing but what the files define.
    const alone = await connected(scratch.url);
    const client = await connected(migrated.url);
    try {
      await alone.query('set check_function_bodies = off');
      for (const { text } of await functionDefinitionFiles()) await alone.query(text);
      const expected = await functionDefinitions(alone);
      const actual = await functionDefinitions(client);
      assert.ok(expected.has('claim_scan_item(integer,uuid,integer,integer)'), [...expected.keys()].join(', '));
      assert.deepEqual([...actual.keys()], [...expected.keys()], 'no function is left over from a migration, none is missing');
      for (const [signature, definition] of expected) assert.equal(actual.get(signature), definition, signature);
    } finally {
      await alone.end();
      await client.end();
    }
  });

  test('each file is recorded with the checksum of its text', async () => {
    const client = await connected(migrated.url);
    try {
      const { rows } = await client.query<{ file: string; checksum: string }>('select file, checksum from function_definitions order by file');
      assert.deepEqual(
        rows,
        (await functionDefinitionFiles()).map(({ file, checksum }) => ({ file, checksum })),
      );
    } finally {
      await client.end();
    }
  });
});

describe('a database that runs the current definitions', () => {
  let database: TestDatabase;
  let db: Db;
  let copy: string;
  before(async () => {
    database = await createTestDatabase();
    db = createDb(createPool(database.url, 2), { statementCache: null });
    copy = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-functions-'));
    await fs.cp(functionsDir, copy, { recursive: true });
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
    await fs.rm(copy, { recursive: true, force: true });
  });

  /** The catalog row's version of `signature`: a new one whenever the function is created or replaced. */
  const rowVersion = async (signature: string) =>
    (await sql<{ xmin: string }>`select xmin::text from pg_proc where oid = ${signature}::regprocedure`.execute(db)).rows[0].xmin;

  test('an unchanged definition is not applied again', async () => {
    const before = await rowVersion('claim_scan_item(integer,uuid,integer,integer)');
    const recordedBefore = await db.selectFrom('function_definitions').selectAll().orderBy('file').execute();
    assert.deepEqual(await applyFunctionDefinitions(db), []);
    assert.equal(await rowVersion('claim_scan_item(integer,uuid,integer,integer)'), before);
    assert.deepEqual(await db.selectFrom('function_definitions').selectAll().orderBy('file').execute(), recordedBefore);
  });

  test('a changed definition is applied once, and its new checksum recorded', async () => {
    const file = path.join(copy, 'database_epoch.sql');
    const text = await fs.readFile(file, 'utf8');
    const changed = text.replace('begin\n', 'begin\n  -- changed by function-definitions.test.ts\n');
    assert.notEqual(changed, text);
    await fs.writeFile(file, changed);
    const versionBefore = await rowVersion('database_epoch()');

    assert.deepEqual(await applyFunctionDefinitions(db, copy), ['database_epoch.sql']);
    const definition = (await sql<{ d: string }>`select pg_get_functiondef('database_epoch()'::regprocedure) as d`.execute(db)).rows[0].d;
    assert.match(definition, /changed by function-definitions\.test\.ts/);
    const recorded = await db.selectFrom('function_definitions').select('checksum').where('file', '=', 'database_epoch.sql').executeTakeFirstOrThrow();
    assert.equal(recorded.checksum, (await functionDefinitionFiles(copy)).find((f) => f.file === 'database_epoch.sql')!.checksum);
    const versionAfter = await rowVersion('database_epoch()');
    assert.notEqual(versionAfter, versionBefore);

    assert.deepEqual(await applyFunctionDefinitions(db, copy), [], 'applied once');
    assert.equal(await rowVersion('database_epoch()'), versionAfter);
  });

  test('a definition that fails to apply leaves every function and record as it was', async () => {
    const broken = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-functions-broken-'));
    try {
      await fs.cp(functionsDir, broken, { recursive: true });
      const claim = path.join(broken, 'claim_scan_item.sql');
      await fs.writeFile(claim, (await fs.readFile(claim, 'utf8')).replace('begin\n', 'begin\n  -- first change\n'));
      await fs.writeFile(
        path.join(broken, 'zz_broken.sql'),
        'create or replace function zz_broken() returns int language plpgsql as $$ begin return 1 end $$;',
      );
      const claimBefore = await rowVersion('claim_scan_item(integer,uuid,integer,integer)');
      const recordedBefore = await db.selectFrom('function_definitions').selectAll().orderBy('file').execute();
      await assert.rejects(applyFunctionDefinitions(db, broken), /syntax error/);
      assert.equal(await rowVersion('claim_scan_item(integer,uuid,integer,integer)'), claimBefore);
      assert.deepEqual(await db.selectFrom('function_definitions').selectAll().orderBy('file').execute(), recordedBefore);
    } finally {
      await fs.rm(broken, { recursive: true, force: true });
    }
  });
});

describe('two processes migrating one database at once', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createEmptyTestDatabase();
  });
  after(async () => {
    await database?.drop();
  });

  test('both succeed, and each migration and each definition is applied by one of them, once', async () => {
    const migrate = () =>
      promisify(execFile)(process.execPath, [path.join(root, 'bin/profile-scan.js'), 'migrate'], {
        env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'silent' },
      });
    const outputs = await Promise.all([migrate(), migrate()]);
    const applied = outputs.flatMap(({ stdout }) => {
      const match = /applied migrations: (.*)/.exec(stdout);
      return match ? match[1].split(', ') : [];
    });
    const files = await functionDefinitionFiles();
    const migrations = (await fs.readdir(path.join(root, 'src/store/migrations'))).filter((f) => f.endsWith('.sql'));
    assert.equal(new Set(applied).size, applied.length, `applied twice: ${applied.join(', ')}`);
    assert.deepEqual(
      [...applied].sort(),
      [...migrations.map((f) => f.replace(/\.sql$/, '')), ...files.map((f) => `functions/${f.file.replace(/\.sql$/, '')}`)].sort(),
    );
    const client = await connected(database.url);
    try {
      const { rows } = await client.query<{ file: string; checksum: string }>('select file, checksum from function_definitions order by file');
      assert.deepEqual(
        rows,
        files.map(({ file, checksum }) => ({ file, checksum })),
      );
    } finally {
      await client.end();
    }
  });
});
