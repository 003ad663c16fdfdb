/** A fresh, migrated database per test file, cloned from the suite's template. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Runs one statement on its own connection to `url` (create or drop a database, an extension …). */
export async function runStatement(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const server = process.env.PS_TEST_SERVER_URL;
  const template = process.env.PS_TEST_TEMPLATE;
  if (!server || !template) throw new Error('run tests through `npm test` (test/run.ts), which prepares the database');
  const name = `${template}_${randomBytes(5).toString('hex')}`;
  const adminUrl = withDatabase(server, 'postgres');
  await runStatement(adminUrl, `create database ${name} template ${template}`);
  return {
    url: withDatabase(server, name),
    drop: () => runStatement(adminUrl, `drop database if exists ${name} with (force)`),
  };
}

/** A fresh database with no migration applied (a test that migrates it step by step). */
export async function createEmptyTestDatabase(): Promise<TestDatabase> {
  const server = process.env.PS_TEST_SERVER_URL;
  const template = process.env.PS_TEST_TEMPLATE;
  if (!server || !template) throw new Error('run tests through `npm test` (test/run.ts), which prepares the database');
  const name = `${template}_${randomBytes(5).toString('hex')}`;
  const adminUrl = withDatabase(server, 'postgres');
  await runStatement(adminUrl, `create database ${name}`);
  return {
    url: withDatabase(server, name),
    drop: () => runStatement(adminUrl, `drop database if exists ${name} with (force)`),
  };
}

/**
 * Resolves once another session of `holder`'s database waits on a lock (the
 * statement the test expects to wait for the lock `holder` holds); fails
 * with `what` after 15 s.
 */
export async function untilAnotherSessionWaitsOnALock(holder: pg.Client, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { rows } = await holder.query(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
    );
    if (rows[0].n > 0) return;
    if (Date.now() >= deadline) throw new Error(`not seen in 15 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
