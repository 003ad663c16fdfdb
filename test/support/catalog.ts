/**
 * A walk over the database catalog for erasure tests: every row of every
 * table (as its JSON text, which holds every text, jsonb and array column)
 * and every bytea column (as escaped text) is searched for the given
 * values, case-insensitively. What a test proves with it holds for tables
 * added later too: nothing here names a table.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/store/schema.js';

export interface CatalogHit {
  table: string;
  needle: string;
  row: string;
}

export async function findInCatalog(db: Kysely<Database>, needles: string[]): Promise<CatalogHit[]> {
  const lowered = needles.map((n) => n.toLowerCase());
  const { rows: tables } = await sql<{ table: string }>`
    select table_name as table from information_schema.tables
     where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(db);
  const { rows: byteaColumns } = await sql<{ table: string; column: string }>`
    select table_name as table, column_name as column from information_schema.columns
     where table_schema = 'public' and data_type = 'bytea' order by 1, 2`.execute(db);
  const hits: CatalogHit[] = [];
  for (const { table } of tables) {
    const { rows } = await sql<{ row: string }>`
      select to_jsonb(t)::text as row from ${sql.table(table)} t
       where exists (select 1 from unnest(${lowered}::text[]) n where strpos(lower(to_jsonb(t)::text), n) > 0)`.execute(db);
    for (const { row } of rows) for (const needle of lowered) if (row.toLowerCase().includes(needle)) hits.push({ table, needle, row });
  }
  for (const { table, column } of byteaColumns) {
    const { rows } = await sql<{ row: string }>`
      select encode(${sql.ref(column)}, 'escape') as row from ${sql.table(table)}
       where exists (select 1 from unnest(${lowered}::text[]) n where strpos(lower(encode(${sql.ref(column)}, 'escape')), n) > 0)`.execute(db);
    for (const { row } of rows) hits.push({ table: `${table}.${column}`, needle: lowered.find((n) => row.toLowerCase().includes(n)) ?? '', row });
  }
  return hits;
}
