/** What every part of one simulated collection shares: the URL, its slug, and the instants it is anchored to. */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export interface SimContext {
  url: string;
  /** Last path segment without a magic prefix. */
  slug: string;
  quiet: boolean;
  referenceMs: number;
  capturedMs: number;
  host: string;
}

/** The last non-empty path segment, percent-decoded when it can be. */
export function lastPathSegment(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url.replace(/[?#][\s\S]*$/u, '');
  }
  const segments = path.split('/').filter((s) => s !== '');
  const last = segments[segments.length - 1] ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

export function hostOf(url: string): string {
  try {
    const host = new URL(url).host;
    return host === '' ? 'pronet.example' : host;
  } catch {
    return 'pronet.example';
  }
}
