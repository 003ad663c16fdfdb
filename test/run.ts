/**
 * `npm test`: runs every test file against a real PostgreSQL.
 *
 * - Without DATABASE_URL: starts the embedded PostgreSQL under .test-data/
 *   (the same code path as `serve`), and stops it at the end.
 * - With DATABASE_URL: uses that server (it must allow CREATE DATABASE).
 *
 * It builds one migrated template database; each test file clones it
 * (CREATE DATABASE … TEMPLATE …) so every file starts clean in milliseconds.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { privateAncestor } from '../src/data-dir.js';
import { openRuntime } from '../src/runtime.js';
import { startEmbeddedPostgres } from '../src/store/embedded-postgres.js';
import { findChromium } from './support/chromium.js';
import { runStatement } from './support/db.js';

const root = path.resolve(import.meta.dirname, '..');

function testFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? testFiles(path.join(dir, e.name)) : e.name.endsWith('.test.ts') ? [path.join(dir, e.name)] : []))
    .sort();
}

/**
 * Where the suite's embedded server keeps its data: .test-data in the
 * checkout, unless the suite runs as root in a checkout that others cannot
 * search (a fresh clone in `mktemp -d`): the server runs as the postgres user
 * and could not reach it there, so a directory of this checkout's own under
 * the system's temporary directory is used instead.
 */
function testDataDir(): string {
  const inCheckout = path.join(root, '.test-data');
  if (process.getuid?.() !== 0 || privateAncestor(inCheckout) === null) return inCheckout;
  return path.join(os.tmpdir(), `profile-scan-test-data-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`);
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * The test areas, in the order they run: pure functions first, the browser last
 * (it needs a Chromium). Every directory of test/ but support/ is one; a file
 * in a directory missing here fails the run instead of being left out.
 */
const AREAS = ['unit', 'api', 'queue', 'scanning', 'database', 'privacy', 'cli', 'web', 'browser'];

async function main(): Promise<number> {
  const unlisted = fs
    .readdirSync(path.join(root, 'test'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'support' && !AREAS.includes(e.name) && testFiles(path.join(root, 'test', e.name)).length > 0);
  if (unlisted.length > 0) throw new Error(`test/run.ts: add ${unlisted.map((e) => `test/${e.name}`).join(', ')} to AREAS`);
  const filter = process.argv.slice(2);
  let files = AREAS.flatMap((area) => testFiles(path.join(root, 'test', area)));
  if (filter.length > 0) files = files.filter((f) => filter.some((x) => f.includes(x)));
  // Browser tests need a Chromium (Debian's package; playwright-core downloads none): the one allowed skip.
  if (!findChromium() && files.some((f) => f.includes('/test/browser/'))) {
    files = files.filter((f) => !f.includes('/test/browser/'));
    console.log('# browser tests skipped: no Chromium found; install it (apt-get install -y chromium) or set CHROMIUM_PATH to run them');
  }

  // Tests that start real processes run the compiled build (bin/profile-scan.js → dist/): build it
  // first (incremental). Type errors fail `npm test` in its own tsc step; here they only warn.
  if (files.some((f) => fs.readFileSync(f, 'utf8').includes('bin/profile-scan.js'))) {
    const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (build.status !== 0) console.error('# warning: the build reported errors (tests run the JavaScript it emitted)');
  }

  // Empty counts as unset, as for the service (config.ts).
  const externalUrl = process.env.DATABASE_URL?.trim() || null;
  const embedded = externalUrl ? null : await startEmbeddedPostgres({ dataDir: testDataDir(), database: 'postgres', log: (m) => console.error(`# ${m}`) });
  const serverUrl = externalUrl ?? embedded!.url;
  const adminUrl = withDatabase(serverUrl, 'postgres');
  const template = `ps_tmpl_${randomBytes(4).toString('hex')}`;
  console.error(`# test database server: ${embedded ? 'embedded PostgreSQL' : 'DATABASE_URL'}; template ${template}`);
  await runStatement(adminUrl, `create database ${template}`);
  try {
    const runtime = await openRuntime(loadConfig({ DATABASE_URL: withDatabase(serverUrl, template) }));
    await runtime.close();
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...files], {
        stdio: 'inherit',
        // Test hooks (CLOCK_OFFSET_MS, PS_TEST_PAUSE_BEFORE_COMMIT_MS) are refused without PROFILE_SCAN_TEST_HOOKS=1.
        env: {
          ...process.env,
          PS_TEST_SERVER_URL: serverUrl,
          PS_TEST_TEMPLATE: template,
          SIMULATOR_DELAY_MS: '0',
          PROFILE_SCAN_TEST_HOOKS: '1',
        },
      });
      child.on('close', (c) => resolve(c ?? 1));
    });
    return code;
  } finally {
    // Drop the template and any database a killed test file left behind.
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where datname = $1 or datname like $2`, [
      template,
      `${template}_%`,
    ]);
    for (const row of rows) await client.query(`drop database if exists ${client.escapeIdentifier(row.datname)} with (force)`);
    await client.end();
    await embedded?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
