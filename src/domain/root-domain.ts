/**
 * Company root domain (decisions "Identity and normalization"): the
 * registrable domain under the Public Suffix List including its private
 * section, from a hostname or an http(s) URL; null when there is none (IP
 * address, localhost, a bare public suffix). Uses tldts (maintained PSL).
 */
import { parse } from 'tldts';

/** The hostname named by `input`, or null when input is neither a hostname nor an http(s) URL. */
export function hostnameOf(input: string): string | null {
  const text = input.trim();
  if (text === '') return null;
  let host: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return null;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    host = url.hostname;
  } else {
    host = text.split(/[/?#]/, 1)[0].replace(/:\d+$/, '');
    if (host.includes('@')) return null;
    try {
      host = new URL(`http://${host}`).hostname;
    } catch {
      return null;
    }
  }
  host = host.toLowerCase().replace(/\.$/, '');
  return host === '' ? null : host;
}

export function rootDomain(input: string): string | null {
  const host = hostnameOf(input);
  if (host === null) return null;
  const parsed = parse(host, { allowPrivateDomains: true });
  if (parsed.isIp) return null;
  return parsed.domain ?? null;
}
