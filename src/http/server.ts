/**
 * Builds the HTTP server: the only module that wires Fastify together.
 *
 * It owns the cross-cutting behaviour of the contract: request ids and
 * `X-Request-ID`, `Cache-Control: no-store`, JSON-only bodies up to 1 MiB
 * (413 is decided from Content-Length before parsing), strict validation
 * (unknown fields are rejected, never stripped), the error envelope for every
 * failure including 404/405, and the OpenAPI document. Authentication, rate
 * limits and scopes live in ./plugins/authorize.ts; resources in ./routes.
 */
import { randomUUID } from 'node:crypto';
import { canonicalUrl } from './canonical-url.js';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import type { Clock } from '../clock.js';
import { CursorCodec } from '../domain/cursor.js';
import { publicBaseUrlOf, type Config } from '../config.js';
import { AsyncResource } from 'node:async_hooks';
import { withStatementBound, type Db, type DatabaseAvailability, type ScanQueue } from '../runtime.js';
import { ApiError, apiError, notFound } from '../domain/errors.js';
import { databaseUnavailable, errorBody, withAnalysisDefaults } from './errors.js';
import { authorizePlugin } from './plugins/authorize.js';
import { keyUsagePlugin } from './plugins/key-usage.js';
import { contextRoutes } from './routes/context.js';
import { reportRoutes } from './routes/reports.js';
import { importRoutes } from './routes/imports.js';
import { refreshRoutes } from './routes/refreshes.js';
import { analysisRoutes } from './routes/analysis.js';
import { completeOpenApiDocument, openApiBase } from './openapi.js';
import { evidenceRoutes } from './routes/evidence.js';
import { Health, opsPlugin } from './ops.js';
import { createLogger, type Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { createMediaStore } from '../scanning/media/create-media-store.js';
import type { MediaStore } from '../scanning/media/media-store.js';
import { webPlugin } from '../web/plugin.js';
import { makeAjv } from '../domain/schema-validation.js';

export interface AppDeps {
  db: Db;
  config: Config;
  clock: Clock;
  cursorSecret: string;
  queue: ScanQueue;
  /** Evidence media (DATA_DIR/media or S3 by configuration, when not given). */
  media?: MediaStore;
  /** The process's logger (src/logger.ts); one is made from config.logLevel when not given. */
  logger?: Logger;
  /** Readiness state (/readyz); draining is set on shutdown. */
  health?: Health;
  /** Metrics registry; null or absent: no /metrics and no request metrics. */
  metrics?: Metrics | null;
  /** Where an outage of the database is said, once (runtime.ts); absent: it is not logged. */
  availability?: DatabaseAvailability;
}

/** What the app's plugins see: the deps, with the media store and readiness filled in. */
type ServerDeps = AppDeps & { media: MediaStore; health: Health };

declare module 'fastify' {
  interface FastifyInstance {
    deps: ServerDeps;
    cursors: CursorCodec;
    /** The service's public address (config.ts publicBaseUrlOf): PUBLIC_BASE_URL, else where this server listens. */
    readonly publicBaseUrl: string;
  }
}

export const API_PREFIX = '/api/v1';
export const MAX_BODY_BYTES = 1024 * 1024;

/** Analysis reads and evidence downloads (section 7.1: their errors carry retryable and next_action). */
function isAnalysisRoute(request: FastifyRequest): boolean {
  const url = request.routeOptions?.url ?? '';
  return url.includes('/analysis') || url.includes('/evidence/');
}

/** Maps framework errors to the contract's codes; never leaks internal messages. */
function toApiError(error: FastifyError & { validationContext?: string }): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    if (error.validationContext === 'params') return notFound();
    const where = error.validationContext ?? 'request';
    const first = error.validation[0];
    // A cursor is opaque: one that is not even well-formed is as invalid as a tampered one.
    if (where === 'querystring' && first?.instancePath === '/cursor') return apiError('invalid_cursor', 'The cursor is invalid or belongs to another request.');
    const field = first?.instancePath
      ? first.instancePath.replace(/^\//, '').replace(/\//g, '.')
      : ((first?.params as { missingProperty?: string; additionalProperty?: string })?.missingProperty ??
        (first?.params as { additionalProperty?: string })?.additionalProperty ??
        '');
    return apiError('invalid_request', `Invalid ${where}${field ? ` parameter "${field}"` : ''}: ${first?.message ?? 'invalid value'}.`);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return apiError('payload_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? apiError('unsupported_media_type')
        : apiError('invalid_request', 'The Content-Length header does not match the body.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return apiError('invalid_request', 'The request body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return apiError('invalid_request', 'The request body is not valid JSON.');
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return apiError('invalid_request', 'The request body is not valid JSON.');
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return apiError('invalid_request');
  }
  return null;
}

/** The headers of every answer (contract 2.1): the request id, and no caching. */
function setBaseHeaders(reply: FastifyReply, requestId: string): void {
  reply.header('X-Request-ID', requestId);
  reply.header('Cache-Control', 'no-store');
}

export async function buildServer(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // One logger (src/logger.ts): request ids, redaction of keys, cookies and the public token.
    // The cast keeps Fastify's default logger type in the instance's type (what every plugin expects).
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    loggerInstance: (deps.logger ?? createLogger(deps.config.logLevel, 'serve')) as FastifyBaseLogger,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    // Behind trusted reverse proxies (TRUST_PROXY), request.ip is the client X-Forwarded-For names:
    // the rightmost address that is not a trusted proxy. Otherwise it is the socket's peer.
    trustProxy: deps.config.trustProxy ?? false,
    // Ids in paths in one spelling before anything reads them (./canonical-url.ts).
    rewriteUrl: (req) => canonicalUrl(req.url ?? '/'),
    bodyLimit: MAX_BODY_BYTES,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // Errors the router raises before any route runs (a malformed
    // percent-encoding, an overlong path parameter) get the one envelope too,
    // with a request id, and never echo the path.
    frameworkErrors: (error, request, reply) => {
      const mapped =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? apiError('not_found', 'No such resource.')
          : apiError('invalid_request', 'The request URL is not valid (malformed percent-encoding).');
      const raw = reply as unknown as FastifyReply;
      // No hook ran for this request: the headers every answer carries are set here.
      setBaseHeaders(raw, request.id);
      void raw.status(mapped.status).type('application/json').send(errorBody(mapped, request.id));
    },
  });
  const serverDeps: ServerDeps = { ...deps, media: deps.media ?? (await createMediaStore(deps.config.media)), health: deps.health ?? new Health(deps.db) };
  app.decorate('deps', serverDeps);
  // No request waits on the database past a bound: a statement without an answer is cancelled, or
  // its connection dropped when the database does not answer at all (store/database.ts). First, so
  // that every route, the web pages' included, runs within it.
  // A body is read in the socket's callbacks, outside the request's async context: the route is
  // entered again within the bound once it is read (how @fastify/request-context keeps its store).
  const bounds = new WeakMap<FastifyRequest, AsyncResource>();
  app.addHook('onRequest', (request, _reply, done) =>
    withStatementBound(deps.config.databaseTimeoutMs, () => {
      const scope = new AsyncResource('profile-scan-request');
      bounds.set(request, scope);
      scope.runInAsyncScope(done);
    }),
  );
  app.addHook('preValidation', (request, _reply, done) => {
    const scope = bounds.get(request);
    if (scope) scope.runInAsyncScope(done);
    else done();
  });
  // /livez, /readyz, /metrics (outside /api/v1, no key) and the request metrics: ./ops.ts.
  await app.register(opsPlugin, {
    health: serverDeps.health,
    metrics: deps.metrics ?? null,
    serveMetrics: deps.config.metricsToken !== null,
    metricsToken: deps.config.metricsToken,
  });
  // JSON only (415 for anything else, including Fastify's default text/plain).
  app.removeContentTypeParser('text/plain');
  app.decorate('cursors', new CursorCodec(deps.cursorSecret));
  app.decorate('publicBaseUrl', {
    getter() {
      const address = app.server.address();
      return publicBaseUrlOf(deps.config, address !== null && typeof address === 'object' ? address : null);
    },
  });

  const bodyAjv = makeAjv('body');
  const queryAjv = makeAjv('parameters');
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv.compile(schema) : queryAjv.compile(schema)));

  // Metadata the route schemas cannot carry (operationIds, statuses, headers, examples): ./openapi.ts.
  await app.register(swagger, {
    openapi: openApiBase(app.publicBaseUrl),
    convertConstToEnum: false,
    transformObject: (documentObject) => completeOpenApiDocument(documentObject, app.publicBaseUrl),
  });

  // Every response, errors included, carries the request id and no-store.
  app.addHook('onRequest', async (request, reply) => {
    setBaseHeaders(reply, request.id);
  });

  // Routes recorded for 405 detection: the not-found handler answers 405 when
  // the path exists with another method.
  const routePatterns: { source: string; pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    const source = '^' + route.url.replace(/:[A-Za-z_]+/g, '[^/]+') + '$';
    let entry = routePatterns.find((p) => p.source === source);
    if (!entry) {
      entry = { source, pattern: new RegExp(source), methods: new Set() };
      routePatterns.push(entry);
    }
    for (const method of [route.method].flat()) entry.methods.add(method);
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const mapped = toApiError(error) ?? databaseUnavailable(error, deps.availability);
    if (!mapped) {
      request.log.error({ err: error }, 'unhandled error');
      const internal = apiError('internal_error', undefined, {
        retryable: true,
      });
      return reply
        .status(500)
        .type('application/json')
        .send(errorBody(isAnalysisRoute(request) ? withAnalysisDefaults(internal) : internal, request.id));
    }
    if (mapped.status >= 500 && mapped.code !== 'unavailable') request.log.error({ err: error }, 'server error');
    if (mapped.headers) reply.headers(mapped.headers);
    const shown = isAnalysisRoute(request) ? withAnalysisDefaults(mapped) : mapped;
    return reply.status(mapped.status).type('application/json').send(errorBody(shown, request.id));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const match = routePatterns.find((p) => p.pattern.test(path));
    if (match && !match.methods.has(request.method)) {
      const allowed = [...match.methods].sort().join(', ');
      reply.header('Allow', allowed);
      const error = apiError('method_not_allowed', { method: request.method, allowed });
      return reply.status(405).type('application/json').send(errorBody(error, request.id));
    }
    return reply
      .status(404)
      .type('application/json')
      .send(errorBody(apiError('not_found', 'No such endpoint.'), request.id));
  });

  // The web workspace (src/web): its own body parsers, sessions, CSRF and HTML errors, encapsulated.
  await app.register(webPlugin);
  await app.register(
    async (api) => {
      await api.register(authorizePlugin);
      await api.register(keyUsagePlugin);
      await api.register(contextRoutes);
      await api.register(reportRoutes);
      await api.register(importRoutes);
      await api.register(refreshRoutes);
      await api.register(evidenceRoutes);
      await api.register(analysisRoutes);
      api.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: API_PREFIX },
  );

  return app;
}
