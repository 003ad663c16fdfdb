/**
 * The web workspace as one Fastify plugin (registered by src/http/server.ts):
 * sign-in, reports, a report's page, a person's page, settings, the public
 * share page and the static assets. Pages call the same use-cases as the
 * API, never the store.
 *
 * What it does, for every page of this scope:
 * - Parses form bodies (urlencoded; multipart for CSV upload), only in this
 *   encapsulated scope: the JSON API keeps refusing other media types.
 * - Resolves the session cookie (server-side sessions in PostgreSQL).
 * - State-changing requests (POST) must carry the CSRF token of their form
 *   (@fastify/csrf-protection, bound to the session) and, when the browser
 *   says where they come from (Origin, else Referer), come from this site.
 * - Security headers: a strict Content-Security-Policy (no inline script or
 *   style, nothing from another origin), nosniff, no framing, and
 *   `Referrer-Policy: same-origin`.
 * - Errors become HTML pages in the contract's words (never a stack trace).
 *
 * - What the user's role allows: every signed-in page and form post is an
 *   action of domain/permissions.ts (route-permissions.ts), refused with a
 *   403 page when the role may not do it.
 *
 * What it does not do: authorize API keys (src/http/plugins/authorize.ts).
 */
import { createHash, createHmac } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { ApiError } from '../domain/errors.js';
import { can, refusal } from '../domain/permissions.js';
import { actionOf } from './route-permissions.js';
import { databaseUnavailable } from '../http/errors.js';
import { resolveSession, type SessionUser } from '../use-cases/sign-in.js';
import { ErrorPage } from './pages/error.js';
import { paths } from './paths.js';
import { CSRF_COOKIE, SESSION_COOKIE, sessionCookieOptions } from './session-cookie.js';
import { sendPage } from './render.js';
import { assetRoutes } from './routes/asset-routes.js';
import { authRoutes } from './routes/auth-routes.js';
import { intakeRoutes } from './routes/intake-routes.js';
import { privacyRoutes } from './routes/privacy-routes.js';
import { publicRoutes } from './routes/public-routes.js';
import { reportRoutes } from './routes/report-routes.js';
import { groupRoutes } from './routes/group-routes.js';
import { settingsRoutes } from './routes/settings-routes.js';
import { workspaceRoutes } from './routes/workspace-routes.js';
import { viewerOf } from './forms.js';

/** Body limit of forms: the API's 1 MiB (a CSV of 100 people is far smaller). */
export const FORM_BODY_LIMIT = 1024 * 1024;

export interface WebState {
  user: SessionUser | null;
  /** The session cookie's token when it named a live session. */
  token: string | null;
  /** A CSRF token for this page's forms, bound to the session. */
  csrf(): string;
}

declare module 'fastify' {
  interface FastifyRequest {
    web: WebState;
  }
  interface FastifyContextConfig {
    /** Web page that needs a signed-in user (GET: redirect to sign-in; POST: 401 page). */
    signedIn?: boolean;
    /** Web route without session or CSRF handling (assets, the public page). */
    stateless?: boolean;
  }
}

export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function sessionBinding(token: string | null): string {
  return token ? createHash('sha256').update(token).digest('hex') : 'anonymous';
}

/** Origins a form may be posted from: the public base URL's, and the one the browser used to reach us. */
function allowedOrigins(request: FastifyRequest, publicBaseUrl: string): Set<string> {
  const origins = new Set<string>([new URL(publicBaseUrl).origin]);
  const host = request.headers.host;
  if (host) origins.add(`${request.protocol}://${host}`);
  return origins;
}

function sourceOrigin(request: FastifyRequest): string | null {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== '') return origin;
  const referer = request.headers.referer;
  if (typeof referer === 'string' && referer !== '') {
    try {
      return new URL(referer).origin;
    } catch {
      return 'invalid';
    }
  }
  return null;
}

export async function webPlugin(app: FastifyInstance): Promise<void> {
  const { db, clock, cursorSecret } = app.deps;
  const auth = { db, clock };

  await app.register(cookie);
  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: FORM_BODY_LIMIT, files: 1, fields: 40, parts: 41, fieldSize: 256 * 1024 },
  });
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: CSRF_COOKIE,
    cookieOpts: sessionCookieOptions(app.publicBaseUrl),
    // Tokens are bound to the session: signing in (a new session) voids the old ones.
    getUserInfo: (request) => sessionBinding(request.web?.token ?? null),
    csrfOpts: { hmacKey: createHmac('sha256', cursorSecret).update('web csrf').digest() },
  });

  app.decorateRequest('web', null as unknown as WebState);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('Content-Security-Policy', CSP);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('X-Frame-Options', 'DENY');
    reply.header('Referrer-Policy', 'same-origin');
    reply.header('Cross-Origin-Opener-Policy', 'same-origin');
    if (request.routeOptions.config?.stateless) return;
    const raw = request.cookies[SESSION_COOKIE];
    const user = await resolveSession(auth, raw);
    const token = user ? raw! : null;
    let csrfToken: string | null = null;
    request.web = {
      user,
      token,
      csrf: () => (csrfToken ??= reply.generateCsrf({ userInfo: sessionBinding(token) })),
    };
  });

  // preHandler: after the form body is parsed (the token travels in it).
  // 1. Where the form comes from, when the browser says so.
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.config?.stateless || request.method !== 'POST') return;
    const origin = sourceOrigin(request);
    if (origin !== null && !allowedOrigins(request, app.publicBaseUrl).has(origin)) {
      throw new ApiError('forbidden', 'This form was sent from another site and was refused. Nothing was changed.');
    }
  });
  // 2. The form's CSRF token (the plugin answers 403 itself when it is missing or wrong).
  app.addHook('preHandler', (request, reply, done) => {
    if (request.routeOptions.config?.stateless || request.method !== 'POST') return done();
    app.csrfProtection(request, reply, done);
  });
  // 3. Pages for signed-in users only.
  app.addHook('preHandler', async (request, reply) => {
    if (!request.routeOptions.config?.signedIn || request.web.user) return;
    if (request.method === 'GET') {
      const next = request.url === paths.reports ? '' : `?next=${encodeURIComponent(request.url)}`;
      return reply.redirect(`${paths.signIn}${next}`, 303);
    }
    throw new ApiError('unauthorized', 'Your session has ended. Sign in again, then repeat what you were doing.');
  });
  // 4. What the signed-in user's role allows (domain/permissions.ts, route-permissions.ts): one check for every page and form.
  app.addHook('preHandler', async (request) => {
    const user = request.web?.user;
    if (!request.routeOptions.config?.signedIn || !user) return;
    const action = actionOf(request.method, request.routeOptions.url ?? '');
    if (!can(user.role, action)) throw new ApiError('forbidden', refusal(action));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let status = 500;
    let message = 'Something went wrong on our side. Try again in a moment.';
    const unavailable = databaseUnavailable(error, app.deps.availability);
    if (unavailable) {
      status = 503;
      message = 'The service is temporarily unavailable. Nothing you sent was lost; try again in a moment.';
      if (unavailable.headers) reply.headers(unavailable.headers);
    } else if (error instanceof ApiError) {
      status = error.status;
      message = error.message;
      // The API's "not visible to this key" is for integrators; a person here has a session and a workspace.
      const missing = /^The (.+) does not exist or is not visible to this key\.$/.exec(message);
      if (missing) message = `The ${missing[1]} was not found in this workspace: it may have been removed, or the address is incomplete.`;
      if (error.headers) reply.headers(error.headers);
    } else if (error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET') {
      status = 403;
      message = 'This form has expired or did not come from this site, so nothing was changed. Go back, reload the page and try again.';
    } else if (error.code === 'FST_REQ_FILE_TOO_LARGE' || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
      status = 413;
      message = 'The upload is larger than 1 MiB.';
    } else if (error.validation || (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)) {
      status = error.validationContext === 'params' ? 404 : 400;
      message = status === 404 ? 'This page was not found: the address may be incomplete or mistyped.' : 'The request was not understood.';
    }
    // A shared link that does not work is seen by people outside the workspace: say it in their words.
    if (status === 404 && request.url.startsWith('/public/')) {
      message = 'This link does not work: the report is no longer shared, or the link is incomplete. Ask the person who sent it for a new one.';
    }
    const personal = request.url.startsWith(`${paths.sharedPrefix}/`);
    if (status === 404 && personal) {
      message = 'This link does not work: it may be incomplete or mistyped. Ask the person who sent it for a new one.';
    }
    if (status >= 500) request.log.error({ err: error }, 'web page error');
    const viewer = request.web?.user ? viewerOf(request) : null;
    return sendPage(
      reply,
      ErrorPage({
        status,
        message,
        viewer,
        csrf: viewer ? safeCsrf(request) : undefined,
        signInNext: status === 401 ? request.url : undefined,
        bare: personal,
      }),
      status,
    );
  });

  await app.register(assetRoutes);
  await app.register(authRoutes);
  // Evidence media: the server's store (DATA_DIR/media or S3).
  await app.register(reportRoutes, { media: app.deps.media });
  await app.register(groupRoutes);
  await app.register(intakeRoutes);
  await app.register(settingsRoutes);
  await app.register(workspaceRoutes);
  await app.register(publicRoutes);
  await app.register(privacyRoutes, { media: app.deps.media });
}

function safeCsrf(request: FastifyRequest): string | undefined {
  try {
    return request.web?.csrf();
  } catch {
    return undefined;
  }
}
