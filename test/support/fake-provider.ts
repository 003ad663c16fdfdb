/**
 * A local stand-in for the external data provider (`POST /v1/collect`, see
 * docs/collectors.md), for tests and manual runs. It answers with a chosen
 * behaviour: valid deterministic data, faults (slow, 5xx, 429, drop, garbage,
 * wrong shape, oversized) or a literal response. It does not emulate real
 * profiles: the data only depends on the request's kind and mode.
 *
 * It also observes its callers: calls in flight now and at most
 * (`maxInFlight`), and when each call started and ended (`callLog`), so
 * tests can assert concurrency and rate limits. `rateLimitedFirst(n)` answers
 * 429 with Retry-After to the first n calls for each URL and mode.
 *
 * Standalone: node --import tsx test/support/fake-provider.ts --port 9099 [--behavior ok] [--api-key KEY]
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pathToFileURL } from 'node:url';

export const NAMED_BEHAVIORS = [
  'ok',
  'inaccessible',
  'slow', // answers 'ok' after slowMs
  'slow_body', // sends headers and half the body, then stalls for slowMs
  'error_500',
  'unavailable_503', // with Retry-After: retryAfterSeconds
  'rate_limited', // 429 with Retry-After: retryAfterSeconds
  'not_found',
  'unauthorized',
  'redirect',
  'garbage', // 200, application/json, not JSON
  'wrong_shape_gif', // screenshot media_type 'image/gif'
  'wrong_shape_missing', // 'ok' answer without captured_at and screenshots
  'oversized', // 200, chunked body larger than oversizeBytes
  'oversized_declared', // 200, Content-Length above 50 MiB
  'drop', // headers and part of the body, then the socket is destroyed
] as const;

export type NamedBehavior = (typeof NAMED_BEHAVIORS)[number];

export interface LiteralResponse {
  status: number;
  headers?: Record<string, string>;
  body: string | Buffer;
}

/**
 * A name, a literal response, or a function of the request body that picks
 * either (e.g. a behaviour per person URL, for end-to-end runs).
 */
export type Behavior = NamedBehavior | LiteralResponse | ((request: CollectBody) => LiteralResponse | NamedBehavior);

export interface CollectBody {
  kind: 'person' | 'company_page';
  mode: 'full_profile' | 'activity';
  url: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeProviderOptions {
  port?: number;
  /** Behaviour for every call, or one per call (the last one repeats). */
  behavior?: Behavior | Behavior[];
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string;
  slowMs?: number;
  retryAfterSeconds?: number;
  /**
   * Retry-After value of 'rate_limited' and 'unavailable_503' answers, verbatim
   * (e.g. an HTTP date, or garbage); null sends no Retry-After. Default:
   * String(retryAfterSeconds).
   */
  retryAfter?: string | null;
  oversizeBytes?: number;
}

export interface CallRecord {
  /** Epoch milliseconds (sub-millisecond precision) when the request arrived. */
  startedAt: number;
  /** When its response was finished or its connection closed; null while in flight. */
  endedAt: number | null;
}

export interface FakeProvider {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  /** Requests received on /v1/collect. */
  readonly calls: number;
  readonly requests: readonly RecordedRequest[];
  /** Calls to /v1/collect being answered right now. */
  readonly inFlight: number;
  /** The most calls that were ever in flight at once. */
  readonly maxInFlight: number;
  /** Every call to /v1/collect in arrival order. */
  readonly callLog: readonly CallRecord[];
  setBehavior(behavior: Behavior | Behavior[]): void;
  close(): Promise<void>;
}

/** A real 1x1 PNG (one opaque pixel). */
export const PNG_1X1_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export const CAPTURED_AT = '2024-05-01T12:00:00Z';

const MiB = 1024 * 1024;

/** The deterministic 'ok' answer for a request. */
export function okAnswer(request: CollectBody): Record<string, unknown> {
  const isPerson = request.kind === 'person';
  const activity =
    request.mode === 'activity'
      ? [
          {
            external_id: 'evt-1',
            event_type: 'post',
            actor: { kind: request.kind, url: request.url, name: isPerson ? 'Ada Example' : 'Example Corp' },
            source_url: 'https://pronet.example/posts/evt-1',
            text: 'Shipping the new release today.',
            occurred_at: '2024-04-30T09:15:00Z',
            counts: { reactions: 12, comments: 3, reposts: null },
          },
        ]
      : null;
  return {
    status: 'ok',
    captured_at: CAPTURED_AT,
    profile: isPerson
      ? {
          name: 'Ada Example',
          headline: 'Engineer at Example Corp',
          about: null,
          location: 'Berlin',
          has_photo: true,
          has_banner: false,
          custom_url: true,
          connections: 500,
          followers: 812,
          positions: [
            { title: 'Engineer', company: 'Example Corp', start: '2021-03', end: null, description: null },
            { title: 'Intern', company: null, start: '2019-06', end: '2019-09', description: 'Tooling.' },
          ],
          skills: ['TypeScript', 'PostgreSQL'],
          featured_count: 0,
          education_count: 1,
          recommendations_received: 2,
          languages: ['English', 'German'],
          certifications_count: null,
        }
      : null,
    activity,
    company: isPerson
      ? null
      : { name: 'Example Corp', tagline: 'We make examples', industry: 'Software', follower_count: 1200, website: 'https://example.com' },
    missing_sections: isPerson ? ['about'] : [],
    screenshots: [{ section: isPerson ? 'top_card' : 'company', media_type: 'image/png', data_base64: PNG_1X1_BASE64 }],
  };
}

export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  let plan: Behavior[] = toPlan(options.behavior ?? 'ok');
  let calls = 0;
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const slowMs = options.slowMs ?? 5_000;
  const retryAfterSeconds = options.retryAfterSeconds ?? 1;
  const retryAfter = options.retryAfter === undefined ? String(retryAfterSeconds) : options.retryAfter;
  const retryHeaders: Record<string, string> = {
    'content-type': 'application/json',
    ...(retryAfter === null ? {} : { 'retry-after': retryAfter }),
  };
  let inFlight = 0;
  let maxInFlight = 0;
  const callLog: CallRecord[] = [];
  const oversizeBytes = options.oversizeBytes ?? 50 * MiB + 1;

  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const server = createServer((req, res) => {
    if (req.method === 'POST' && new URL(req.url ?? '/', 'http://fake').pathname === '/v1/collect') {
      const record: CallRecord = { startedAt: performance.timeOrigin + performance.now(), endedAt: null };
      callLog.push(record);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      res.once('close', () => {
        record.endedAt = performance.timeOrigin + performance.now();
        inFlight -= 1;
      });
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      if (req.method !== 'POST' || path !== '/v1/collect') return send(res, { status: 404, body: '' });
      const behavior = plan[Math.min(calls, plan.length - 1)];
      calls += 1;
      requests.push({ method: req.method, path, headers: req.headers, body });
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return send(res, json(401, { error: 'unauthorized' }));
      }
      const request = parseCollectBody(body);
      if (request === null) return send(res, json(400, { error: 'bad request' }));
      respond(behavior, request, res);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function respond(behavior: Behavior, request: CollectBody, res: ServerResponse): void {
    if (typeof behavior === 'function') {
      const chosen = behavior(request);
      return typeof chosen === 'string' ? respond(chosen, request, res) : send(res, chosen);
    }
    if (typeof behavior === 'object') return send(res, behavior);
    switch (behavior) {
      case 'ok':
        return send(res, json(200, okAnswer(request)));
      case 'inaccessible':
        return send(res, json(200, { status: 'inaccessible', reason: 'private_profile' }));
      case 'slow':
        return later(slowMs, () => {
          if (!res.destroyed) send(res, json(200, okAnswer(request)));
        });
      case 'slow_body': {
        const text = JSON.stringify(okAnswer(request));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.write(text.slice(0, text.length >> 1));
        return later(slowMs, () => res.end(text.slice(text.length >> 1)));
      }
      case 'error_500':
        return send(res, json(500, { error: 'internal' }));
      case 'unavailable_503':
        return send(res, { ...json(503, { error: 'unavailable' }), headers: retryHeaders });
      case 'rate_limited':
        return send(res, { ...json(429, { error: 'rate limited' }), headers: retryHeaders });
      case 'not_found':
        return send(res, json(404, { error: 'not found' }));
      case 'unauthorized':
        return send(res, json(401, { error: 'unauthorized' }));
      case 'redirect':
        return send(res, { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' }, body: '' });
      case 'garbage':
        return send(res, { status: 200, headers: { 'content-type': 'application/json' }, body: '<html>oops</html>' });
      case 'wrong_shape_gif': {
        const answer = okAnswer(request);
        answer.screenshots = [{ section: 'top_card', media_type: 'image/gif', data_base64: PNG_1X1_BASE64 }];
        return send(res, json(200, answer));
      }
      case 'wrong_shape_missing': {
        const answer = okAnswer(request);
        delete answer.captured_at;
        delete answer.screenshots;
        return send(res, json(200, answer));
      }
      case 'oversized':
        return streamOversized(res, oversizeBytes);
      case 'oversized_declared':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(64 * MiB) });
        res.write('{"status":"ok"');
        return; // never finishes; the client must give up on the header alone
      case 'drop': {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
        res.write('{"status":"ok","captured_at":"2024-05-');
        return later(20, () => res.socket?.destroy());
      }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get calls() {
      return calls;
    },
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    callLog,
    setBehavior(behavior) {
      plan = toPlan(behavior);
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * 429 with `Retry-After: <retryAfter>` (default '1'; null: no header) to the
 * first `times` calls for each (kind, mode, url), then `then` (default 'ok').
 */
export function rateLimitedFirst(
  times: number,
  options: { retryAfter?: string | null; then?: NamedBehavior } = {},
): (request: CollectBody) => LiteralResponse | NamedBehavior {
  const seen = new Map<string, number>();
  const retryAfter = options.retryAfter === undefined ? '1' : options.retryAfter;
  return (request) => {
    const key = `${request.kind} ${request.mode} ${request.url}`;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    if (count > times) return options.then ?? 'ok';
    return {
      status: 429,
      headers: { 'content-type': 'application/json', ...(retryAfter === null ? {} : { 'retry-after': retryAfter }) },
      body: JSON.stringify({ error: 'rate limited' }),
    };
  };
}

function toPlan(behavior: Behavior | Behavior[]): Behavior[] {
  const plan = Array.isArray(behavior) ? behavior : [behavior];
  if (plan.length === 0) throw new Error('fake provider: empty behaviour list');
  return plan;
}

function json(status: number, value: unknown): LiteralResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}

function send(res: ServerResponse, response: LiteralResponse): void {
  const body = typeof response.body === 'string' ? Buffer.from(response.body, 'utf8') : response.body;
  res.writeHead(response.status, { ...response.headers, 'content-length': String(body.length) });
  res.end(body);
}

/** Chunked (no Content-Length) so the client must count bytes as they arrive. */
function streamOversized(res: ServerResponse, total: number): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 0x61); // 'a'
  let sent = 0;
  res.write('{"status":"ok","padding":"');
  const pump = () => {
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end('"}');
  };
  res.on('close', () => res.removeAllListeners('drain'));
  pump();
}

function parseCollectBody(text: string): CollectBody | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return null;
    const { kind, mode, url } = value as Record<string, unknown>;
    if (kind !== 'person' && kind !== 'company_page') return null;
    if (mode !== 'full_profile' && mode !== 'activity') return null;
    if (typeof url !== 'string' || url === '') return null;
    return { kind, mode, url };
  } catch {
    return null;
  }
}

// Standalone mode for manual runs.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const port = Number(arg('--port') ?? '9099');
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error('fake-provider: --port must be an integer between 0 and 65535');
    process.exit(2);
  }
  const behavior = arg('--behavior') ?? 'ok';
  if (!(NAMED_BEHAVIORS as readonly string[]).includes(behavior)) {
    console.error(`fake-provider: --behavior must be one of ${NAMED_BEHAVIORS.join(', ')}`);
    process.exit(2);
  }
  const provider = await startFakeProvider({
    port,
    behavior: behavior as NamedBehavior,
    apiKey: arg('--api-key'),
  });
  console.log(provider.url);
  const stop = () => void provider.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
