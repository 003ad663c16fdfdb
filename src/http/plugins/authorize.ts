/**
 * Authorization for every contract endpoint, in the order the decisions fix:
 * authenticate (401) → workspace API access (403) → rate limit (429) →
 * scopes (403). Runs at onRequest, before any body is read or parsed.
 *
 * A route opts in by declaring `config: { access: { kind, scopes } }`.
 * Nothing is cached: a revoked key or a disabled workspace is refused on the
 * next request in every process. It does not check resource ownership; the
 * repositories scope every query by the key's workspace.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { missingScopes, type KeyMode, type Scope } from '../../domain/keys.js';
import { effectiveLimits, minuteWindow, rateLimitHeaders, requestBuckets, type RequestKind, type WorkspaceLimits } from '../../domain/rate-limits.js';
import { takeRate } from '../../store/rate-limit-repository.js';
import { findKeyBySecret } from '../../store/workspace-repository.js';
import { apiError } from '../errors.js';

export interface AccessConfig {
  kind: RequestKind;
  scopes: Scope[];
}

export interface RequestAuth {
  keyId: string;
  userId: string;
  workspaceId: string;
  mode: KeyMode;
  scopes: string[];
  limits: WorkspaceLimits;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: RequestAuth;
  }
  interface FastifyContextConfig {
    access?: AccessConfig;
  }
}

const BEARER = /^Bearer ([^\s]+)$/;

/** Throws 403 insufficient_scope unless the key has every scope in `required`. */
export function requireScopes(request: FastifyRequest, required: Scope[]): void {
  const missing = missingScopes(request.auth.scopes, required);
  if (missing.length > 0) {
    throw apiError('insufficient_scope', 403, `This key lacks the scope(s) this request needs: ${missing.join(', ')}.`);
  }
}

async function authorize(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const access = request.routeOptions.config?.access;
  if (!access) return;
  const { db, clock, config } = app.deps;

  const match = BEARER.exec(request.headers.authorization ?? '');
  const unauthorized = () =>
    apiError('unauthorized', 401, 'A valid API key is required: send Authorization: Bearer <key>.', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  if (!match) throw unauthorized();
  const key = await findKeyBySecret(db, match[1]);
  if (!key || key.revoked) throw unauthorized();
  if (!key.api_access) throw apiError('api_access_disabled', 403, 'API access is disabled for this workspace.');

  const limits = effectiveLimits(key, config.readLimitMultiplier);
  request.auth = {
    keyId: key.key_id,
    userId: key.user_id,
    workspaceId: key.workspace_id,
    mode: key.mode,
    scopes: key.scopes,
    limits,
  };

  const window = minuteWindow(clock.now());
  const buckets = requestBuckets(access.kind, key.key_id, key.workspace_id, limits);
  const taken = await takeRate(db, window.start, buckets);
  reply.headers(rateLimitHeaders(buckets, taken.counts, window));
  if (!taken.admitted) {
    throw apiError('rate_limited', 429, `Rate limit exceeded (${taken.refusedBy!.policy}); retry after the current minute window.`, {
      retryable: true,
      headers: { 'Retry-After': String(window.secondsLeft) },
    });
  }
  requireScopes(request, access.scopes);
}

export const authorizePlugin = fp(async (app: FastifyInstance) => {
  app.decorateRequest('auth', null as unknown as RequestAuth);
  app.addHook('onRequest', async (request, reply) => authorize(app, request, reply));
});
