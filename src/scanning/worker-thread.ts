/**
 * The in-process scan worker of `serve`, on a thread of its own
 * (node:worker_threads): its event loop, its database pool. Collection,
 * storing and check evaluation then never delay an API response on the main
 * thread, whatever backlog the worker drains (image work runs in sharp's own
 * thread pool in either case).
 *
 * `startWorkerThread` is called on the main thread; the same file is the
 * thread's entry (it runs `runThread` when loaded as a worker). The thread
 * connects to the database URL the main thread already resolved (the
 * embedded PostgreSQL is started once, by the main thread).
 *
 * It knows nothing of HTTP; it is `profile-scan worker` inside `serve`.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Config } from '../config.js';

interface ThreadData {
  config: Config;
  databaseUrl: string;
  concurrency: number;
}

type ToThread = { type: 'stop' };
type FromThread = { type: 'log'; message: string } | { type: 'started' } | { type: 'stopped' } | { type: 'failed'; message: string };

export interface WorkerThreadHandle {
  stop(): Promise<void>;
}

/** Starts the scan worker thread and waits until it is claiming items. */
export async function startWorkerThread(options: {
  config: Config;
  databaseUrl: string;
  concurrency: number;
  log: (message: string) => void;
}): Promise<WorkerThreadHandle> {
  // sharp (libvips) must be loaded by the main thread before any worker
  // thread loads it, or unloading the thread can crash the process.
  await import('sharp');
  const data: ThreadData = { config: options.config, databaseUrl: options.databaseUrl, concurrency: options.concurrency };
  const self = import.meta.url;
  let thread: Worker;
  if (self.endsWith('.ts')) {
    // Running from the TypeScript sources: the thread needs tsx's loader too.
    const tsx = import.meta.resolve('tsx/esm/api');
    const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(self)}); })`;
    thread = new Worker(boot, { eval: true, workerData: data });
  } else {
    thread = new Worker(new URL(self), { workerData: data });
  }

  let stopping = false;
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  const stopped = new Promise<void>((resolve) => {
    thread.on('message', (message: FromThread) => {
      if (message.type === 'log') options.log(message.message);
      if (message.type === 'stopped') resolve();
    });
  });
  await new Promise<void>((resolve, reject) => {
    thread.on('message', (message: FromThread) => {
      if (message.type === 'started') resolve();
      if (message.type === 'failed') reject(new Error(`scan worker thread: ${message.message}`));
    });
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`scan worker thread exited with code ${code} while starting`)));
  });
  thread.on('error', (error) => options.log(`scan worker thread failed: ${error.message}`));
  void exited.then(() => {
    if (!stopping) options.log('ERROR: the scan worker thread exited unexpectedly; this process no longer scans');
  });

  return {
    stop: async () => {
      stopping = true;
      thread.postMessage({ type: 'stop' } satisfies ToThread);
      await Promise.race([stopped, exited]);
      await exited;
    },
  };
}

async function runThread(data: ThreadData): Promise<void> {
  const port = parentPort!;
  const send = (message: FromThread) => port.postMessage(message);
  const log = (message: string) => send({ type: 'log', message });
  const [{ openRuntime }, { startScanWorker, workerPoolSize }, { OffsetClock, systemClock }] = await Promise.all([
    import('../runtime.js'),
    import('./worker.js'),
    import('../clock.js'),
  ]);
  const config: Config = { ...data.config, databaseUrl: data.databaseUrl };
  let runtime;
  try {
    runtime = await openRuntime(config, { poolSize: workerPoolSize(data.concurrency), log });
  } catch (error) {
    send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  const worker = await startScanWorker({ runtime, config, clock: config.clockOffsetMs !== 0 ? new OffsetClock(config.clockOffsetMs) : systemClock, concurrency: data.concurrency, log });
  send({ type: 'started' });
  port.on('message', (message: ToThread) => {
    if (message.type !== 'stop') return;
    void (async () => {
      await worker.stop();
      await runtime.close();
      send({ type: 'stopped' });
      port.close();
    })();
  });
}

if (!isMainThread && parentPort && (workerData as ThreadData | undefined)?.databaseUrl) {
  void runThread(workerData as ThreadData);
}
