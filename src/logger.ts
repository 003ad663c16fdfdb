/**
 * The one logger of every role (pino): HTTP requests (Fastify uses this
 * instance), lifecycle, the scan worker (also on its thread: its records are
 * forwarded to the main thread's logger), maintenance and CLI diagnostics.
 * JSON lines on stderr, for every role (stdout carries only what a command
 * is asked for: the admin commands' results, the first run's one-time
 * secret). Lifecycle records (listening, started, stopping, stopped) are
 * written at info even when LOG_LEVEL is warn or error (`lifecycle`), so a
 * supervisor or a test can see a process come up; `silent` silences them too.
 *
 * Secrets never reach a record: the Authorization, Cookie and Set-Cookie
 * headers and every field named like a key, secret, password or token are
 * censored by pino's redaction; request URLs are logged with the public
 * report token (`/public/reports/<token>`), a private link's token
 * (`/shared/people/<token>`) and secret-looking query parameters replaced.
 * The message strings we write ourselves never carry secrets (they name
 * settings, never their values).
 */
import { Writable } from 'node:stream';
import { pino, stdSerializers, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

export const REDACTED = '[redacted]';

/** Paths censored in every record (pino redaction syntax; `*` is one level of any key). */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'authorization',
  'cookie',
  'apiKey',
  'secret',
  'password',
  'token',
  'secretAccessKey',
  'sessionToken',
  '*.authorization',
  '*.cookie',
  '*.apiKey',
  '*.api_key',
  '*.secret',
  '*.password',
  '*.token',
  '*.secretAccessKey',
  '*.sessionToken',
];

const SECRET_QUERY = /([?&](?:token|key|api_key|secret|password|access_token|session)=)[^&#]*/gi;

/** A URL (path + query) fit for a log: the public report's and private links' tokens and secret-looking query values replaced. */
export function redactUrl(url: string): string {
  return url.replace(/(\/(?:public\/reports|shared\/people)\/)[^/?#]+/g, `$1${REDACTED}`).replace(SECRET_QUERY, `$1${REDACTED}`);
}

/** Free text (an error message, a line from a child process) with bearer tokens and the public token masked. */
export function redactText(text: string): string {
  return redactUrl(text)
    .replace(/(Bearer\s+)[\x21-\x7e]+/gi, `$1${REDACTED}`)
    .replace(/\bpsk_(?:test|live)_[A-Za-z0-9_-]+/g, REDACTED);
}

interface RequestLike {
  id?: string;
  method?: string;
  url?: string;
  ip?: string;
  routeOptions?: { url?: string };
  socket?: { remotePort?: number };
}

const serializers = {
  req: (req: RequestLike) => ({
    id: req.id,
    method: req.method,
    url: req.url === undefined ? undefined : redactUrl(req.url),
    route: req.routeOptions?.url,
    remoteAddress: req.ip,
  }),
  res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
  err: (error: Error) => {
    const shown = stdSerializers.err(error);
    if (typeof shown.message === 'string') shown.message = redactText(shown.message);
    if (typeof shown.stack === 'string') shown.stack = redactText(shown.stack);
    return shown;
  },
};

export type Role = 'serve' | 'worker' | 'worker-thread' | 'migrate' | 'admin' | 'test';

export function loggerOptions(level: string, role: Role): LoggerOptions {
  return {
    level,
    base: { role, pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers,
    timestamp: pino.stdTimeFunctions.isoTime,
  };
}

/** The process's logger: JSON lines on stderr, or on `destination` (a file descriptor or a stream). */
export function createLogger(level: string, role: Role, destination: number | DestinationStream = 2): Logger {
  const stream = typeof destination === 'number' ? pino.destination({ fd: destination, sync: true }) : destination;
  return pino(loggerOptions(level, role), stream);
}

/** For lifecycle records: `logger` at info at least (unless it is silent). */
export function lifecycle(logger: Logger): Logger {
  const quiet = logger.level === 'silent' || logger.levelVal <= pino.levels.values.info;
  return quiet ? logger : logger.child({}, { level: 'info' });
}

/**
 * A logger whose records are handed, serialized, to `write` (one JSON line
 * each): the worker thread posts them to the main thread, which writes them
 * to its own destination (forwardLine).
 */
export function lineLogger(level: string, role: Role, write: (line: string) => void): Logger {
  return pino(loggerOptions(level, role), new Writable({ write: (chunk, _encoding, done) => (write(String(chunk)), done()) }));
}

/** Writes a record serialized by another logger (the worker thread's) to `logger`'s destination. */
export function forwardLine(logger: Logger, line: string): void {
  const stream = (logger as unknown as Record<symbol, DestinationStream | undefined>)[pino.symbols.streamSym];
  stream?.write(line.endsWith('\n') ? line : `${line}\n`);
}

/** A logger that hands each record's message to `log` (for callers that pass a plain function, e.g. tests). */
export function loggerFromFunction(log: (message: string) => void): Logger {
  return pino(
    { level: 'info', redact: { paths: REDACT_PATHS, censor: REDACTED }, serializers },
    {
      write: (line: string) => {
        try {
          const record = JSON.parse(line) as { msg?: string; err?: { message?: string } };
          log(record.err?.message && record.msg !== record.err.message ? `${record.msg ?? ''} (${record.err.message})` : (record.msg ?? ''));
        } catch {
          log(line);
        }
      },
    },
  );
}

/** Says loudly that test-only switches are on (PROFILE_SCAN_TEST_HOOKS=1). */
export function announceTestHooks(logger: Logger, hooks: { enabled: boolean }, settings: Record<string, number>): void {
  if (!hooks.enabled) return;
  logger.warn(
    { test_hooks: settings },
    'TEST HOOKS ENABLED (PROFILE_SCAN_TEST_HOOKS=1): test-only switches are honoured; never run a production service like this',
  );
}
