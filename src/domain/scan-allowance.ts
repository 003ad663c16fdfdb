/**
 * The scan allowance of a workspace (docs/operations.md, "Scan allowance"):
 * how many profile scans it may admit per calendar month, UTC. One profile
 * scan is one person a write queues for scanning, whatever the number of
 * modes (a person gets a `full_profile` and an `activity` item: one scan); a
 * person whose items were all coalesced into pending ones queues nothing and
 * costs nothing; the report's company page costs nothing. `null` is
 * unlimited. Plain rules and shapes, no I/O.
 */

/** The calendar month (UTC) an instant falls in: its first day, as stored, and when the next one starts. */
export interface AllowanceMonth {
  /** 'YYYY-MM-01' */
  month: string;
  resetsAt: Date;
}

export function allowanceMonth(now: Date): AllowanceMonth {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return { month: `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-01`, resetsAt: new Date(Date.UTC(year, month + 1, 1)) };
}

/** A workspace's allowance this month, as every interface shows it. */
export interface AllowanceStatus {
  /** Profile scans per month; null = unlimited. */
  limit: number | null;
  /** Profile scans admitted this month. */
  used: number;
  /** Left this month (never below 0); null = unlimited. */
  remaining: number | null;
  /** RFC 3339 instant the month ends and `used` starts again from 0. */
  resets_at: string;
}

export function allowanceStatus(limit: number | null, used: number, now: Date): AllowanceStatus {
  return {
    limit,
    used,
    remaining: limit === null ? null : Math.max(0, limit - used),
    resets_at: allowanceMonth(now).resetsAt.toISOString(),
  };
}

/** Whether a write queueing `scans` more fits: always when unlimited. */
export function allowanceAdmits(status: Pick<AllowanceStatus, 'remaining'>, scans: number): boolean {
  return status.remaining === null || scans <= status.remaining;
}

/** The response headers that state it (declared in the OpenAPI document): `unlimited` for an allowance without a limit. */
export function allowanceHeaders(status: AllowanceStatus): Record<string, string> {
  return {
    'Scan-Allowance-Limit': status.limit === null ? 'unlimited' : String(status.limit),
    'Scan-Allowance-Used': String(status.used),
    'Scan-Allowance-Remaining': status.remaining === null ? 'unlimited' : String(status.remaining),
    'Scan-Allowance-Reset': status.resets_at,
  };
}

/** Operator input: a non-negative integer, or `unlimited`; undefined when it is neither. */
export function parseAllowance(value: string): number | null | undefined {
  if (value === 'unlimited') return null;
  if (!/^\d{1,9}$/.test(value)) return undefined;
  return Number(value);
}
