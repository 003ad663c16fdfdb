/**
 * Real service processes for tests: `node bin/profile-scan.js <role>` (the
 * compiled build; test/run.ts builds it), with their output kept (JSON log
 * lines on stderr), ready once their lifecycle record says so.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { eventually, type TestApp } from './app.js';

const root = path.resolve(import.meta.dirname, '../..');

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr. */
  output(): string;
  exited: Promise<number | null>;
  /** serve: the API's base URL. */
  url: string;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

export async function startService(
  name: string,
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string; readyTimeoutMs?: number } = {},
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [path.join(options.cwd ?? root, 'bin/profile-scan.js'), ...args], {
    cwd: options.cwd ?? root,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = args[0] === 'serve' ? /API listening on (http:\/\/[^\s"]+)/ : /started with concurrency/;
  const match = await Promise.race([
    eventually(async () => ready.exec(output), options.readyTimeoutMs ?? 60_000, 50),
    exited.then((code) => {
      throw new Error(`${name} exited early (${code}):\n${output}`);
    }),
  ]);
  return {
    name,
    child,
    output: () => output,
    exited,
    url: match[1] ?? '',
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * `profile-scan admin <args>` as the operator runs it, against the test
 * app's database (its address as PUBLIC_BASE_URL); resolves with its output,
 * rejects on a non-zero exit (the error's message holds its stderr).
 */
export function runAdmin(t: Pick<TestApp, 'database' | 'baseUrl'>, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [path.join(root, 'bin/profile-scan.js'), 'admin', ...args], {
    env: { ...process.env, DATABASE_URL: t.database.url, PUBLIC_BASE_URL: t.baseUrl, LOG_LEVEL: 'silent' },
  });
}
