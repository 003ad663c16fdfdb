/**
 * Opaque tokens of the web workspace (session cookies, one-time links) and
 * the rules for the credentials people type. Tokens are 256 random bits in
 * base64url; only their SHA-256 is ever stored.
 */
import { createHash, randomBytes } from 'node:crypto';

export type Role = 'owner' | 'admin' | 'member' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'viewer'];

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Tokens we issue are 43 base64url characters; anything else cannot match. */
export function isTokenShaped(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

/** null when acceptable, else what is wrong (never echoing the value). */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN) return `The password must have at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `The password must have at most ${PASSWORD_MAX} characters.`;
  return null;
}

/** Lower-cased, trimmed email, or null when it does not look like one. */
export function normalizeEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return null;
  return email;
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/**
 * Who may give or take which role: owners anything; admins every role but
 * owner, and never act on an owner.
 */
export function canAssign(actor: Role, targetCurrent: Role | null, next: Role): boolean {
  if (actor === 'owner') return true;
  if (actor !== 'admin') return false;
  return targetCurrent !== 'owner' && next !== 'owner';
}
