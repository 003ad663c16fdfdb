/**
 * Network helpers for the client tests: a TCP proxy that can drop a
 * connection after the server answered (an uncertain write), and an HTTP
 * proxy that records every request it forwards (to count what a client
 * really fetched). Both listen on 127.0.0.1 and forward to the real server.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface DroppingProxy {
  url: string;
  /** Request lines and Idempotency-Key headers seen, in order. */
  seen: { line: string; idempotencyKey: string | null }[];
  /** Responses dropped so far. */
  dropped: number;
  close(): Promise<void>;
}

/**
 * Forwards bytes both ways. The first `drops` responses to requests whose
 * request line starts with `dropPrefix` are never delivered: as soon as the
 * server starts answering, both sockets are destroyed, so the client sees the
 * connection drop after the server did the work.
 */
export async function startDroppingProxy(target: string, dropPrefix: string, drops = 1): Promise<DroppingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const state: DroppingProxy = { url: '', seen: [], dropped: 0, close: async () => {} };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    let dropNextResponse = false;
    let buffered = '';
    let bodyLeft = 0;
    client.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // Inspect each request head as it arrives (keep-alive connections carry several).
      for (;;) {
        if (bodyLeft > 0) {
          const skipped = Math.min(bodyLeft, buffered.length);
          buffered = buffered.slice(skipped);
          bodyLeft -= skipped;
          if (bodyLeft > 0) break;
        }
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) break;
        const head = buffered.slice(0, end);
        const line = head.split('\r\n')[0];
        const key = /^idempotency-key:\s*(.+)$/im.exec(head)?.[1]?.trim() ?? null;
        state.seen.push({ line, idempotencyKey: key });
        if (line.startsWith(dropPrefix) && state.dropped < drops) dropNextResponse = true;
        bodyLeft = Number(/^content-length:\s*(\d+)$/im.exec(head)?.[1] ?? 0);
        buffered = buffered.slice(end + 4);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (dropNextResponse) {
        state.dropped++;
        dropNextResponse = false;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', closeBoth).on('error', closeBoth);
    upstream.on('close', closeBoth).on('error', closeBoth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

export interface RecordingProxy {
  url: string;
  /** `METHOD /path?query` of every forwarded request, in order. */
  requests: string[];
  /** The Idempotency-Key of each request (null without one), in the same order. */
  idempotencyKeys: (string | null)[];
  close(): Promise<void>;
}

/** An HTTP proxy (as a reverse proxy in front of `target`) that records each request. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const { hostname, port } = new URL(target);
  const requests: string[] = [];
  const idempotencyKeys: (string | null)[] = [];
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    idempotencyKeys.push((req.headers['idempotency-key'] as string | undefined) ?? null);
    const upstream = http.request({ host: hostname, port: Number(port), method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    idempotencyKeys,
    close: async () => {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
