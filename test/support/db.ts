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
