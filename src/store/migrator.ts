/**
 * Migrations are numbered SQL files in ./migrations, applied in order by
 * Kysely's Migrator (which takes its own lock, so concurrent starts are safe).
 *
 * A migration is never renamed, renumbered or squashed once it has shipped:
 * every database records the names of the migrations it ran, and the
 * Migrator refuses a database whose record names a migration it does not
 * know. So numbers only grow, by one; the one gap, 0013 to 0018, was never
 * used (0019 was numbered while other work held those numbers, and that work
 * never became a migration). test/unit/migrations.test.ts keeps it so.
 *
 * Database functions are not defined by numbered migrations (once shipped,
 * those stay as they are) but in ./functions, one file per function: after
 * the numbered migrations, every file whose text differs from the one the
 * database last ran is applied, like Flyway's repeatable (R__) migrations
 * (applyFunctionDefinitions). So each function's current definition is read
 * in one place.
 *
 * Last come the data steps a domain rule computes, which SQL cannot state
 * without a second copy of the rule: history rows written before what changed
 * since the previous scan and the scan's score were stored with them
 * (migrations 0058, 0059) get both (store/history-repository.ts, compareHistory),
 * and rounds recorded before their trend figures were stored (0060) get those
 * (pointRounds);
 * then report roll-ups stored before they kept the team's progress are
 * recomputed from the stored rows (store/maintenance-repository.ts,
 * completeProgressRollups).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './database.js';
import { compareHistory, pointRounds } from './history-repository.js';
import { completeProgressRollups } from './maintenance-repository.js';
import { retryingTransaction } from './transaction.js';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

class SqlFileMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await fs.readdir(migrationsDir)).filter((f) => f.endsWith('.sql')).sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      const text = await fs.readFile(path.join(migrationsDir, file), 'utf8');
      migrations[file.replace(/\.sql$/, '')] = {
        up: async (db) => {
          await sql.raw(text).execute(db);
        },
      };
    }
    return migrations;
  }
}

/** Applies the migrations up to and including `name`: a database as an earlier version left it (tests of a migration's upgrade). */
export async function migrateTo(db: Db, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider: new SqlFileMigrationProvider() }).migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/**
 * Applies the numbered migrations not applied yet, then the function
 * definitions that changed; returns their names (`functions/<file>` for the
 * latter).
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new SqlFileMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  const numbered = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  const functions = await applyFunctionDefinitions(db);
  const now = new Date();
  while ((await compareHistory(db, now)) > 0);
  while ((await pointRounds(db)) > 0);
  while ((await completeProgressRollups(db, now)) > 0);
  return [...numbered, ...functions.map((f) => `functions/${f.replace(/\.sql$/, '')}`)];
}

const functionsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'functions');

/**
 * The advisory lock Kysely's Migrator holds while it migrates (its
 * PostgresAdapter's, which it does not export): taken here too, so that two
 * processes starting at once apply the numbered migrations, then the
 * function definitions, one after the other.
 */
const MIGRATION_LOCK_ID = '3853314791062309107';

/** Each file of ./functions, by name, with the sha256 of its text. */
export async function functionDefinitionFiles(dir = functionsDir): Promise<{ file: string; text: string; checksum: string }[]> {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(
    files.map(async (file) => {
      const text = await fs.readFile(path.join(dir, file), 'utf8');
      return { file, text, checksum: createHash('sha256').update(text).digest('hex') };
    }),
  );
}

/**
 * Applies each file of ./functions whose text the database has not run (its
 * checksum differs from the one recorded in function_definitions, or none is
 * recorded), in file order, in one transaction under the migration lock, and
 * records the new checksums; returns the files applied. `dir`: another
 * directory of definitions (a test's changed copy).
 */
export async function applyFunctionDefinitions(db: Db, dir = functionsDir): Promise<string[]> {
  const definitions = await functionDefinitionFiles(dir);
  return retryingTransaction(db, async (trx) => {
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_ID)}::bigint)`.execute(trx);
    const recorded = new Map((await trx.selectFrom('function_definitions').select(['file', 'checksum']).execute()).map((r) => [r.file, r.checksum]));
    const applied: string[] = [];
    for (const { file, text, checksum } of definitions) {
      if (recorded.get(file) === checksum) continue;
      await sql.raw(text).execute(trx);
      await trx
        .insertInto('function_definitions')
        .values({ file, checksum, applied_at: new Date() })
        .onConflict((oc) => oc.column('file').doUpdateSet({ checksum, applied_at: new Date() }))
        .execute();
      applied.push(file);
    }
    return applied;
  });
}
