/**
 * Pipelined transactions (src/store/pipelined-transaction.ts): a batch's
 * statements reach PostgreSQL together, so the server runs them back to
 * back while the client's event loop is busy; a failure anywhere rolls the
 * whole transaction back and surfaces as the first statement's error; a
 * transaction its work leaves without a commit is rolled back and its
 * connection goes back to the pool outside any transaction; and a stale
 * prepared plan runs the transaction again, once. Against a real PostgreSQL.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createDb, createPool, type Db } from '../../src/store/database.js';
import { pipelinedTransaction } from '../../src/store/pipelined-transaction.js';
import { createTestDatabase, runStatement, type TestDatabase } from '../support/db.js';

/** Keeps this thread busy for `ms`: the event loop reads no answer meanwhile. */
function blockEventLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy on purpose
  }
}

describe('pipelined transactions', () => {
  let database: TestDatabase;
  const dbs: Db[] = [];

  /** A Db on one connection, with the given statement cache. */
  function oneConnection(statementCache?: { capacity: number; minUses: number } | null): Db {
    const db = createDb(createPool(database.url, 1), statementCache === undefined ? {} : { statementCache });
    dbs.push(db);
    return db;
  }

  const labels = async (db: Db) => (await sql<{ label: string }>`select label from pipeline_probe order by label`.execute(db)).rows.map((r) => r.label);

  before(async () => {
    database = await createTestDatabase();
    await runStatement(database.url, `create table pipeline_probe (label text primary key)`);
  });
  after(async () => {
    for (const db of dbs) await db.destroy();
    await database.drop();
  });

  test("a batch's statements run back to back in PostgreSQL while the client's event loop is busy", async () => {
    const db = oneConnection();
    // Server time since the transaction's BEGIN, read by the batch's last statement.
    const sinceBegin = sql<{ ms: number }>`select (extract(epoch from clock_timestamp() - now()) * 1000)::float8 as ms`;
    const [{ ms }] = await pipelinedTransaction(db, async (tx) => {
      const sent = tx.begin([sql`select 1`, sql`select 2`, sinceBegin]);
      // Sent statement by statement, each could only go once this thread read the previous one's answer.
      blockEventLoop(400);
      const [, , elapsed] = await sent;
      await tx.commit([]);
      return elapsed;
    });
    assert.ok(ms < 200, `the batch's last statement ran ${ms.toFixed(1)} ms after its BEGIN, while the client was busy for 400 ms`);
  });

  test('the commit batch sends its statements with COMMIT: what both batches wrote is stored, once', async () => {
    const db = oneConnection();
    const rows = await pipelinedTransaction(db, async (tx) => {
      await tx.begin([sql`insert into pipeline_probe values ('begin-batch')`]);
      return tx.commit([sql`insert into pipeline_probe values ('commit-batch')`, sql<{ n: number }>`select count(*)::int as n from pipeline_probe`]);
    });
    assert.deepEqual(rows[1], [{ n: 2 }], 'a later statement of a batch sees what an earlier one wrote');
    assert.deepEqual(await labels(db), ['begin-batch', 'commit-batch']);
    await runStatement(database.url, 'truncate pipeline_probe');
  });

  test('a failure in the commit batch rolls back both batches and surfaces as that statement’s error, not the aborted ones after it', async () => {
    const db = oneConnection();
    await assert.rejects(
      pipelinedTransaction(db, async (tx) => {
        await tx.begin([sql`insert into pipeline_probe values ('kept-only-if-committed')`]);
        await tx.commit([sql`select 1 / 0`, sql`insert into pipeline_probe values ('after-the-failure')`]);
      }),
      (error: { code?: string }) => error.code === '22012',
    );
    assert.deepEqual(await labels(db), []);
    const { rows } = await sql<{
      state: string | null;
    }>`select state from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state like 'idle in transaction%'`.execute(
      oneConnection(),
    );
    assert.deepEqual(rows, [], 'no session was left in the failed transaction');
  });

  test('a failure in the begin batch rolls back and the connection serves the next transaction outside any transaction', async () => {
    const db = oneConnection();
    await assert.rejects(
      pipelinedTransaction(db, (tx) => tx.begin([sql`insert into pipeline_probe values ('x')`, sql`select no_such_column from pipeline_probe`])),
      (error: { code?: string }) => error.code === '42703',
    );
    const { rows } = await sql<{ open: boolean }>`select txid_current_if_assigned() is not null as open`.execute(db);
    assert.deepEqual(rows, [{ open: false }]);
    assert.deepEqual(await labels(db), []);
  });

  test('work that returns without committing rolls its transaction back', async () => {
    const db = oneConnection();
    const result = await pipelinedTransaction(db, async (tx) => {
      const [[row]] = await tx.begin([sql<{ label: string }>`insert into pipeline_probe values ('not-committed') returning label`]);
      return row.label;
    });
    assert.equal(result, 'not-committed');
    assert.deepEqual(await labels(db), []);
  });

  test('a statement whose prepared plan went stale runs the transaction again, which commits once', async () => {
    await runStatement(database.url, `create table stale_probe (id int primary key); insert into stale_probe values (1)`);
    const db = oneConnection({ capacity: 8, minUses: 1 });
    const probe = sql<Record<string, unknown>>`select * from stale_probe where id = ${1}`;
    await pipelinedTransaction(db, async (tx) => {
      await tx.begin([probe]);
      await tx.commit([]);
    });
    // The statement is prepared on the one connection; a migration changes its result columns.
    await runStatement(database.url, `alter table stale_probe add column label text default 'new'`);
    let attempts = 0;
    const [[row]] = await pipelinedTransaction(db, async (tx) => {
      attempts++;
      const read = await tx.begin([probe]);
      await tx.commit([sql`insert into pipeline_probe values ('after-stale')`]);
      return read;
    });
    assert.equal(attempts, 2);
    assert.deepEqual(row, { id: 1, label: 'new' });
    assert.deepEqual(await labels(db), ['after-stale']);
  });
});
