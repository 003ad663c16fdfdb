/**
 * Prepared statements (src/store/prepared-statements.ts): what Kysely sends
 * is prepared once per connection after a few uses and then reused, within
 * the cache's capacity; a prepared statement whose result columns a
 * migration changed is prepared again instead of failing, both alone and
 * inside a transaction; and a cache of capacity 0 prepares nothing.
 * Against a real PostgreSQL: the server's own view of a session's prepared
 * statements (pg_prepared_statements) is the evidence.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely, type Transaction } from 'kysely';
// What is prepared belongs to a connection: the test holds its own pool and reads the server's view.
import { createDb, createPool, type Db } from '../../src/store/database.js';
import type { Database } from '../../src/store/schema.js';
import { retryingTransaction } from '../../src/store/transaction.js';
import { createTestDatabase, runStatement, type TestDatabase } from '../support/db.js';

/** The prepared statements of the session that runs this (one connection: a transaction's). */
async function preparedHere(db: Kysely<Database> | Transaction<Database>): Promise<Array<{ name: string; statement: string }>> {
  const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`.execute(db);
  return rows;
}

/** A statement with a parameter that Kysely sends as the same text each time. */
const lookup = (db: Kysely<Database> | Transaction<Database>, id: number) =>
  sql<{ id: number; label: string }>`select * from cache_probe where id = ${id}`.execute(db);

describe('prepared statements', () => {
  let database: TestDatabase;
  const dbs: Db[] = [];

  /** A Db on one connection, so that every statement meets the same session. */
  function oneConnection(statementCache: { capacity: number; minUses: number } | null): Db {
    const db = createDb(createPool(database.url, 1), { statementCache });
    dbs.push(db);
    return db;
  }

  before(async () => {
    database = await createTestDatabase();
    await runStatement(
      database.url,
      `create table cache_probe (id int primary key, label text not null); insert into cache_probe values (1, 'one'), (2, 'two')`,
    );
  });
  after(async () => {
    for (const db of dbs) await db.destroy();
    await database.drop();
  });

  test('a statement is prepared on its connection once it ran minUses times, and its later runs reuse that one', async () => {
    const db = oneConnection({ capacity: 8, minUses: 3 });
    await retryingTransaction(db, async (trx) => {
      for (const id of [1, 2]) await lookup(trx, id);
      assert.deepEqual(await preparedHere(trx), [], 'two runs of three: still sent as text');
      for (const id of [1, 2, 1, 2]) assert.equal((await lookup(trx, id)).rows[0].label, id === 1 ? 'one' : 'two');
      const prepared = (await preparedHere(trx)).filter((p) => p.statement.includes('cache_probe'));
      assert.equal(prepared.length, 1, 'one prepared statement for every later run');
      assert.match(prepared[0].name, /^auto_/u);
      assert.equal(prepared[0].statement, 'select * from cache_probe where id = $1');
    });
  });

  test('statements without parameters (transaction control, migrations) are never prepared', async () => {
    const db = oneConnection({ capacity: 8, minUses: 1 });
    for (let i = 0; i < 3; i++) await sql`select count(*) from cache_probe`.execute(db);
    assert.deepEqual(
      (await preparedHere(db)).filter((p) => p.statement.includes('cache_probe')),
      [],
    );
  });

  test('past its capacity, new texts are sent as text and the prepared ones stay', async () => {
    const db = oneConnection({ capacity: 1, minUses: 1 });
    await lookup(db, 1);
    for (let i = 0; i < 3; i++) await sql`select label from cache_probe where id = ${2}`.execute(db);
    const prepared = (await preparedHere(db)).filter((p) => p.statement.includes('cache_probe'));
    assert.deepEqual(
      prepared.map((p) => p.statement),
      ['select * from cache_probe where id = $1'],
    );
    assert.equal((await lookup(db, 2)).rows[0].label, 'two');
  });

  test('a cache of capacity 0 prepares nothing', async () => {
    const db = oneConnection({ capacity: 0, minUses: 1 });
    for (let i = 0; i < 3; i++) await lookup(db, 1);
    assert.deepEqual(
      (await preparedHere(db)).filter((p) => p.statement.includes('cache_probe')),
      [],
    );
  });

  test('a prepared statement whose result columns a migration changed runs again, prepared anew, when it ran alone', async () => {
    await runStatement(database.url, `create table stale_alone (id int primary key); insert into stale_alone values (1)`);
    const db = oneConnection({ capacity: 8, minUses: 1 });
    const read = () => sql<Record<string, unknown>>`select * from stale_alone where id = ${1}`.execute(db);
    assert.deepEqual((await read()).rows, [{ id: 1 }]);
    // Another process's migration adds a column: the plan prepared above no longer describes the result.
    await runStatement(database.url, `alter table stale_alone add column note text default 'added'`);
    assert.deepEqual((await read()).rows, [{ id: 1, note: 'added' }]);
    assert.deepEqual((await read()).rows, [{ id: 1, note: 'added' }], 'and again, under its new name');
  });

  test('a transaction whose prepared statement a migration made stale is run again by retryingTransaction, and commits once', async () => {
    await runStatement(
      database.url,
      `create table stale_trx (id int primary key); insert into stale_trx values (1); create table stale_writes (n serial primary key)`,
    );
    const db = oneConnection({ capacity: 8, minUses: 1 });
    const work = async (trx: Transaction<Database>) => {
      const { rows } = await sql<Record<string, unknown>>`select * from stale_trx where id = ${1}`.execute(trx);
      await sql`insert into stale_writes default values`.execute(trx);
      return rows;
    };
    let attempts = 0;
    const counted = (trx: Transaction<Database>) => {
      attempts++;
      return work(trx);
    };
    assert.deepEqual(await retryingTransaction(db, counted), [{ id: 1 }]);
    await runStatement(database.url, `alter table stale_trx add column note text default 'added'`);
    attempts = 0;
    assert.deepEqual(await retryingTransaction(db, counted), [{ id: 1, note: 'added' }]);
    assert.equal(attempts, 2, 'the first attempt met the stale plan and was rolled back');
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from stale_writes`.execute(db);
    assert.equal(rows[0].n, 2, 'one write per committed transaction, none from the rolled-back attempt');
  });
});
