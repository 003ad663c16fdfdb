/**
 * Comments a reader of the repository can follow: no source file cites an
 * issue of a tracker the reader cannot see (an issue and its number); the reason
 * itself belongs in the comment, or a document of docs/ in its place.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIRS = ['src', 'test', 'bench', 'scripts', 'packages/client/src'];
const CITATION = /\bissues?\s+#?[0-9]+/i;

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.(ts|tsx|js|mjs|cjs|sql)$/.test(entry.name)) yield full;
  }
}

test('no source file cites a tracker issue by number', async () => {
  const citing: string[] = [];
  for (const dir of DIRS) {
    for await (const file of sourceFiles(path.join(root, dir))) {
      const lines = (await fs.readFile(file, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        if (CITATION.test(line)) citing.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  assert.deepEqual(citing, []);
});

test('the check finds a citation where there is one', () => {
  // Spelt in two parts, so that this file does not cite one itself.
  assert.ok(CITATION.test('// Hot reads (issue' + ' 9, item 6)'));
  assert.ok(CITATION.test(' * Fault test (issue' + ' #3)'));
  assert.ok(!CITATION.test('// see docs/scanning.md, "Roll-ups"'));
});
