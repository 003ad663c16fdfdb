/**
 * The session cookie: HttpOnly, SameSite=Lax, Secure when the public base
 * URL is https. It carries the session's random token (sessions live in
 * PostgreSQL); the CSRF secret cookie uses the same attributes.
 */
import type { FastifyReply } from 'fastify';

export const SESSION_COOKIE = 'ps_session';
export const CSRF_COOKIE = 'ps_csrf';

export function isSecure(publicBaseUrl: string): boolean {
  return publicBaseUrl.startsWith('https:');
}

export function sessionCookieOptions(publicBaseUrl: string) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: isSecure(publicBaseUrl) };
}

export function setSessionCookie(reply: FastifyReply, publicBaseUrl: string, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, sessionCookieOptions(publicBaseUrl));
}

export function clearSessionCookie(reply: FastifyReply, publicBaseUrl: string): void {
  reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(publicBaseUrl));
}
