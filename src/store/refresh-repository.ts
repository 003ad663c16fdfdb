/**
 * What a refresh (use-cases/refresh-report.ts) reads before it admits work:
 * the report's active people, and those of them whose latest full-profile
 * attempt failed or found the profile inaccessible ("Try these again").
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { latestFullItemJoin } from './latest-item.js';
import type { KeyMode } from '../domain/keys.js';

/** The ids of the report's active people, oldest attachment first. */
export async function activePeopleIds(db: Kysely<Database>, reportId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('report_profiles')
    .select('id')
    .where('report_id', '=', reportId)
    .where('status', '=', 'active')
    .orderBy('added_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** The active people whose latest full-profile item ended `failed` or `inaccessible`. */
export async function unsuccessfulPeopleIds(db: Kysely<Database>, reportId: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select person.id
      from report_profiles person
      ${sql.raw(latestFullItemJoin('person'))}
     where person.report_id = ${reportId} and person.status = 'active' and li.status in ('failed', 'inaccessible')
     order by person.added_at, person.id`.execute(db);
  return rows.map((r) => r.id);
}

/** The key mode of the report's latest scan run (a refresh started outside the API scans as the report was scanned); test when none. */
export async function reportKeyMode(db: Kysely<Database>, reportId: string): Promise<KeyMode> {
  const row = await db.selectFrom('scan_runs').select('key_mode').where('report_id', '=', reportId).orderBy('created_at', 'desc').limit(1).executeTakeFirst();
  return row?.key_mode ?? 'test';
}

/**
 * Runs `work` inside a savepoint of the caller's transaction: when it throws,
 * what it wrote is undone and the transaction goes on (a scheduled refresh
 * refused for the allowance still moves its schedule on), and the error is
 * rethrown.
 */
export async function inSavepoint<T>(trx: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  await sql`savepoint refresh_admission`.execute(trx);
  try {
    const result = await work();
    await sql`release savepoint refresh_admission`.execute(trx);
    return result;
  } catch (error) {
    await sql`rollback to savepoint refresh_admission`.execute(trx);
    throw error;
  }
}
