/** The SQL snapshot under sql/ is what the store runs now (scripts/gen-sql.ts; `npm run gen:sql` writes it). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { committedSqlSnapshot, functionsTakingDb, NOT_SAMPLED, renderSqlSnapshot, sampledFunctions, sqlRunningFunctions } from '../../scripts/gen-sql.js';

test('every file under sql/ equals what the sample calls run now (run npm run gen:sql after changing a statement)', async () => {
  const rendered = await renderSqlSnapshot();
  const committed = committedSqlSnapshot();
  const stale = [...new Set([...rendered.keys(), ...committed.keys()])].filter((file) => rendered.get(file) !== committed.get(file)).sort();
  assert.deepEqual(stale, [], `sql/ is out of date in ${stale.join(', ')}: run npm run gen:sql`);
});

test('every exported function of src/queue/ and src/store/ that takes a database handle is sampled or allow-listed with a reason', () => {
  const sampled = new Set(sampledFunctions());
  const missing = sqlRunningFunctions().filter((f) => !sampled.has(f) && !(f in NOT_SAMPLED));
  assert.deepEqual(missing, [], 'give each a sample call in scripts/sql-samples/ (or a reason in NOT_SAMPLED)');
});

test('the samples and the allow-list name only functions that exist and take a database handle', () => {
  const existing = new Set(sqlRunningFunctions());
  const unknown = [...sampledFunctions(), ...Object.keys(NOT_SAMPLED)].filter((f) => !existing.has(f));
  assert.deepEqual(unknown, []);
});

test('a new exported function that takes a Kysely instance, a transaction or a Db counts as running SQL', () => {
  const planted = [
    "import type { Kysely, Transaction } from 'kysely';",
    'export async function readPlanted(db: Kysely<Database>, id: string) { return id; }',
    'export const writePlanted = async (trx: Transaction<Database>) => trx;',
    'export async function viaDb(db: Db) { return db; }',
    'export function pure(value: string) { return value; }',
    'async function notExported(db: Kysely<Database>) { return db; }',
  ].join('\n');
  assert.deepEqual(functionsTakingDb(planted), ['readPlanted', 'writePlanted', 'viaDb']);
});
