/** The README's configuration table is rendered from the settings of src/config.ts (scripts/gen-config-doc.ts). */
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { committedConfigTable, README_PATH, renderConfigTable } from '../../scripts/gen-config-doc.js';
import { SETTINGS } from '../../src/config.js';

test("the README's configuration table equals the one rendered from the settings (run scripts/gen-config-doc.ts after changing one)", () => {
  assert.equal(committedConfigTable(readFileSync(README_PATH, 'utf8')), renderConfigTable());
});

test('no module but src/config.ts reads a setting from the environment', () => {
  const root = new URL('../../src/', import.meta.url);
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f) && f !== 'config.ts');
  assert.ok(files.length > 100);
  const offenders: string[] = [];
  for (const file of files) {
    const text = readFileSync(new URL(file, root), 'utf8');
    for (const m of text.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) {
      // Not ours: the AWS SDK's and libuv's own variables.
      if (m[1] in SETTINGS || !['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'UV_THREADPOOL_SIZE'].includes(m[1])) offenders.push(`${file}: ${m[1]}`);
    }
  }
  assert.deepEqual(offenders, []);
});
