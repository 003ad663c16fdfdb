/**
 * Child processes of the benchmark: the service (`node bin/profile-scan.js
 * serve`) and the baseline server, each in its own process so that the load
 * generator never shares their event loop. Output goes to a log file; a
 * process is ready when its port answers HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export interface Child {
  name: string;
  origin: string;
  pid: number;
  /** SIGTERM, then wait for a clean exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

export interface StartOptions {
  name: string;
  cwd: string;
  /** Arguments of `node` (flags, script, script arguments). */
  args: string[];
  env: Record<string, string>;
  port: number;
  logFile: string;
  readyTimeoutMs?: number;
}

/** Starts `node …args` and resolves once http://127.0.0.1:port answers. */
export async function startChild(options: StartOptions): Promise<Child> {
  const log = fs.openSync(options.logFile, 'a');
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  const origin = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const tail = fs.readFileSync(options.logFile, 'utf8').trim().split('\n').slice(-5).join('\n');
      throw new Error(`${options.name} exited before it was ready (see ${options.logFile}):\n${tail}`);
    }
    try {
      await fetch(origin, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`${options.name} did not answer on ${origin} in time (see ${options.logFile})`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    name: options.name,
    origin,
    pid: child.pid!,
    stop: async (graceMs = 30_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited(child);
      clearTimeout(timer);
    },
  };
}
