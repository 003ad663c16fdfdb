/**
 * What the scan pipeline benchmark (bench/pipeline.ts) runs on: the
 * PostgreSQL server, one fresh database per scenario, and the service's own
 * processes (`node bin/profile-scan.js worker` / `serve`) as children, with
 * their CPU time read from /proc.
 *
 * Server: DATABASE_URL's (each scenario gets a scratch database, created then
 * dropped; the role needs CREATE DATABASE), else an embedded PostgreSQL in a
 * temporary directory, restarted once with pg_stat_statements preloaded so
 * that statements per item can be counted (BENCH_PG_STAT_STATEMENTS=0 to
 * leave it out). On DATABASE_URL's server, statements are counted only when
 * that server already preloads pg_stat_statements and the role may create
 * roles.
 *
 * The benchmark's own statements (polling, sampling, holding items back) run
 * as a role of their own, the observer, so that pg_stat_statements tells
 * them apart from the service's (by `userid`).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { openRuntime } from '../src/runtime.js';
import { startEmbeddedPostgres, type EmbeddedServer } from '../src/store/embedded-postgres.js';
import { updateWorkspace } from '../src/store/workspace-repository.js';
import { createWorkspace } from '../src/use-cases/workspace-settings.js';
import { issueKeyAsOperator } from '../src/use-cases/manage-keys.js';
import { adminQuery, ROOT, withDatabase } from './harness.js';
import { runStatement } from '../test/support/db.js';

export type Log = (message: string) => void;

/** Every statement the benchmark itself sends starts with this comment (visible in pg_stat_activity and the server's log). */
export const TAG = '/* bench:pipeline */';

export interface BenchServer {
  /** A URL of the server (any database; scenarios replace the database). */
  url: string;
  embedded: boolean;
  /** The postmaster's pid when the bench started the server, else null. */
  postmasterPid: number | null;
  /** Whether pg_stat_statements is preloaded (then scenarios create the extension in their database). */
  statements: boolean;
  /** The role the benchmark's own connections use when statements are counted, else null (they use the URL's). */
  observer: { role: string; password: string } | null;
  postgresVersion: string;
  close(): Promise<void>;
}

function readPostmasterPid(clusterDir: string): number | null {
  try {
    return Number(fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
  } catch {
    return null;
  }
}

async function serverFacts(url: string): Promise<{ statements: boolean; version: string }> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    const { rows } = await client.query(`${TAG} select version() as version, current_setting('shared_preload_libraries') as preload`);
    return {
      statements: String(rows[0].preload)
        .split(',')
        .some((s) => s.trim() === 'pg_stat_statements'),
      version: String(rows[0].version).replace(/ on .*$/, ''),
    };
  } finally {
    await client.end();
  }
}

/** A login role for the benchmark's own connections, member of pg_read_all_stats; null when it cannot be created. */
async function createObserver(url: string, log: Log): Promise<BenchServer['observer']> {
  const observer = { role: `bench_pipeline_observer_${randomBytes(4).toString('hex')}`, password: randomBytes(18).toString('hex') };
  try {
    await adminQuery(url, `create role ${observer.role} login password '${observer.password}' in role pg_read_all_stats`);
    return observer;
  } catch (error) {
    log(`cannot create an observer role (${String(error)}): statements are not counted`);
    return null;
  }
}

export async function openServer(tempDir: string, log: Log): Promise<BenchServer> {
  const given = process.env.DATABASE_URL?.trim();
  if (given) {
    const facts = await serverFacts(given);
    log(`using DATABASE_URL's server (${facts.version}); pg_stat_statements ${facts.statements ? 'preloaded' : 'not preloaded: statements are not counted'}`);
    const observer = facts.statements ? await createObserver(given, log) : null;
    return {
      url: given,
      embedded: false,
      postmasterPid: null,
      statements: observer !== null,
      observer,
      postgresVersion: facts.version,
      close: async () => {
        if (observer)
          await adminQuery(given, `drop role if exists ${observer.role}`).catch((e: unknown) => log(`could not drop role ${observer.role}: ${String(e)}`));
      },
    };
  }
  const dataDir = path.join(tempDir, 'pg');
  const clusterDir = path.join(dataDir, 'postgres');
  // Run as root, the server runs as the postgres user, which must be able to reach its directory:
  // the temporary directory (ours, 0700 from mkdtemp) gets search permission, not read.
  await fs.promises.chmod(tempDir, 0o711);
  let server: EmbeddedServer = await startEmbeddedPostgres({ dataDir, database: 'postgres', log });
  // Server settings to measure in the same harness (BENCH_PG_SETTINGS=name=value,…; docs/benchmarks.md).
  const settings = benchSettings(process.env.BENCH_PG_SETTINGS);
  if (process.env.BENCH_PG_STAT_STATEMENTS !== '0') {
    // The embedded binaries ship the extension; it must be preloaded at server start.
    settings.push({ name: 'shared_preload_libraries', value: 'pg_stat_statements' });
    // Planning too: a statement planned on every execution costs about as much again (store/prepared-statements.ts).
    settings.push({ name: 'pg_stat_statements.track_planning', value: 'on' });
  }
  if (settings.length > 0) {
    for (const { name, value } of settings) await adminQuery(server.url, `${TAG} alter system set ${name} = '${value.replaceAll("'", "''")}'`);
    await server.stop();
    server = await startEmbeddedPostgres({ dataDir, database: 'postgres', log });
  }
  const facts = await serverFacts(server.url);
  const observer = facts.statements ? await createObserver(server.url, log) : null;
  const stopping = server;
  return {
    url: server.url,
    embedded: true,
    postmasterPid: readPostmasterPid(clusterDir),
    statements: observer !== null,
    observer,
    postgresVersion: facts.version,
    close: () => stopping.stop(),
  };
}

export interface Tenant {
  workspaceId: string;
  secret: string;
}

export interface ScenarioDatabase {
  name: string;
  url: string;
  /** Where the benchmark's own connections go (the observer role when there is one). */
  observerUrl: string;
  /** pg_stat_statements usable in this database, and the observer role's name to leave out. */
  statements: { observerRole: string } | null;
  /** Migrated (as every process of the service does at start) and holding `tenants` workspaces with raised write limits. */
  tenants: Tenant[];
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database with `tenants` workspaces, each with one `*`
 * test key and write limits raised through its settings (read limits are
 * raised by READ_LIMIT_MULTIPLIER in the service's environment).
 */
export async function createScenarioDatabase(server: BenchServer, label: string, tenants: number, dataDir: string, log: Log): Promise<ScenarioDatabase> {
  const name = `ps_pipeline_${label}_${randomBytes(4).toString('hex')}`;
  await adminQuery(server.url, `create database ${name}`);
  const url = withDatabase(server.url, name);
  const drop = () => adminQuery(server.url, `drop database if exists ${name} with (force)`).catch((e: unknown) => log(`could not drop ${name}: ${String(e)}`));
  try {
    let statements: ScenarioDatabase['statements'] = null;
    if (server.statements && server.observer) {
      const role = server.observer.role;
      await runStatement(url, `create extension if not exists pg_stat_statements`)
        .then(() => (statements = { observerRole: role }))
        .catch((e: unknown) => log(`pg_stat_statements unavailable in ${name} (${String(e)}): statements are not counted`));
    }
    const config = loadConfig({ DATABASE_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'silent', WORKER_CONCURRENCY: '0' });
    const runtime = await openRuntime(config, { poolSize: 2 });
    const created: Tenant[] = [];
    try {
      const now = new Date();
      for (let i = 0; i < tenants; i++) {
        const ws = await createWorkspace(runtime.db, `Pipeline bench ${String.fromCharCode(65 + i)}`, now);
        await updateWorkspace(
          runtime.db,
          ws.id,
          {
            writes_per_minute_per_key: 1_000_000,
            writes_per_minute_per_workspace: 1_000_000,
            submitted_profiles_per_minute_per_workspace: 100_000_000,
          },
          now,
        );
        const key = await issueKeyAsOperator({ db: runtime.db, clock: { now: () => now } }, { workspaceId: ws.id, scopes: ['*'], mode: 'test' });
        created.push({ workspaceId: ws.id, secret: key.secret });
      }
    } finally {
      await runtime.close();
    }
    let observerUrl = url;
    if (server.observer) {
      // Reads everywhere; writes only what holding items back and releasing them needs.
      await runStatement(
        url,
        `grant select on all tables in schema public to ${server.observer.role}; grant update (ready_at) on scan_items to ${server.observer.role}`,
      );
      const u = new URL(url);
      u.username = server.observer.role;
      u.password = server.observer.password;
      observerUrl = u.toString();
    }
    return { name, url, observerUrl, statements, tenants: created, drop };
  } catch (error) {
    await drop();
    throw error;
  }
}

/** A child process of the service: `node bin/profile-scan.js …`. */
export interface ServiceProcess {
  pid: number;
  /** What it printed (the last 64 KiB). */
  output(): string;
  alive(): boolean;
  /** SIGTERM (it finishes the items in flight), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** The environment of a service child: ours, minus the settings the benchmark decides, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'DATA_DIR',
    'PORT',
    'HOST',
    'WORKER_CONCURRENCY',
    'SIMULATOR_DELAY_MS',
    'LOG_LEVEL',
    'READ_LIMIT_MULTIPLIER',
    'PUBLIC_BASE_URL',
    'CLOCK_OFFSET_MS',
  ]) {
    delete base[name];
  }
  return { ...base, ...env };
}

/**
 * Starts `node bin/profile-scan.js …args` and resolves once its output
 * matches `ready` (returning the match), or rejects when it exits first or
 * after 120 s.
 */
export async function startServiceProcess(
  name: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  nodeFlags: string[] = [],
): Promise<{ process: ServiceProcess; match: RegExpMatchArray }> {
  const child = spawn(process.execPath, [...nodeFlags, 'bin/profile-scan.js', ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 128 * 1024) output = output.slice(-64 * 1024);
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const handle: ServiceProcess = {
    pid: child.pid!,
    output: () => output,
    alive,
    stop: async (graceMs = 60_000) => {
      if (!alive()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    const match = output.match(ready);
    if (match) return { process: handle, match };
    if (!alive()) throw new Error(`${name} exited during start:\n${output.slice(-2000)}`);
    if (Date.now() > deadline) {
      await handle.stop(1000);
      throw new Error(`${name} did not start in 120 s:\n${output.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `profile-scan worker`, with its default concurrency unless BENCH_WORKER_CONCURRENCY is set; `nodeFlags` e.g. --cpu-prof. */
export async function startWorker(
  database: ScenarioDatabase,
  dataDir: string,
  simulatorDelayMs: number,
  concurrency: number | null,
  nodeFlags: string[] = [],
): Promise<{ worker: ServiceProcess; concurrency: number }> {
  const { process: worker, match } = await startServiceProcess(
    'worker',
    ['worker', ...(concurrency === null ? [] : ['--concurrency', String(concurrency)])],
    { DATABASE_URL: database.url, DATA_DIR: dataDir, SIMULATOR_DELAY_MS: String(simulatorDelayMs), LOG_LEVEL: 'warn' },
    /started with concurrency (\d+)/,
    nodeFlags,
  );
  return { worker, concurrency: Number(match[1]) };
}

// ---- CPU time from /proc (Linux; elsewhere every figure is null) ----

/** USER_HZ: clock ticks per second of /proc/<pid>/stat times (100 on Linux). */
const TICKS_PER_SECOND = 100;

interface ProcTimes {
  ppid: number;
  /** utime + stime. */
  own: number;
  /** cutime + cstime: children that exited and were waited for. */
  reaped: number;
}

function procTimes(pid: number): ProcTimes | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Field 2 (the command) is in parentheses and may contain spaces; fields from 3 on follow it.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) };
}

export const ticksToMs = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;

/** CPU ticks (user + system) of one process so far, or null. */
export function processTicks(pid: number): number | null {
  return procTimes(pid)?.own ?? null;
}

/** What a process of the embedded server is, from its title (`ps`), for the CPU breakdown. */
export type ServerProcessKind = 'backends' | 'autovacuum' | 'wal writer' | 'other background';

function kindOf(pid: number): ServerProcessKind {
  let title = '';
  try {
    title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    // Gone since it was listed: counted with the other background processes (its ticks are tiny).
  }
  if (title.includes('autovacuum worker')) return 'autovacuum';
  if (title.includes('walwriter')) return 'wal writer';
  // Client sessions' titles are "postgres: user database host(port) state".
  if (/postgres: \S+ \S+ \S+\(\d+\)|postgres: \S+ \S+ \[local\]/.test(title)) return 'backends';
  return 'other background';
}

/** A reading of the embedded server's processes: each live child's kind and ticks, and the ticks of the postmaster and of every child it reaped. */
export interface ServerReading {
  children: Map<number, { kind: ServerProcessKind; ticks: number }>;
  /** The postmaster's own ticks plus cutime/cstime (children that exited and were waited for). */
  rest: number;
}

export function readServer(postmasterPid: number): ServerReading | null {
  const root = procTimes(postmasterPid);
  if (!root) return null;
  const children = new Map<number, { kind: ServerProcessKind; ticks: number }>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const t = procTimes(Number(entry));
    if (t && t.ppid === postmasterPid) children.set(Number(entry), { kind: kindOf(Number(entry)), ticks: t.own });
  }
  return { children, rest: root.own + root.reaped };
}

/**
 * The server's CPU ticks between two readings, in all (exact even when
 * processes come and go: the postmaster's cutime/cstime hold the exited
 * ones) and by kind of process. A process that exited in between (an
 * autovacuum worker, mostly, or a closed connection) counts under
 * 'exited', with the postmaster's own ticks. The backends of `leftOut`
 * (the benchmark's own session) are counted apart, in `leftOut`, and not in
 * `all`.
 */
export function serverTicksBetween(
  before: ServerReading,
  after: ServerReading,
  leftOut: readonly number[] = [],
): { all: number; byKind: Record<ServerProcessKind | 'exited', number>; leftOut: number } {
  const byKind: Record<ServerProcessKind | 'exited', number> = { backends: 0, autovacuum: 0, 'wal writer': 0, 'other background': 0, exited: 0 };
  let leftOutTicks = 0;
  for (const [pid, now] of after.children) {
    const ticks = now.ticks - (before.children.get(pid)?.ticks ?? 0);
    if (leftOut.includes(pid)) leftOutTicks += ticks;
    else byKind[now.kind] += ticks;
  }
  let goneBefore = 0;
  for (const [pid, then] of before.children) if (!after.children.has(pid)) goneBefore += then.ticks;
  byKind.exited = after.rest - before.rest - goneBefore;
  const all = Object.values(byKind).reduce((a, b) => a + b, 0);
  return { all, byKind, leftOut: leftOutTicks };
}

/** `name=value,…` as settings; a name that is not a plain setting name is refused. */
function benchSettings(spec: string | undefined): Array<{ name: string; value: string }> {
  return (spec ?? '')
    .split(',')
    .filter((entry) => entry.trim() !== '')
    .map((entry) => {
      const at = entry.indexOf('=');
      const name = entry.slice(0, at).trim();
      if (at < 1 || !/^[a-z_][a-z0-9_.]*$/.test(name)) throw new Error(`BENCH_PG_SETTINGS: "${entry}" is not name=value`);
      return { name, value: entry.slice(at + 1) };
    });
}
