/**
 * The safe fetcher (src/scanning/media/safe-fetch.ts) against a real local
 * HTTPS CDN (test/support/fake-cdn.ts): what it downloads, and one test per
 * refusal. The CDN listens on loopback: every success below is allowed
 * explicitly (its CA trusted, 127.0.0.1 allowed); every refusal of loopback
 * runs without that setting and proves the CDN saw no request.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigError, parseEvidenceFetch } from '../../src/config.js';
import { MAX_MEDIA_BYTES } from '../../src/scanning/media/media-types.js';
import { addressAllowed, DEFAULT_FETCH_MAX_BYTES, DEFAULT_IMAGE_HOSTS, parseAllowedRange, type SafeFetchSettings } from '../../src/domain/fetch-policy.js';
import { SafeFetcher, SafeFetchError, type Resolver, type SafeFetchErrorCode } from '../../src/scanning/media/safe-fetch.js';
import { startFakeCdn, testCertificates, type FakeCdn } from '../support/fake-cdn.js';

const MAX_BYTES = 256 * 1024;
let cdn: FakeCdn;
let ca: string;

/** A second HTTPS server on 127.0.0.2 (loopback too, but not allowed): it must never see a request. */
let inside: { port: number; hits: number; close: () => Promise<void> };

before(async () => {
  cdn = await startFakeCdn({ maxBytes: MAX_BYTES });
  ca = await fs.readFile(cdn.caFile, 'utf8');
  const certificates = await testCertificates();
  const counter = { hits: 0 };
  const server = createServer({ key: certificates.key, cert: certificates.cert }, (_req, res) => {
    counter.hits++;
    res.writeHead(200, { 'content-type': 'image/jpeg' });
    res.end(cdn.images.jpeg);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  inside = {
    port: (server.address() as AddressInfo).port,
    get hits() {
      return counter.hits;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
});
after(async () => {
  await cdn?.close();
  await inside?.close();
});

/** Settings that reach the CDN: its host, its CA, loopback 127.0.0.1 allowed. */
function reaching(overrides: Partial<SafeFetchSettings> = {}): SafeFetchSettings {
  return { hosts: [cdn.hostEntry], allowedAddresses: ['127.0.0.1/32'], extraCa: ca, maxBytes: MAX_BYTES, timeoutMs: 5_000, maxRedirects: 3, ...overrides };
}

async function refused(fetching: Promise<unknown>, code: SafeFetchErrorCode): Promise<SafeFetchError> {
  let caught: unknown;
  try {
    await fetching;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof SafeFetchError, `refused with ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  return caught;
}

describe('safe fetcher: what it downloads', () => {
  test('an image on an allowed host, over https with its CA trusted by configuration and its address allowed: the bytes', async () => {
    const bytes = await new SafeFetcher(reaching()).fetch(`${cdn.baseUrl}/photo.jpg`);
    assert.ok(bytes.equals(cdn.images.jpeg));
  });

  test('a redirect to another path on an allowed host is followed', async () => {
    const bytes = await new SafeFetcher(reaching()).fetch(`${cdn.baseUrl}/redirect?to=/banner.png`);
    assert.ok(bytes.equals(cdn.images.png));
  });

  test('the connection goes to the address that was checked: a name only our resolver knows, resolved once, then answered otherwise', async () => {
    let calls = 0;
    // First answer loopback 127.0.0.1 (allowed here); any later answer a private address.
    const resolver: Resolver = async () => (calls++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.1', family: 4 }]);
    const fetcher = new SafeFetcher(reaching({ hosts: [`cdn.profile-scan.test:${cdn.port}`] }), resolver);
    const bytes = await fetcher.fetch(`https://cdn.profile-scan.test:${cdn.port}/logo.webp`);
    assert.ok(bytes.equals(cdn.images.webp));
    assert.equal(calls, 1, 'resolved once; no second lookup at connect time');
  });

  test('defaults: LinkedIn image hosts on 443, 10 MiB (the evidence limit), 10 s, 3 redirects, nothing allowed besides public addresses', () => {
    assert.deepEqual(DEFAULT_IMAGE_HOSTS, ['media.licdn.com', 'static.licdn.com']);
    assert.equal(DEFAULT_FETCH_MAX_BYTES, MAX_MEDIA_BYTES);
    const settings = parseEvidenceFetch({})!;
    assert.deepEqual(settings.hosts, DEFAULT_IMAGE_HOSTS);
    assert.deepEqual(settings.allowedAddresses, []);
    assert.equal(settings.extraCa, null);
    assert.equal(settings.timeoutMs, 10_000);
    assert.equal(settings.maxRedirects, 3);
    assert.equal(parseEvidenceFetch({ EVIDENCE_IMAGE_HOSTS: 'none' }), null);
  });
});

describe('safe fetcher: refusals', () => {
  test('an http URL is refused before any connection', async () => {
    await refused(new SafeFetcher(reaching()).fetch(`http://${cdn.hostEntry}/photo.jpg`), 'not_https');
    await refused(new SafeFetcher(reaching()).fetch('ftp://media.licdn.com/x.jpg'), 'not_https');
    await refused(new SafeFetcher(reaching()).fetch('/photo.jpg'), 'not_https');
  });

  test('a host not on the allow-list is refused before it is resolved: another name, another port, the IP literal, a lookalike', async () => {
    const before = cdn.total;
    let resolved = 0;
    const fetcher = new SafeFetcher(reaching(), async () => {
      resolved++;
      return [{ address: '127.0.0.1', family: 4 }];
    });
    for (const url of [
      `https://evil.example:${cdn.port}/photo.jpg`,
      `https://localhost/photo.jpg`,
      `https://127.0.0.1:${cdn.port}/photo.jpg`,
      `https://localhost.evil.example:${cdn.port}/photo.jpg`,
    ]) {
      await refused(fetcher.fetch(url), 'host_not_allowed');
    }
    await refused(fetcher.fetch(`https://user:secret@${cdn.hostEntry}/photo.jpg`), 'host_not_allowed');
    assert.equal(resolved, 0);
    assert.equal(cdn.total, before);
    // `*.domain` allows its subdomains, not the domain itself nor a lookalike.
    const wildcard = new SafeFetcher(reaching({ hosts: ['*.licdn.com'] }), async () => [{ address: '10.0.0.1', family: 4 }]);
    await refused(wildcard.fetch('https://media-exp1.licdn.com/x.jpg'), 'address_not_allowed');
    await refused(wildcard.fetch('https://licdn.com/x.jpg'), 'host_not_allowed');
    await refused(wildcard.fetch('https://evillicdn.com/x.jpg'), 'host_not_allowed');
  });

  test('a host name that resolves to loopback (localhost → 127.0.0.1) is refused without the explicit setting, and the CDN sees nothing', async () => {
    const before = cdn.total;
    await refused(new SafeFetcher(reaching({ allowedAddresses: [] })).fetch(`${cdn.baseUrl}/photo.jpg`), 'address_not_allowed');
    assert.equal(cdn.total, before);
  });

  test('private, loopback, link-local and other special-purpose addresses are refused as literal hosts, before any connection', async () => {
    const literals = [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '[::1]',
      '[::]',
      '[fe80::1]',
      '[fc00::1]',
      '[fd12:3456::1]',
      '[ff02::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:10.0.0.1]',
      '[64:ff9b::a00:1]',
      '[2002:a00:1::]',
    ];
    const fetcher = new SafeFetcher(reaching({ hosts: literals, allowedAddresses: [], timeoutMs: 60_000 }));
    for (const host of literals) {
      const started = performance.now();
      await refused(fetcher.fetch(`https://${host}/x.png`), 'address_not_allowed');
      assert.ok(performance.now() - started < 1_000, `${host} refused at once, not after a connection attempt`);
    }
  });

  test('a name that resolves to a private address, or to a public and a private one, is refused', async () => {
    const answers: Record<string, Array<{ address: string; family: number }>> = {
      'media.licdn.com': [{ address: '10.20.30.40', family: 4 }],
      'static.licdn.com': [
        { address: '13.107.42.14', family: 4 },
        { address: 'fd00::5', family: 6 },
      ],
    };
    const fetcher = new SafeFetcher(reaching({ hosts: DEFAULT_IMAGE_HOSTS, allowedAddresses: [] }), async (host) => answers[host]);
    await refused(fetcher.fetch('https://media.licdn.com/dms/image/x.jpg'), 'address_not_allowed');
    await refused(fetcher.fetch('https://static.licdn.com/aero/x.png'), 'address_not_allowed');
    const unresolved = new SafeFetcher(reaching({ hosts: DEFAULT_IMAGE_HOSTS }), async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    });
    await refused(unresolved.fetch('https://media.licdn.com/x.jpg'), 'dns_failed');
  });

  test('a redirect to a private address is refused after the hop, before connecting: 127.0.0.2 is loopback and not allowed', async () => {
    const target = `https://127.0.0.2:${inside.port}/photo.jpg`;
    const fetcher = new SafeFetcher(reaching({ hosts: [cdn.hostEntry, `127.0.0.2:${inside.port}`] }));
    await refused(fetcher.fetch(`${cdn.baseUrl}/redirect?to=${encodeURIComponent(target)}`), 'address_not_allowed');
    assert.equal(inside.hits, 0);
    // The same hop to a name that resolves to loopback.
    const named = new SafeFetcher(reaching({ hosts: [cdn.hostEntry, `cdn.profile-scan.test:${inside.port}`] }), async (host) =>
      host === 'localhost' ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '127.0.0.2', family: 4 }],
    );
    const hop = `https://cdn.profile-scan.test:${inside.port}/photo.jpg`;
    await refused(named.fetch(`${cdn.baseUrl}/redirect?to=${encodeURIComponent(hop)}`), 'address_not_allowed');
    assert.equal(inside.hits, 0);
  });

  test('a redirect off the allow-list, to http, or round in circles is refused', async () => {
    const fetcher = new SafeFetcher(reaching());
    await refused(fetcher.fetch(`${cdn.baseUrl}/redirect?to=${encodeURIComponent('https://evil.example/x.jpg')}`), 'host_not_allowed');
    await refused(fetcher.fetch(`${cdn.baseUrl}/redirect?to=${encodeURIComponent(`http://${cdn.hostEntry}/photo.jpg`)}`), 'not_https');
    const before = cdn.hits.get('/redirect-loop') ?? 0;
    await refused(fetcher.fetch(`${cdn.baseUrl}/redirect-loop`), 'too_many_redirects');
    assert.equal((cdn.hits.get('/redirect-loop') ?? 0) - before, 4, 'the first request and three redirects');
  });

  test('a declared Content-Length over the limit is refused up front, without waiting for the body', async () => {
    const started = performance.now();
    await refused(new SafeFetcher(reaching({ timeoutMs: 30_000 })).fetch(`${cdn.baseUrl}/big-declared`), 'too_large');
    assert.ok(performance.now() - started < 5_000);
  });

  test('a body over the limit is cut while it streams', async () => {
    await refused(new SafeFetcher(reaching()).fetch(`${cdn.baseUrl}/big-streamed`), 'too_large');
  });

  test('a slow-dripping body hits the whole-download deadline', async () => {
    const started = performance.now();
    await refused(new SafeFetcher(reaching({ timeoutMs: 700 })).fetch(`${cdn.baseUrl}/slow-body`), 'timeout');
    const took = performance.now() - started;
    assert.ok(took >= 650 && took < 5_000, `${Math.round(took)} ms`);
  });

  test('a server that never answers hits the deadline', async () => {
    await refused(new SafeFetcher(reaching({ timeoutMs: 500 })).fetch(`${cdn.baseUrl}/slow-headers`), 'timeout');
  });

  test('an answer other than 200 is refused', async () => {
    await refused(new SafeFetcher(reaching()).fetch(`${cdn.baseUrl}/missing`), 'bad_status');
  });

  test('a certificate from a CA that was not configured is not trusted', async () => {
    await refused(new SafeFetcher(reaching({ extraCa: null })).fetch(`${cdn.baseUrl}/photo.jpg`), 'connection_failed');
  });

  test("the caller's abort stops the download", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await refused(new SafeFetcher(reaching()).fetch(`${cdn.baseUrl}/slow-body`, controller.signal), 'aborted');
  });

  test('error messages never hold the URL', async () => {
    const secretPath = '/private-person-name-photo.jpg';
    const errors = await Promise.all([
      refused(new SafeFetcher(reaching()).fetch(`http://${cdn.hostEntry}${secretPath}`), 'not_https'),
      refused(new SafeFetcher(reaching()).fetch(`https://evil.example${secretPath}`), 'host_not_allowed'),
      refused(new SafeFetcher(reaching({ allowedAddresses: [] })).fetch(`${cdn.baseUrl}${secretPath}`), 'address_not_allowed'),
      refused(new SafeFetcher(reaching()).fetch(`${cdn.baseUrl}/missing${secretPath}`), 'bad_status'),
    ]);
    for (const error of errors) assert.ok(!error.message.includes('private-person') && !error.message.includes('evil'), error.message);
  });
});

describe('safe fetcher: address ranges and settings', () => {
  test('only ordinary public addresses pass, unless an allowed CIDR holds them', () => {
    for (const address of ['93.184.216.34', '13.107.42.14', '2606:4700::6810:84e5']) assert.ok(addressAllowed(address, []), address);
    for (const address of ['127.0.0.1', '10.1.1.1', '::1', '::ffff:8.8.8.8', 'not an address']) assert.ok(!addressAllowed(address, []), address);
    const allowed = ['127.0.0.0/8', '::1'].map(parseAllowedRange);
    assert.ok(addressAllowed('127.0.0.2', allowed) && addressAllowed('::1', allowed));
    assert.ok(!addressAllowed('10.0.0.1', allowed));
  });

  test('EVIDENCE_* settings are validated at start, naming the setting and never its value', async () => {
    const bad: Array<[Record<string, string>, string]> = [
      [{ EVIDENCE_IMAGE_HOSTS: 'https://media.licdn.com/path' }, 'EVIDENCE_IMAGE_HOSTS'],
      [{ EVIDENCE_IMAGE_HOSTS: '*.10.0.0.1' }, 'EVIDENCE_IMAGE_HOSTS'],
      [{ EVIDENCE_FETCH_ALLOW_ADDRESSES: '127.0.0.1/99' }, 'EVIDENCE_FETCH_ALLOW_ADDRESSES'],
      [{ EVIDENCE_FETCH_CA_FILE: '/nonexistent/secret-ca.pem' }, 'EVIDENCE_FETCH_CA_FILE'],
      [{ EVIDENCE_FETCH_CA_FILE: path.join(import.meta.dirname, 'safe-fetch.test.ts') }, 'EVIDENCE_FETCH_CA_FILE'],
      [{ EVIDENCE_FETCH_TIMEOUT_MS: 'soon' }, 'EVIDENCE_FETCH_TIMEOUT_MS'],
    ];
    for (const [env, name] of bad) {
      assert.throws(
        () => parseEvidenceFetch(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.ok(error.message.startsWith(name), error.message);
          for (const value of Object.values(env)) assert.ok(!error.message.includes(value), error.message);
          return true;
        },
      );
    }
    const good = parseEvidenceFetch({
      EVIDENCE_IMAGE_HOSTS: ` ${cdn.hostEntry}, *.licdn.com `,
      EVIDENCE_FETCH_ALLOW_ADDRESSES: '127.0.0.1/32, ::1',
      EVIDENCE_FETCH_CA_FILE: cdn.caFile,
    })!;
    assert.deepEqual(good.hosts, [cdn.hostEntry, '*.licdn.com']);
    assert.deepEqual(good.allowedAddresses, ['127.0.0.1/32', '::1']);
    assert.equal(good.extraCa, ca);
    assert.ok(new SafeFetcher(good));
  });
});
