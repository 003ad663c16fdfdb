/**
 * Migration numbers only grow, by one, with the one documented gap
 * (src/store/database.ts: 0013 to 0018 were never used), and every file is
 * named NNNN_words.sql.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/store/migrations');
const NEVER_USED = [13, 14, 15, 16, 17, 18];

test('migrations are numbered one after another, but for the documented gap', async () => {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  for (const f of files) assert.match(f, /^[0-9]{4}_[a-z0-9_]+\.sql$/, f);
  const numbers = files.map((f) => Number(f.slice(0, 4)));
  const last = numbers[numbers.length - 1];
  const expected = Array.from({ length: last }, (_, i) => i + 1).filter((n) => !NEVER_USED.includes(n));
  assert.deepEqual(numbers, expected);
});

/** From migration 0050 on, functions are defined in src/store/functions (applied when their file changes), never by a numbered migration. */
const FIRST_WITH_FUNCTION_FILES = 50;

test('a numbered migration from 0050 on defines no function: its file in src/store/functions does', async () => {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.sql') && Number(f.slice(0, 4)) >= FIRST_WITH_FUNCTION_FILES);
  for (const f of files) {
    const text = (await fs.readFile(path.join(dir, f), 'utf8')).replace(/--[^\n]*/g, '');
    assert.doesNotMatch(text, /\bcreate\s+(?:or\s+replace\s+)?function\b/i, f);
  }
});
