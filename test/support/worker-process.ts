/**
 * Real `profile-scan worker` processes for tests that kill or race them:
 * spawned against the test app's database and media directory, started once
 * their lifecycle record says they are claiming, stopped with SIGTERM (the
 * ones a test has not already killed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { eventually, type TestApp } from './app.js';

const root = path.resolve(import.meta.dirname, '../..');

export interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `env` is laid over the test process's environment; a name set to undefined is left out of it. */
export async function startWorkerProcess(t: TestApp, options: { concurrency: number; env?: Record<string, string | undefined> }): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['bin/profile-scan.js', 'worker', '--concurrency', String(options.concurrency)], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: t.runtime.databaseUrl,
      DATA_DIR: t.config.dataDir,
      ITEM_LEASE_SECONDS: String(t.config.itemLeaseSeconds),
      LOG_LEVEL: 'info', // the lifecycle record 'started with concurrency N' says it is claiming
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await Promise.race([
    eventually(async () => output.includes('started with concurrency'), 60_000, 50),
    exited.then((code) => {
      throw new Error(`worker exited early (${code}): ${output}`);
    }),
  ]);
  return { child, output: () => output, exited };
}

/** SIGTERM to every worker still running, and waits for each to exit. */
export async function stopWorkerProcesses(workers: readonly WorkerProcess[]): Promise<void> {
  for (const { child, exited } of workers) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  }
}
