/**
 * Process lifecycle of the long-running roles (`serve`, `worker`).
 *
 * Signal handlers are installed first thing at start-up (bin/profile-scan.js,
 * for `serve` and `worker`, before the rest of the CLI is even loaded), so a SIGTERM that arrives while the
 * process is still starting is never lost nor fatal: it is remembered, and
 * the role shuts down cleanly as soon as it can (`onShutdown` runs at once
 * when the signal already came). A second signal exits at once.
 */
type Signal = 'SIGINT' | 'SIGTERM';

let received: Signal | null = null;
const listeners: ((signal: Signal) => void)[] = [];

export function installSignalHandlers(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (received !== null) {
        process.stderr.write(`profile-scan: second ${signal}: exiting now without draining\n`);
        process.exit(signal === 'SIGINT' ? 130 : 143);
      }
      received = signal;
      for (const listener of listeners.splice(0)) listener(signal);
    });
  }
}

/** Calls `listener` on the first SIGINT / SIGTERM (at once if one already came). */
export function onShutdown(listener: (signal: Signal) => void): void {
  if (received !== null) listener(received);
  else listeners.push(listener);
}

/** Resolves with `work`'s result, or rejects after `ms` (the work goes on; the caller stops waiting). */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), Math.max(0, ms));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
