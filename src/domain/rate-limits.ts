/**
 * Rate-limit policy (contract section 8, decisions "Errors and limits"):
 * fixed UTC-minute windows; reads per key and per workspace; writes per key
 * and per workspace; submitted profile rows per workspace (on commit only).
 */

export interface WorkspaceLimits {
  reads_per_minute_per_key: number;
  reads_per_minute_per_workspace: number;
  page_size_max: number;
  writes_per_minute_per_key: number;
  writes_per_minute_per_workspace: number;
  submitted_profiles_per_minute_per_workspace: number;
  profiles_per_write_max: number;
}

export const DEFAULT_LIMITS: WorkspaceLimits = {
  reads_per_minute_per_key: 60,
  reads_per_minute_per_workspace: 300,
  page_size_max: 100,
  writes_per_minute_per_key: 10,
  writes_per_minute_per_workspace: 50,
  submitted_profiles_per_minute_per_workspace: 1000,
  profiles_per_write_max: 100,
};

export interface WorkspaceLimitSettings {
  writes_per_minute_per_key: number | null;
  writes_per_minute_per_workspace: number | null;
  submitted_profiles_per_minute_per_workspace: number | null;
}

/** The range of a workspace's own write limit (null: the default): the settings page, the operator's CLI and the use-case they share. */
export const WORKSPACE_LIMIT_RANGE = { min: 1, max: 1_000_000 } as const;

export function isWorkspaceLimit(value: number): boolean {
  return Number.isInteger(value) && value >= WORKSPACE_LIMIT_RANGE.min && value <= WORKSPACE_LIMIT_RANGE.max;
}

/** The workspace's effective limits: its settings over the defaults. */
export function effectiveLimits(settings: WorkspaceLimitSettings, readMultiplier = 1): WorkspaceLimits {
  return {
    ...DEFAULT_LIMITS,
    reads_per_minute_per_key: DEFAULT_LIMITS.reads_per_minute_per_key * readMultiplier,
    reads_per_minute_per_workspace: DEFAULT_LIMITS.reads_per_minute_per_workspace * readMultiplier,
    writes_per_minute_per_key: settings.writes_per_minute_per_key ?? DEFAULT_LIMITS.writes_per_minute_per_key,
    writes_per_minute_per_workspace: settings.writes_per_minute_per_workspace ?? DEFAULT_LIMITS.writes_per_minute_per_workspace,
    submitted_profiles_per_minute_per_workspace:
      settings.submitted_profiles_per_minute_per_workspace ?? DEFAULT_LIMITS.submitted_profiles_per_minute_per_workspace,
  };
}

export interface Window {
  start: Date;
  /** Whole seconds until the window ends, at least 1 (for Retry-After and `t`). */
  secondsLeft: number;
}

export function minuteWindow(now: Date): Window {
  const start = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const left = Math.ceil((start.getTime() + 60_000 - now.getTime()) / 1000);
  return { start, secondsLeft: Math.max(1, left) };
}

export interface Bucket {
  /** Policy name shown in the RateLimit headers. */
  policy: string;
  /** Counter identity, unique across the database. */
  id: string;
  limit: number;
  amount: number;
}

export type RequestKind = 'read' | 'write';

export function requestBuckets(kind: RequestKind, keyId: string, workspaceId: string, limits: WorkspaceLimits): Bucket[] {
  const buckets: Bucket[] =
    kind === 'read'
      ? [
          { policy: 'reads-per-key', id: `read:key:${keyId}`, limit: limits.reads_per_minute_per_key, amount: 1 },
          { policy: 'reads-per-workspace', id: `read:ws:${workspaceId}`, limit: limits.reads_per_minute_per_workspace, amount: 1 },
        ]
      : [
          { policy: 'writes-per-key', id: `write:key:${keyId}`, limit: limits.writes_per_minute_per_key, amount: 1 },
          { policy: 'writes-per-workspace', id: `write:ws:${workspaceId}`, limit: limits.writes_per_minute_per_workspace, amount: 1 },
        ];
  // A fixed order, so concurrent callers lock counter rows in the same order.
  return buckets.sort((a, b) => (a.id < b.id ? -1 : 1));
}

export function rowsBucket(workspaceId: string, limits: WorkspaceLimits, rows: number): Bucket {
  return {
    policy: 'submitted-profiles-per-workspace',
    id: `rows:ws:${workspaceId}`,
    limit: limits.submitted_profiles_per_minute_per_workspace,
    amount: rows,
  };
}

export interface TakeResult {
  admitted: boolean;
  /** The bucket that refused, when not admitted. */
  refusedBy: Bucket | null;
  counts: number[];
}

/**
 * IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Policy` lists every policy that applied; `RateLimit` reports the
 * one closest to its limit.
 */
export function rateLimitHeaders(buckets: Bucket[], counts: number[], window: Window): Record<string, string> {
  const policy = buckets.map((b) => `"${b.policy}";q=${b.limit};w=60`).join(', ');
  let tightest = 0;
  let tightestRemaining = Infinity;
  buckets.forEach((bucket, i) => {
    const remaining = Math.max(0, bucket.limit - (counts[i] ?? 0));
    if (remaining < tightestRemaining) {
      tightestRemaining = remaining;
      tightest = i;
    }
  });
  return {
    'RateLimit-Policy': policy,
    RateLimit: `"${buckets[tightest].policy}";r=${tightestRemaining};t=${window.secondsLeft}`,
  };
}
