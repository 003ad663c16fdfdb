/**
 * The client is a package of its own (packages/client): `npm pack` makes a
 * tarball of compiled ESM with type declarations, which installs into an
 * empty project and works there, against a running server, from plain
 * JavaScript, from TypeScript (type-checked against the shipped .d.ts), and
 * as a command (`npx profile-scan-client`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../support/app.js';

const root = path.resolve(import.meta.dirname, '../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command without blocking this process (the test server answers it meanwhile). */
function sh(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the client package, packed and installed into an empty project', () => {
  let t: TestApp;
  let secret: string;
  let workspaceId: string;
  let project: string;

  before(async () => {
    t = await startTestApp();
    ({ secret, workspaceId } = await t.tenant());
    project = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-client-project-'));
    const packed = await sh(npm, ['pack', '--json', '--pack-destination', project], path.join(root, 'packages/client'));
    assert.equal(packed.code, 0, packed.stderr);
    const tarball = path.join(project, JSON.parse(packed.stdout)[0].filename as string);
    await fs.writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
    const installed = await sh(npm, ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], project);
    assert.equal(installed.code, 0, installed.stderr);
  });
  after(async () => {
    await t?.close();
    if (project) await fs.rm(project, { recursive: true, force: true });
  });

  test('the tarball holds the compiled package: JavaScript, declarations, the command, the README; no TypeScript sources', async () => {
    const dir = path.join(project, 'node_modules/@profile-scan/client');
    const files = (await fs.readdir(dir, { recursive: true })).map(String);
    for (const f of ['package.json', 'README.md', 'bin/profile-scan-client.js', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/client.js'])
      assert.ok(files.includes(f), f);
    assert.ok(!files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), 'no sources');
    assert.ok(!(await fs.readFile(path.join(dir, 'dist/index.js'), 'utf8')).includes('/src/'), 'nothing of the server');
  });

  test('plain JavaScript: create a report and list it back', async () => {
    await fs.writeFile(
      path.join(project, 'plain.js'),
      `import { ProfileScanClient } from '@profile-scan/client';
const client = new ProfileScanClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.KEY });
const created = await client.reports.create({ name: 'From plain JS', company: { name: 'Acme', domain: 'acme.com', pronet_company_url: 'https://pronet.example/company/acme' } });
const names = [];
for await (const report of client.reports.list()) names.push(report.name);
console.log(JSON.stringify({ status: created.status, id: created.data.report.id, names }));
`,
    );
    const run = await sh(process.execPath, ['plain.js'], project, { BASE_URL: t.baseUrl, KEY: secret });
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout);
    assert.equal(out.status, 201);
    assert.deepEqual(out.names, ['From plain JS']);
  });

  test('TypeScript: type-checked against the shipped declarations, then run', async () => {
    await fs.writeFile(
      path.join(project, 'typed.ts'),
      `import { ProfileScanClient, type Context } from '@profile-scan/client';
declare const process: { env: Record<string, string> };
const client = new ProfileScanClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.KEY });
const context: Context = await client.context();
const workspace: string = context.workspace_id;
console.log(workspace);
`,
    );
    await fs.writeFile(path.join(project, 'bad.ts'), `import { ProfileScanClient } from '@profile-scan/client';\nnew ProfileScanClient({ baseUrl: 1 });\n`);
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    // A TypeScript project on Node has Node's types (here the suite's own @types/node, so nothing is downloaded).
    const flags = [
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--strict',
      '--typeRoots',
      path.join(root, 'node_modules/@types'),
      '--types',
      'node',
    ];
    const wrong = await sh(process.execPath, [tsc, '--noEmit', ...flags, 'bad.ts'], project);
    assert.notEqual(wrong.code, 0, 'a wrong option is a type error');
    assert.match(wrong.stdout, /^bad\.ts\(2,\d+\): error TS/m);
    assert.ok(!wrong.stdout.includes('node_modules/@profile-scan'), wrong.stdout);
    const compiled = await sh(process.execPath, [tsc, ...flags, 'typed.ts'], project);
    assert.equal(compiled.code, 0, compiled.stdout + compiled.stderr);
    const run = await sh(process.execPath, ['typed.js'], project, { BASE_URL: t.baseUrl, KEY: secret });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout.trim(), /^[0-9a-f-]{36}$/);
  });

  test('the command-line client runs with npx from the installed package', async () => {
    const help = await sh(npm, ['exec', '--no', '--', 'profile-scan-client', '--help'], project);
    assert.equal(help.code, 0, help.stdout + help.stderr);
    assert.match(help.stdout + help.stderr, /import REPORT_ID FILE\.csv/);
    const context = await sh(npm, ['exec', '--no', '--', 'profile-scan-client', 'context', '--json'], project, {
      PROFILE_SCAN_BASE_URL: t.baseUrl,
      PROFILE_SCAN_API_KEY: secret,
    });
    assert.equal(context.code, 0, context.stdout + context.stderr);
    assert.equal(JSON.parse(context.stdout).workspace_id, workspaceId);
  });
});
