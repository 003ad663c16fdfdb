/**
 * What the service may download from outside (the evidence images a record
 * links to): the settings of the safe fetcher (scanning/media/safe-fetch.ts)
 * with their defaults, and the rules it applies to every hop: which hosts
 * (EVIDENCE_IMAGE_HOSTS) and which addresses (public unicast, or inside
 * EVIDENCE_FETCH_ALLOW_ADDRESSES). Plain functions: config.ts validates the
 * settings with the same parsers the fetcher applies.
 */
import ipaddr from 'ipaddr.js';

export interface SafeFetchSettings {
  /** Allowed hosts: `media.licdn.com`, `*.licdn.com` (subdomains only), `cdn.example:8443` (another port). */
  hosts: readonly string[];
  /** CIDRs (or single addresses) allowed although they are special-purpose; [] outside development and tests. */
  allowedAddresses: readonly string[];
  /** PEM certificates trusted besides Node's default roots (a test CDN, an internal mirror); null for none. */
  extraCa: string | null;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Deadline of the whole download (every hop and the body), ms. */
  timeoutMs: number;
  /** Redirects followed at most. */
  maxRedirects: number;
}

/** The provider's image CDN as served in its records (LinkedIn's hosts). */
export const DEFAULT_IMAGE_HOSTS: readonly string[] = ['media.licdn.com', 'static.licdn.com'];
export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;
/** The contract's evidence image size (section 8: up to 10 MiB), as media-types.ts MAX_MEDIA_BYTES (not imported: it loads sharp). */
export const DEFAULT_FETCH_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 3;

/** One entry of the host allow-list. */
export interface HostRule {
  /** Exact host name, or the suffix (with its leading dot) of a `*.` rule. */
  name: string;
  wildcard: boolean;
  port: string;
}

/** A host entry as the URL parser would write it (lower case, punycode, IPv6 in brackets); throws on nonsense. */
export function parseHostRule(entry: string): HostRule {
  const trimmed = entry.trim().toLowerCase();
  const wildcard = trimmed.startsWith('*.');
  const rest = wildcard ? trimmed.slice(2) : trimmed;
  let url: URL;
  try {
    url = new URL(`https://${rest}`);
  } catch {
    throw new RangeError('not a host name');
  }
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash || url.hostname === '') throw new RangeError('not a host name');
  if (wildcard && (url.hostname.startsWith('[') || ipaddr.isValid(url.hostname))) throw new RangeError('a wildcard needs a domain name');
  return { name: wildcard ? `.${url.hostname}` : url.hostname, wildcard, port: url.port };
}

/** A CIDR or single address; throws on nonsense. */
export function parseAllowedRange(entry: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const trimmed = entry.trim();
  if (trimmed.includes('/')) return ipaddr.parseCIDR(trimmed);
  const address = ipaddr.parse(trimmed);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** Whether the service may connect to `address`: an ordinary public (unicast) address, or one inside an allowed range. */
export function addressAllowed(address: string, allowed: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (allowed.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits))) return true;
  return parsed.range() === 'unicast';
}
