/**
 * The database a benchmark runs on: a scratch database on DATABASE_URL's
 * server (created, then dropped; the role needs CREATE DATABASE), or an
 * embedded PostgreSQL in a temporary directory.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/store/embedded-postgres.js';

export interface BenchDatabase {
  url: string;
  description: string;
  close(): Promise<void>;
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Runs one statement on the server's `postgres` database (create/drop database). */
export async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function openDatabase(tempDir: string, log: (message: string) => void): Promise<BenchDatabase> {
  const given = process.env.DATABASE_URL?.trim();
  if (given) {
    const name = `profile_scan_bench_${randomBytes(4).toString('hex')}`;
    await adminQuery(given, `create database ${name}`);
    return {
      url: withDatabase(given, name),
      description: `DATABASE_URL server, scratch database ${name}`,
      close: () => adminQuery(given, `drop database if exists ${name} with (force)`),
    };
  }
  const server = await startEmbeddedPostgres({ dataDir: tempDir, database: 'profile_scan_bench', log });
  return { url: server.url, description: 'embedded PostgreSQL', close: () => server.stop() };
}
