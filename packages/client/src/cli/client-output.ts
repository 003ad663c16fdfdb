/**
 * Output of `profile-scan client`: exit codes, the usage error, plain text
 * tables, a progress bar and the mapping of client exceptions to exit codes
 * and messages. Human output goes to stdout (results) and stderr (progress,
 * notices); with `--json` stdout holds exactly one JSON document (or JSON
 * Lines for a streamed export), errors included.
 */
import { ConnectionError, ProfileScanError, RateLimitError } from '../index.js';

/** Exit codes of `profile-scan client` (documented in docs/client.md). */
export const EXIT = {
  ok: 0,
  /** A bug or an unexpected failure. */
  internal: 1,
  /** Bad command, flag or value; missing key or config; unreadable or malformed file. */
  usage: 2,
  /** The API answered with an error (4xx other than 429, 5xx after retries), or a response broke the contract. */
  api: 3,
  /** Rate limited: a 429 whose Retry-After exceeded --max-wait, or still limited after the retries. */
  rateLimited: 4,
  /** No response from the service (connection refused or dropped, timeout) after the retries. */
  connection: 5,
  /** An import preview was not confirmed (declined, or no terminal and no --yes): nothing was committed. */
  notConfirmed: 6,
  /** `watch --timeout` elapsed before every scan was terminal. */
  timeout: 7,
} as const;

export class UsageError extends Error {}

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  env: NodeJS.ProcessEnv;
}

export interface Output {
  json: boolean;
  /** A result line for people (suppressed with --json). */
  say(text: string): void;
  /** A notice on stderr (kept with --json: scripts read stdout). */
  note(text: string): void;
  /** The one JSON document of a command. */
  result(value: unknown): void;
}

export function output(io: Io, json: boolean): Output {
  return {
    json,
    say: (text) => {
      if (!json) io.stdout.write(`${text}\n`);
    },
    note: (text) => void io.stderr.write(`${text}\n`),
    result: (value) => {
      if (json) io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
  };
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof RateLimitError) return EXIT.rateLimited;
  if (error instanceof ConnectionError) return EXIT.connection;
  if (error instanceof ProfileScanError) return error.code === 'wait_timeout' ? EXIT.timeout : EXIT.api;
  return EXIT.internal;
}

/** Reports a failure: one line (plus row details) on stderr, or `{"error": …}` on stdout with --json. */
export function reportFailure(io: Io, json: boolean, error: unknown): number {
  const code = exitCodeOf(error);
  if (json) {
    const body =
      error instanceof ProfileScanError
        ? error.toJSON()
        : {
            name: error instanceof UsageError ? 'UsageError' : 'Error',
            code: error instanceof UsageError ? 'usage_error' : 'internal_error',
            message: error instanceof Error ? error.message : String(error),
          };
    io.stdout.write(`${JSON.stringify({ error: { ...body, exit_code: code } }, null, 2)}\n`);
    return code;
  }
  const message = error instanceof Error ? error.message : String(error);
  let line = `profile-scan client: ${message}`;
  if (error instanceof ProfileScanError && error.request_id) line += ` (request_id ${error.request_id})`;
  if (error instanceof RateLimitError) line += `; retry after ${error.retry_after_seconds} s`;
  io.stderr.write(`${line}\n`);
  return code;
}

/** A plain text table: columns padded to their widest cell; numbers right-aligned. */
export function table(headers: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const cells = rows.map((row) => row.map((c) => (c === null || c === undefined ? '—' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || r[i] === null || r[i] === undefined));
  const line = (row: string[]) =>
    row
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** `key  value` lines, keys padded to the longest. */
export function keyValues(rows: [string, string | number | boolean | null | undefined][]): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v === null || v === undefined ? '—' : String(v)}`).join('\n');
}

/**
 * A progress bar on stderr: redrawn in place on a terminal, otherwise printed
 * as a new line only when the text changes (logs stay readable).
 */
export function progressBar(io: Io, enabled: boolean) {
  let last = '';
  return {
    update(done: number, total: number, label: string) {
      if (!enabled) return;
      const width = 24;
      const ratio = total > 0 ? Math.min(1, done / total) : 1;
      const filled = Math.round(ratio * width);
      const text = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${done}/${total} ${label}`;
      if (text === last) return;
      last = text;
      if (io.stderr.isTTY) io.stderr.write(`\r\x1b[2K${text.slice(0, (io.stderr.columns ?? 120) - 1)}`);
      else io.stderr.write(`${text}\n`);
    },
    done() {
      if (enabled && io.stderr.isTTY && last) io.stderr.write('\n');
    },
  };
}
