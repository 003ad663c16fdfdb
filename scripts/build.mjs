#!/usr/bin/env node
// The compiled build (`npm run build`; run by `prepare` on npm ci / npm install
// and by `prestart`): tsc compiles src/ to dist/ (incremental: a build with
// nothing changed takes a second or two), then every file of src/ that is not
// TypeScript (SQL migrations, web assets) is copied next to its compiled
// neighbours, and files of dist/ whose source is gone are removed.
//
// A production install without dev dependencies (`npm ci --omit=dev`) has no
// TypeScript: with a dist/ already built, this says so and does nothing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeClientSheet } from './client-sheet.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  if (fs.existsSync(path.join(dist, 'cli', 'main.js'))) {
    console.error('profile-scan build: TypeScript is not installed (production install); using the dist/ already built');
    process.exit(0);
  }
  console.error('profile-scan build: TypeScript is not installed and there is no dist/; run `npm ci` (with dev dependencies) first');
  process.exit(1);
}

// The API client package first (packages/client: its own package, which the server's
// `profile-scan client` command uses through its published entry points), then the server.
// The client's copy of the spreadsheet rules is written from their one source first (client-sheet.mjs).
writeClientSheet();
const client = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'packages', 'client', 'tsconfig.json')], { stdio: 'inherit', cwd: root });
if (client.status !== 0 && !fs.existsSync(path.join(root, 'packages', 'client', 'dist', 'index.js'))) process.exit(client.status ?? 1);
// tsc writes the JavaScript even when it reports type errors; the exit status says whether it did.
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

const isSource = (file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts');
const expected = new Set();
for (const file of walk(src)) {
  const relative = path.relative(src, file);
  if (isSource(file)) {
    const base = relative.replace(/\.tsx?$/, '');
    expected.add(`${base}.js`);
    expected.add(`${base}.js.map`);
    continue;
  }
  expected.add(relative);
  const target = path.join(dist, relative);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(file, target);
}
// Outputs of sources that were deleted or renamed (a removed migration must not be applied).
for (const file of walk(dist)) {
  const relative = path.relative(dist, file);
  if (relative === '.tsbuildinfo' || expected.has(relative)) continue;
  fs.rmSync(file);
}
process.exit(result.status ?? 1);
