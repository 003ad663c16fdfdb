/**
 * The layer rules (.dependency-cruiser.cjs) bite: a tree with one planted
 * violation of each kind, checked with the repository's own rules file, is
 * reported once per kind, under that rule's name; the same tree without them
 * passes. (`npm test` also checks src/ itself with the same file.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A file of the planted tree: its path and what it imports. */
const TREE: Record<string, string[]> = {
  'src/domain/rule.ts': [],
  'src/domain/checks/catalog.ts': [],
  'src/store/repo.ts': ['../domain/rule.js'],
  'src/store/transaction.ts': [],
  'src/queue/transitions.ts': ['../store/transaction.js', '../store/repo.js'],
  'src/scanning/work.ts': ['../store/repo.js', '../queue/transitions.js'],
  'src/use-cases/story.ts': ['../scanning/work.js', '../store/transaction.js'],
  'src/http/routes/api.ts': ['../../use-cases/story.js'],
  'src/http/validation.ts': ['../domain/rule.js'],
  // A type-only import of a row type from an interface is allowed (interfaces-reach-use-cases-only).
  'src/web/page.ts': ['../use-cases/story.js', 'type ../store/repo.js'],
  'src/cli/main.ts': ['../use-cases/story.js', '../maintenance.js'],
  'src/config.ts': ['./domain/rule.js'],
  'src/runtime.ts': ['./store/repo.js'],
  'src/metrics.ts': ['./store/repo.js'],
  'src/maintenance.ts': ['./store/repo.js'],
  'packages/client/src/index.ts': [],
};

/** One planted violation per rule: [rule, file, what it imports]. */
const PLANTED: [string, string, string][] = [
  ['domain-imports-nothing-of-ours', 'src/domain/planted.ts', '../store/repo.js'],
  ['no-store-upward', 'src/store/planted.ts', '../use-cases/story.js'],
  ['no-store-upward', 'src/store/planted-queue.ts', '../queue/transitions.js'],
  ['no-queue-upward', 'src/queue/planted.ts', '../scanning/work.js'],
  ['checks-evaluated-above-store', 'src/store/planted-checks.ts', '../domain/checks/catalog.js'],
  ['checks-evaluated-above-store', 'src/queue/planted-checks.ts', '../domain/checks/catalog.js'],
  ['no-scanning-to-use-cases-http-web-cli-client', 'src/scanning/planted.ts', '../use-cases/story.js'],
  ['no-use-cases-to-http-web-cli-client', 'src/use-cases/planted.ts', '../http/routes/api.js'],
  ['no-http-to-web-cli', 'src/http/planted.ts', '../web/page.js'],
  ['no-web-to-http-cli', 'src/web/planted.ts', '../http/routes/api.js'],
  ['no-web-to-http-cli', 'src/web/planted-validation.ts', '../http/validation.js'],
  ['every-file-has-a-layer', 'src/helpers/planted.ts', '../domain/rule.js'],
  ['sql-only-in-store-and-queue', 'src/use-cases/planted-sql.ts', 'kysely'],
  ['foundation-imports-only-foundation', 'src/logger.ts', './store/repo.js'],
  ['runtime-and-metrics-above-store-only', 'src/metrics.ts', './scanning/work.js'],
  ['maintenance-knows-no-interface', 'src/maintenance.ts', './cli/main.js'],
  ['transactions-opened-by-use-cases', 'src/store/planted-trx.ts', './transaction.js'],
  ['transactions-opened-by-use-cases', 'src/http/planted-trx.ts', '../store/transaction.js'],
  ['transactions-opened-by-use-cases', 'src/queue/planted-trx.ts', '../store/transaction.js'],
  ['interfaces-reach-use-cases-only', 'src/http/planted-store.ts', '../store/repo.js'],
  ['interfaces-reach-use-cases-only', 'src/web/planted-queue.ts', '../queue/transitions.js'],
  ['interfaces-reach-use-cases-only', 'src/cli/planted-store.ts', '../store/repo.js'],
  ['no-scanning-to-maintenance', 'src/scanning/planted-maint.ts', '../maintenance.js'],
  ['client-stands-alone', 'packages/client/src/planted.ts', '../../../src/domain/rule.js'],
];

function moduleText(imports: string[]): string {
  const lines = imports.map((spec, i) =>
    spec === 'kysely'
      ? `import { sql } from 'kysely';\nexport const q${i} = sql;`
      : spec.startsWith('type ')
        ? `import type { here as h${i} } from '${spec.slice(5)}';\nexport type T${i} = typeof h${i};`
        : `export * as m${i} from '${spec}';`,
  );
  return `${lines.join('\n')}\nexport const here = 1;\n`;
}

async function plant(dir: string, files: Record<string, string[]>): Promise<void> {
  for (const [file, imports] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), moduleText(imports));
  }
  await fs.writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true } }),
  );
  await fs.writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  await fs.symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
}

function cruise(dir: string): { rule: string; from: string }[] {
  const bin = path.join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
  const run = spawnSync(
    process.execPath,
    [bin, 'src', 'packages/client/src', '--config', path.join(root, '.dependency-cruiser.cjs'), '--output-type', 'json'],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  );
  assert.ok(run.stdout, run.stderr);
  const result = JSON.parse(run.stdout) as { summary: { violations: { rule: { name: string }; from: string }[] } };
  return result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from }));
}

describe('the layer rules, on a planted tree', () => {
  let clean = '';
  let planted = '';
  before(async () => {
    clean = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-layers-clean-'));
    await plant(clean, TREE);
    planted = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-layers-planted-'));
    const files: Record<string, string[]> = structuredClone(TREE);
    for (const [, file, spec] of PLANTED) files[file] = [...(files[file] ?? []), spec];
    // And a cycle of two web modules.
    files['src/web/cycle-a.ts'] = ['./cycle-b.js'];
    files['src/web/cycle-b.ts'] = ['./cycle-a.js'];
    await plant(planted, files);
  });
  after(async () => {
    await fs.rm(clean, { recursive: true, force: true });
    await fs.rm(planted, { recursive: true, force: true });
  });

  test('the tree without planted violations passes', () => {
    assert.deepEqual(cruise(clean), []);
  });

  test('each planted violation is reported under its rule', () => {
    const found = cruise(planted);
    for (const [rule, file] of PLANTED)
      assert.ok(
        found.some((v) => v.rule === rule && v.from === file),
        `${rule} not reported for ${file}: ${JSON.stringify(found)}`,
      );
    const rules = new Set(found.map((v) => v.rule));
    assert.ok(rules.has('no-circular'), JSON.stringify(found));
  });
});
