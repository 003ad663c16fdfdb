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
import { authorizeKey } from '../../use-cases/api-access.js';
import type { FusedCall, Prefetched } from '../../store/fused-read.js';
import { apiError } from '../../domain/errors.js';
import { isUuid } from '../../domain/uuid.js';

export interface AccessConfig {
  kind: RequestKind;
  scopes: Scope[];
  /**
   * The route's resource read, run in the authorization statement (one round
   * trip instead of two: store/fused-read.ts); the handler passes
   * `request.fused` to the same read. Built from the raw request (onRequest
   * runs before schema validation); null when it cannot be (e.g. an id that
   * is not a UUID): then nothing is fused and the read runs on its own.
   */
  fused?: (request: FastifyRequest) => FusedCall | null;
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
    /** The fused read's raw result, for the route's read (store/fused-read.ts); undefined when it did not run. */
    fused: Prefetched | undefined;
  }
  interface FastifyContextConfig {
    access?: AccessConfig;
    /** Served without a key (only the OpenAPI document). */
    public?: boolean;
  }
}

const BEARER = /^Bearer ([^\s]+)$/;

/** A path parameter that is a plain UUID, else null (for `access.fused`; validation comes later). */
export function uuidParam(request: FastifyRequest, name: string): string | null {
  const value = (request.params as Record<string, string | undefined>)[name];
  return value !== undefined && isUuid(value) ? value : null;
}

/** Throws 403 insufficient_scope unless the key has every scope in `required`. */
export function requireScopes(request: FastifyRequest, required: Scope[]): void {
  const missing = missingScopes(request.auth.scopes, required);
  if (missing.length > 0) {
    throw apiError('insufficient_scope', { scopes: missing.join(', ') });
  }
}

async function authorize(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const access = request.routeOptions.config?.access;
  if (!access) return;
  const { db, clock, config } = app.deps;

  const match = BEARER.exec(request.headers.authorization ?? '');
  const unauthorized = () =>
    apiError('unauthorized', undefined, {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  if (!match) throw unauthorized();
  const window = minuteWindow(clock.now());
  const defaults = effectiveLimits(
    { writes_per_minute_per_key: null, writes_per_minute_per_workspace: null, submitted_profiles_per_minute_per_workspace: null },
    config.readLimitMultiplier,
  );
  const fused = access.fused?.(request) ?? null;
  const found = await authorizeKey(
    db,
    {
      secret: match[1],
      windowStart: window.start,
      kind: access.kind,
      readLimits: [defaults.reads_per_minute_per_key, defaults.reads_per_minute_per_workspace],
      writeDefaults: [defaults.writes_per_minute_per_key, defaults.writes_per_minute_per_workspace],
    },
    fused,
  );
  if (!found || found.key.revoked) throw unauthorized();
  const { key, take } = found;
  if (!key.api_access) throw apiError('api_access_disabled');

  const limits = effectiveLimits(key, config.readLimitMultiplier);
  request.auth = {
    keyId: key.key_id,
    userId: key.user_id,
    workspaceId: key.workspace_id,
    mode: key.mode,
    scopes: key.scopes,
    limits,
  };

  const buckets = requestBuckets(access.kind, key.key_id, key.workspace_id, limits);
  // The database took the request's two buckets (per key, per workspace, amount 1) with the limits it
  // computed from the same settings; a mismatch with the domain's buckets is a bug, not a client error.
  if (!take || buckets.length !== 2 || buckets.some((b, i) => b.amount !== 1 || b.limit !== take.limits[i])) {
    throw new Error('authorizeKey applied other buckets than requestBuckets');
  }
  reply.headers(rateLimitHeaders(buckets, take.counts, window));
  if (take.exceeded !== 0) {
    const refusedBy = buckets[take.exceeded - 1];
    throw apiError(
      'rate_limited',
      { policy: refusedBy.policy },
      {
        retryable: true,
        headers: { 'Retry-After': String(window.secondsLeft) },
      },
    );
  }
  requireScopes(request, access.scopes);
  request.fused = found.fused;
}

export const authorizePlugin = fp(async (app: FastifyInstance) => {
  app.decorateRequest('auth', null as unknown as RequestAuth);
  app.decorateRequest('fused', undefined);
  // Fail closed at start-up: a route under the plugin must say how it is
  // authorized (`access`), or say explicitly that it needs no key (`public`).
  app.addHook('onRoute', (route) => {
    const config = route.config;
    if (!config?.access && config?.public !== true && route.method !== 'HEAD') {
      throw new Error(`route ${String(route.method)} ${route.url} declares neither config.access nor config.public`);
    }
  });
  app.addHook('onRequest', async (request, reply) => authorize(app, request, reply));
});
