/**
 * How the served findings template (profile_analyses.analysis_json) is
 * stored (migration 0033): compressed with lz4 on a server built with lz4,
 * uncompressed (EXTERNAL, as migration 0011 left it) on one without, where
 * pglz would cost every read a slow decompression. The suite runs on both
 * kinds: the embedded server is built without lz4, Debian's PostgreSQL with
 * it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

describe('the findings template column', () => {
  let database: TestDatabase;
  let client: pg.Client;

  before(async () => {
    database = await createTestDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await database?.drop();
  });

  test('is compressed with lz4 where the server has lz4, and stored uncompressed where it has not', async () => {
    const { rows: methods } = await client.query<{ lz4: boolean }>(
      `select 'lz4' = any (enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`,
    );
    const { rows } = await client.query<{ storage: string; compression: string }>(
      `select attstorage as storage, attcompression as compression from pg_attribute
        where attrelid = 'profile_analyses'::regclass and attname = 'analysis_json'`,
    );
    if (methods[0].lz4) assert.deepEqual(rows[0], { storage: 'x', compression: 'l' }, 'extended, lz4');
    else assert.deepEqual(rows[0], { storage: 'e', compression: '' }, 'external, as migration 0011 set it');
  });
});
