/**
 * A local stand-in for a provider's image CDN (the hosts that serve the
 * photos, banners and logos a record links to): an HTTPS server on
 * 127.0.0.1 with a certificate from a CA made for the test run, so the safe
 * fetcher (src/scanning/media/safe-fetch.ts) reaches it only when told to
 * trust that CA (EVIDENCE_FETCH_CA_FILE) and to allow loopback
 * (EVIDENCE_FETCH_ALLOW_ADDRESSES).
 *
 * The certificates are made with the `openssl` command line (OpenSSL 3, a
 * dependency of Debian's ca-certificates): an EC P-256 CA, and a server
 * certificate for localhost, cdn.profile-scan.test (a name no DNS server
 * knows: tests resolve it themselves), 127.0.0.1 and 127.0.0.2, valid for two days.
 *
 * Paths:
 *   /photo.jpg /banner.png /logo.webp   real images (sharp), of these types
 *   /not-an-image                       200 text/plain
 *   /missing                            404
 *   /redirect?to=URL                    302 to URL (relative or absolute)
 *   /redirect-loop                      302 to itself, for ever
 *   /big-declared                       200 with Content-Length maxBytes + 1, then nothing
 *   /big-streamed                       200 chunked, maxBytes + 1 bytes
 *   /slow-body                          200, one byte every 200 ms, for ever
 *   /slow-headers                       no answer at all
 * It counts the requests per path (`hits`) and every request (`total`).
 *
 * Standalone (for a manual run of the Bright Data fake, docs/collectors.md):
 *   node --import tsx test/support/fake-cdn.ts --port 9443
 * prints its base URL and the EVIDENCE_* settings that let the service download from it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';

const run = promisify(execFile);

export interface TestCertificates {
  dir: string;
  /** The CA certificate (PEM file) a fetcher must be told to trust. */
  caFile: string;
  key: string;
  cert: string;
}

let made: Promise<TestCertificates> | undefined;

/** A CA and a server certificate for localhost, cdn.profile-scan.test, 127.0.0.1 and 127.0.0.2, made once per test process. */
export function testCertificates(): Promise<TestCertificates> {
  made ??= (async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-cdn-'));
    const at = (name: string) => path.join(dir, name);
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    await run('openssl', ['req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '2', '-subj', '/CN=profile-scan test CA']);
    await run('openssl', ['req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=localhost']);
    await fs.writeFile(
      at('server.ext'),
      'subjectAltName=DNS:localhost,DNS:cdn.profile-scan.test,IP:127.0.0.1,IP:127.0.0.2\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
    );
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      at('server.csr'),
      '-CA',
      at('ca.pem'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-out',
      at('server.pem'),
      '-days',
      '2',
      '-extfile',
      at('server.ext'),
    ]);
    return { dir, caFile: at('ca.pem'), key: await fs.readFile(at('server.key'), 'utf8'), cert: await fs.readFile(at('server.pem'), 'utf8') };
  })();
  return made;
}

export interface FakeCdn {
  /** https://localhost:PORT (no trailing slash). */
  baseUrl: string;
  port: number;
  /** The host entry that allows it: localhost:PORT. */
  hostEntry: string;
  caFile: string;
  hits: Map<string, number>;
  readonly total: number;
  images: { jpeg: Buffer; png: Buffer; webp: Buffer };
  close(): Promise<void>;
}

/** Images of each evidence type, 400 x 300, from sharp (the same bytes every run). */
export async function testImages(): Promise<FakeCdn['images']> {
  const base = () => sharp({ create: { width: 400, height: 300, channels: 3, background: '#3b7dd8' } });
  return {
    jpeg: await base().jpeg({ quality: 80 }).toBuffer(),
    png: await base().png().toBuffer(),
    webp: await base().webp({ quality: 80 }).toBuffer(),
  };
}

export async function startFakeCdn(options: { host?: string; maxBytes?: number; port?: number } = {}): Promise<FakeCdn> {
  const certificates = await testCertificates();
  const images = await testImages();
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const hits = new Map<string, number>();
  let total = 0;
  const sockets = new Set<Duplex>();
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
    total++;
    const url = new URL(req.url ?? '/', 'https://cdn.invalid');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const image = (type: string, bytes: Buffer) => {
      res.writeHead(200, { 'content-type': type, 'content-length': bytes.length });
      res.end(bytes);
    };
    switch (url.pathname) {
      case '/photo.jpg':
        return image('image/jpeg', images.jpeg);
      case '/banner.png':
        return image('image/png', images.png);
      case '/logo.webp':
        return image('image/webp', images.webp);
      case '/not-an-image':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('hello');
      case '/redirect':
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
        return res.end();
      case '/redirect-loop':
        res.writeHead(302, { location: '/redirect-loop' });
        return res.end();
      case '/big-declared':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': maxBytes + 1 });
        res.flushHeaders();
        return; // the body never comes
      case '/big-streamed': {
        res.writeHead(200, { 'content-type': 'image/png' });
        const chunk = Buffer.alloc(64 * 1024, 7);
        let sent = 0;
        const pump = () => {
          while (sent <= maxBytes) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        return pump();
      }
      case '/slow-body': {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(images.png.subarray(0, 8));
        const timer = setInterval(() => res.write(Buffer.from([0])), 200);
        timers.add(timer);
        res.on('close', () => {
          clearInterval(timer);
          timers.delete(timer);
        });
        return;
      }
      case '/slow-headers':
        return; // no answer
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('not found');
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `https://localhost:${port}`,
    port,
    hostEntry: `localhost:${port}`,
    caFile: certificates.caFile,
    hits,
    get total() {
      return total;
    },
    images,
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// Standalone mode for manual runs.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--port');
  const cdn = await startFakeCdn({ port: at >= 0 ? Number(args[at + 1]) : 0 });
  console.log(cdn.baseUrl);
  console.log(`EVIDENCE_IMAGE_HOSTS=${cdn.hostEntry} EVIDENCE_FETCH_ALLOW_ADDRESSES=127.0.0.1/32 EVIDENCE_FETCH_CA_FILE=${cdn.caFile}`);
  const stop = () => void cdn.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
