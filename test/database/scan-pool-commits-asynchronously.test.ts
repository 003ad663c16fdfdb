/**
 * A scan worker's two pools (store/database.ts, runtime.ts): the scan pool's
 * sessions commit asynchronously (every item transition and fold is redone
 * when a crash loses it), the durable pool's keep the server's setting, and
 * an asynchronous transaction on the durable pool is asynchronous for itself
 * only. Read from the server (`current_setting`), on a real database.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
// A pool's session settings are read from the server: no request shows them.
import { commitsAsynchronously } from '../../src/store/database.js';
import type { Database } from '../../src/store/schema.js';
import { retryingTransaction } from '../../src/store/transaction.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

const setting = async (db: Kysely<Database>, name = 'synchronous_commit') =>
  (await sql<{ value: string }>`select current_setting(${name}) as value`.execute(db)).rows[0].value;

describe("a scan worker's pools", () => {
  let database: TestDatabase;
  let runtime: Runtime;

  before(async () => {
    database = await createTestDatabase();
    const config = loadConfig({ DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'silent' });
    runtime = await openRuntime(config, { poolSize: 2, scanPoolSize: 3 });
  });
  after(async () => {
    await runtime?.close();
    await database?.drop();
  });

  test("the scan pool's sessions commit asynchronously, the durable pool's do not", async () => {
    assert.equal(await setting(runtime.scanDb!), 'off');
    assert.equal(commitsAsynchronously(runtime.scanDb!), true);
    assert.equal(await setting(runtime.db), 'on');
    assert.equal(commitsAsynchronously(runtime.db), false);
  });

  test("the scan pool's sessions keep one generic plan per prepared statement, the durable pool's plan as the server decides", async () => {
    assert.equal(await setting(runtime.scanDb!, 'plan_cache_mode'), 'force_generic_plan');
    assert.equal(await setting(runtime.db, 'plan_cache_mode'), 'auto');
  });

  test("every pool's sessions end a transaction left idle for 30 seconds", async () => {
    assert.equal(await setting(runtime.scanDb!, 'idle_in_transaction_session_timeout'), '30s');
    assert.equal(await setting(runtime.db, 'idle_in_transaction_session_timeout'), '30s');
  });

  test('an asynchronous transaction on the durable pool commits asynchronously, and its session goes back to the setting after it', async () => {
    const inside = await retryingTransaction(runtime.db, (trx) => setting(trx), { asynchronousCommit: true });
    assert.equal(inside, 'off');
    // Both connections of the pool (one held by a transaction while the other answers) are back to the setting.
    const after = await retryingTransaction(runtime.db, async (trx) => [await setting(trx), await setting(runtime.db)]);
    assert.deepEqual(after, ['on', 'on']);
  });
});
