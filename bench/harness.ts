/**
 * What every benchmark needs: its settings from the environment, the
 * database it runs on (a scratch database on DATABASE_URL's server, created
 * then dropped — the role needs CREATE DATABASE — or an embedded PostgreSQL
 * in a temporary directory), and the service as a child process with every
 * layer on and read limits raised through configuration.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/store/embedded-postgres.js';
import { startChild, type Child } from './processes.js';

export const ROOT = path.resolve(import.meta.dirname, '..');

/** A positive integer from the environment, or `fallback` when unset. */
export function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

let built: Promise<void> | null = null;

/** `npm run build` (incremental), once per benchmark run: the service runs the compiled dist/, which must be the current source. */
function buildOnce(): Promise<void> {
  built ??= new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    // tsc emits JavaScript even when it reports type errors: those are reported (stderr) and the emitted code is measured.
    child.on('exit', (code) =>
      code === 0 || existsSync(path.join(ROOT, 'dist', 'cli', 'main.js')) ? resolve() : reject(new Error(`npm run build failed (exit ${code})`)),
    );
  });
  return built;
}

/** `profile-scan serve` without workers, on `databaseUrl`; `nodeFlags` e.g. --cpu-prof. Builds dist/ first. */
export async function startService(options: { databaseUrl: string; port: number; dataDir: string; logFile: string; nodeFlags?: string[] }): Promise<Child> {
  await buildOnce();
  return startChild({
    name: 'service',
    cwd: ROOT,
    args: [...(options.nodeFlags ?? []), 'bin/profile-scan.js', 'serve'],
    env: {
      DATABASE_URL: options.databaseUrl,
      PORT: String(options.port),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      WORKER_CONCURRENCY: '0',
      LOG_LEVEL: 'warn',
      READ_LIMIT_MULTIPLIER: '1000000',
    },
    port: options.port,
    logFile: options.logFile,
  });
}

export interface BenchDatabase {
  url: string;
  description: string;
  /** The postmaster's pid when the bench started the server (for CPU accounting), else null. */
  postmasterPid(): number | null;
  close(): Promise<void>;
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Runs one statement on the server's `postgres` database (create/drop database). */
export async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function openDatabase(tempDir: string, log: (message: string) => void): Promise<BenchDatabase> {
  const given = process.env.DATABASE_URL?.trim();
  if (given) {
    const name = `profile_scan_bench_${randomBytes(4).toString('hex')}`;
    await adminQuery(given, `create database ${name}`);
    return {
      url: withDatabase(given, name),
      description: `DATABASE_URL server, scratch database ${name}`,
      postmasterPid: () => null,
      close: () => adminQuery(given, `drop database if exists ${name} with (force)`),
    };
  }
  const server = await startEmbeddedPostgres({ dataDir: tempDir, database: 'profile_scan_bench', log });
  const pidFile = path.join(tempDir, 'postgres', 'postmaster.pid');
  const postmasterPid = () => {
    try {
      return Number(readFileSync(pidFile, 'utf8').split('\n')[0]) || null;
    } catch {
      return null;
    }
  };
  return { url: server.url, description: 'embedded PostgreSQL', postmasterPid, close: () => server.stop() };
}

/** A benchmark run's temporary directory and the clean-up steps to run at the end (or on Ctrl-C), last first. */
export interface RunScratch {
  tempDir: string;
  onCleanup(step: () => Promise<void>): void;
  cleanup(): Promise<void>;
}

export async function prepareRun(prefix: string, log: (message: string) => void): Promise<RunScratch> {
  const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const steps: (() => Promise<void>)[] = [() => fs.rm(tempDir, { recursive: true, force: true })];
  const cleanup = async () => {
    for (const step of steps.splice(0).reverse()) await step().catch((e: unknown) => log(`cleanup: ${String(e)}`));
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
  return { tempDir, onCleanup: (step) => steps.push(step), cleanup };
}
