/**
 * API key secrets and scopes (contract section 5, decisions "Keys").
 * Secret format: psk_test_<32 base62> / psk_live_<32 base62>. Only the
 * SHA-256 of a secret is ever stored.
 */
import { createHash, randomInt } from 'node:crypto';

export type KeyMode = 'test' | 'live';

export const SCOPES = ['*', 'workspace:read', 'reports:read', 'profiles:read', 'reports:create', 'profiles:add', 'analysis:read', 'imports:read'] as const;
export type Scope = (typeof SCOPES)[number];

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_PATTERN = /^psk_(test|live)_[0-9A-Za-z]{32}$/;

export function generateSecret(mode: KeyMode): string {
  let body = '';
  for (let i = 0; i < 32; i++) body += BASE62[randomInt(62)];
  return `psk_${mode}_${body}`;
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** The mode a well-formed secret claims, or null when it is not one of ours. */
export function secretMode(secret: string): KeyMode | null {
  const match = SECRET_PATTERN.exec(secret);
  return match ? (match[1] as KeyMode) : null;
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Parses "*" or "a,b" into a sorted, de-duplicated scope list; throws on unknown scopes. */
export function parseScopes(text: string): Scope[] {
  const parts = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (parts.length === 0) throw new Error('at least one scope is required');
  for (const part of parts) {
    if (!isScope(part)) throw new Error(`unknown scope "${part}" (known: ${SCOPES.join(', ')})`);
  }
  return [...new Set(parts as Scope[])].sort();
}

/** Section 4: the required scopes are a conjunction; `*` grants every scope. */
export function missingScopes(granted: readonly string[], required: readonly Scope[]): Scope[] {
  if (granted.includes('*')) return [];
  return required.filter((scope) => !granted.includes(scope));
}
