/**
 * What every `profile-scan client` command is given: its parsed options, its
 * arguments, the typed API client and the output it writes to. Kept apart
 * from client.ts (the dispatcher) so the command modules depend on it and
 * the dispatcher on them, without a cycle.
 */
import type { parseArgs } from 'node:util';
import type { ProfileScanClient } from '../index.js';
import { UsageError, type Io, type Output } from './client-output.js';

export const OPTIONS = {
  json: { type: 'boolean' },
  'base-url': { type: 'string' },
  config: { type: 'string' },
  'max-wait': { type: 'string' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  domain: { type: 'string' },
  'include-archived': { type: 'boolean' },
  limit: { type: 'string' },
  name: { type: 'string' },
  company: { type: 'string' },
  'company-url': { type: 'string' },
  public: { type: 'boolean' },
  'return-existing': { type: 'boolean' },
  'idempotency-key': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  'idempotency-prefix': { type: 'string' },
  'url-column': { type: 'string' },
  scan: { type: 'string', multiple: true },
  interval: { type: 'string' },
  timeout: { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string', short: 'o' },
  'profile-id': { type: 'string' },
  'event-type': { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  dir: { type: 'string' },
  variant: { type: 'string' },
  url: { type: 'string' },
  evidence: { type: 'boolean' },
} as const;

export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];

export interface CommandContext {
  io: Io;
  out: Output;
  values: Values;
  args: string[];
  client: ProfileScanClient;
  baseUrl: string;
  /** HTTP requests sent so far (retries included). */
  requests(): number;
}

export function seconds(value: string | undefined, flag: string, fallback: number, max = 86_400): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(n) || n > max) throw new UsageError(`${flag} takes a number of seconds (0-${max})`);
  return n;
}
