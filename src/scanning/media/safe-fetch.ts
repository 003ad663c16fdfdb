/**
 * The one way the service downloads an image a collected record links to (a
 * profile photo, a banner, a company logo): a URL that came from a data
 * provider, so from outside, and never trusted.
 *
 * What it guarantees, on every hop (the first URL and each redirect):
 * - `https:` only, no credentials in the URL, a host on the allow-list
 *   (`EVIDENCE_IMAGE_HOSTS`: exact names, or `*.suffix` for its subdomains,
 *   each on port 443 unless the entry names a port);
 * - the host name is resolved once, here, and EVERY address it resolves to is
 *   checked: an address in any special-purpose range (private, loopback,
 *   link-local, unique-local, carrier-grade NAT, multicast, unspecified,
 *   broadcast, reserved, documentation, IPv4-mapped and other translated
 *   IPv6 …: whatever `ipaddr.js` does not call `unicast`) refuses the download,
 *   unless it is inside an explicitly allowed CIDR (`EVIDENCE_FETCH_ALLOW_ADDRESSES`,
 *   empty by default: for local development and tests). The connection then
 *   goes to the address that was checked (the request's `lookup` returns it),
 *   so a second DNS answer can never slip in between check and connect (no
 *   DNS-rebinding window). TLS still verifies the certificate against the
 *   host name.
 * - at most `maxRedirects` redirects, each re-validated as above;
 * - a size limit: a larger `Content-Length` is refused before the body is
 *   read, and the body is counted while it streams and cut at the limit;
 * - one deadline for the whole download, every hop and the body included, so
 *   a server that drips bytes slowly is cut off too;
 * - no cookies, no credentials, no compression (`Accept-Encoding: identity`:
 *   the limit counts the bytes as they are).
 *
 * What it does not do: decide what the bytes are (media/evidence.ts sniffs
 * them and applies the pixel limits), retry, or cache. Errors are
 * SafeFetchError with a code; their messages never hold the URL (it may name
 * a person).
 *
 * Why not a library: `request-filtering-agent` checks the address in the
 * socket's `lookup` event, after the connection has begun, and connects to
 * IP-literal hosts before checking them (unless asked not to), and allows
 * single addresses rather than CIDRs; `ssrf-req-filter` is the same design.
 * Checking before connecting, with the connection pinned to the checked
 * address, is a few lines on top of `node:https` and `ipaddr.js` (the range
 * tables, well kept and already used by Fastify's proxy-addr).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import tls from 'node:tls';
import ipaddr from 'ipaddr.js';
import { addressAllowed, parseAllowedRange, parseHostRule, type HostRule, type SafeFetchSettings } from '../../domain/fetch-policy.js';

export type SafeFetchErrorCode =
  | 'not_https'
  | 'host_not_allowed'
  | 'address_not_allowed'
  | 'dns_failed'
  | 'connection_failed'
  | 'bad_status'
  | 'too_many_redirects'
  | 'too_large'
  | 'timeout'
  | 'aborted';

/** A download refused or failed. `message` is secret-free and holds no URL. */
export class SafeFetchError extends Error {
  readonly code: SafeFetchErrorCode;
  constructor(code: SafeFetchErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SafeFetchError';
    this.code = code;
  }
}

/** Resolves a host name to all its addresses (dns.lookup by default; injectable for tests of the pinning). */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export class SafeFetcher {
  private readonly rules: HostRule[];
  private readonly allowed: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  private readonly ca: string[] | undefined;

  constructor(
    private readonly settings: SafeFetchSettings,
    private readonly resolve: Resolver = systemResolver,
  ) {
    this.rules = settings.hosts.map(parseHostRule);
    this.allowed = settings.allowedAddresses.map(parseAllowedRange);
    this.ca = settings.extraCa === null ? undefined : [...tls.rootCertificates, settings.extraCa];
  }

  /** The body of `url` (status 200), within every limit above; throws SafeFetchError. */
  async fetch(url: string, signal?: AbortSignal): Promise<Buffer> {
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    const deadline = signal ? AbortSignal.any([timeout, signal]) : timeout;
    const failure = (error: unknown): SafeFetchError => {
      if (error instanceof SafeFetchError) return error;
      if (timeout.aborted) return new SafeFetchError('timeout', `the download took longer than ${this.settings.timeoutMs} ms`, { cause: error });
      if (signal?.aborted) return new SafeFetchError('aborted', 'the download was aborted', { cause: error });
      return new SafeFetchError('connection_failed', 'the image host could not be reached', { cause: error });
    };
    let current = url;
    try {
      for (let hop = 0; ; hop++) {
        const target = this.checkUrl(current);
        const address = await this.checkedAddress(target, deadline);
        const response = await this.get(target, address, deadline);
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && status !== 304 && typeof response.headers.location === 'string') {
          response.destroy();
          if (hop >= this.settings.maxRedirects) {
            throw new SafeFetchError('too_many_redirects', `more than ${this.settings.maxRedirects} redirects`);
          }
          current = new URL(response.headers.location, target).href;
          continue;
        }
        if (status !== 200) {
          response.destroy();
          throw new SafeFetchError('bad_status', `the image host answered ${status}`);
        }
        return await this.readBody(response);
      }
    } catch (error) {
      throw failure(error);
    }
  }

  private checkUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new SafeFetchError('not_https', 'not an absolute URL');
    }
    if (url.protocol !== 'https:') throw new SafeFetchError('not_https', 'only https URLs are downloaded');
    if (url.username || url.password) throw new SafeFetchError('host_not_allowed', 'URLs with credentials are not downloaded');
    const host = url.hostname;
    const port = url.port;
    const listed = this.rules.some(
      (rule) => rule.port === port && (rule.wildcard ? host.endsWith(rule.name) && host.length > rule.name.length : host === rule.name),
    );
    if (!listed) throw new SafeFetchError('host_not_allowed', 'the image host is not on the allow-list (EVIDENCE_IMAGE_HOSTS)');
    return url;
  }

  /** The address to connect to: the literal, or the first of the resolved ones; every one of them must be allowed. */
  private async checkedAddress(url: URL, deadline: AbortSignal): Promise<{ address: string; family: number }> {
    const literal = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    let addresses: Array<{ address: string; family: number }>;
    if (ipaddr.isValid(literal)) {
      addresses = [{ address: literal, family: ipaddr.parse(literal).kind() === 'ipv4' ? 4 : 6 }];
    } else {
      deadline.throwIfAborted();
      try {
        addresses = await raceAbort(this.resolve(url.hostname), deadline);
      } catch (error) {
        if (deadline.aborted) throw error;
        throw new SafeFetchError('dns_failed', 'the image host name could not be resolved', { cause: error });
      }
    }
    if (addresses.length === 0) throw new SafeFetchError('dns_failed', 'the image host name resolved to no address');
    if (!addresses.every((a) => addressAllowed(a.address, this.allowed))) {
      throw new SafeFetchError('address_not_allowed', 'the image host resolves to a private or special-purpose address');
    }
    return addresses[0];
  }

  private get(url: URL, pinned: { address: string; family: number }, deadline: AbortSignal): Promise<IncomingMessage> {
    // Node asks for every address (`all`) when it may try several; it gets the one that was checked.
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if (options.all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [pinned]);
      else callback(null, pinned.address, pinned.family);
    };
    return new Promise((resolve, reject) => {
      const request = https.request(url, {
        method: 'GET',
        agent: false,
        lookup,
        ca: this.ca,
        signal: deadline,
        headers: { accept: 'image/png, image/jpeg, image/webp', 'accept-encoding': 'identity', 'user-agent': 'profile-scan evidence fetcher' },
      });
      request.once('response', resolve);
      request.once('error', reject);
      request.end();
    });
  }

  private async readBody(response: IncomingMessage): Promise<Buffer> {
    const { maxBytes } = this.settings;
    const declared = response.headers['content-length'];
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
      response.destroy();
      throw new SafeFetchError('too_large', `the image is larger than ${maxBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) {
        response.destroy();
        throw new SafeFetchError('too_large', `the image is larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, total);
  }
}

/** `promise`, or the signal's reason as soon as it aborts (a DNS lookup cannot be cancelled, only left behind). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
