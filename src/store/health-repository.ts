/**
 * Readiness checks against the database (GET /readyz): the server answers,
 * and every migration this build ships is recorded as applied (Kysely's
 * `kysely_migration` table). The list of migrations is read from disk once.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Db } from './database.js';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
let shipped: Promise<string[]> | null = null;

function shippedMigrations(): Promise<string[]> {
  shipped ??= fs.readdir(migrationsDir).then((files) => files.filter((f) => f.endsWith('.sql')).map((f) => f.replace(/\.sql$/, '')));
  return shipped;
}

/** How many shipped migrations the database lacks (0 = up to date). Throws when the database does not answer. */
export async function pendingMigrations(db: Db): Promise<number> {
  const names = await shippedMigrations();
  const { rows } = await sql<{ applied: number }>`
    select count(*)::int as applied from kysely_migration where name = any(${names}::text[])`.execute(db);
  return names.length - (rows[0]?.applied ?? 0);
}
