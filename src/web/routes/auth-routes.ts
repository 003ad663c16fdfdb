/** Sign-in, sign-out, one-time links and the account page. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { acceptInvitation, changePassword, describeLink, redeemLink, signIn, signOut } from '../../use-cases/sign-in.js';
import { switchWorkspace } from '../../use-cases/workspaces.js';
import { clearSessionCookie, setSessionCookie } from '../session-cookie.js';
import { AccountPage } from '../pages/account.js';
import { LinkPage } from '../pages/link.js';
import { SignInPage } from '../pages/sign-in.js';
import { paths, safeNext } from '../paths.js';
import { sendPage } from '../render.js';
import { tokenParams } from '../route-params.js';
import { clientAddress, field, viewerOf } from '../forms.js';

function signedInAs(request: FastifyRequest): string | null {
  const user = request.web.user;
  return user ? (user.email ?? user.name) : null;
}

export async function authRoutes(app: FastifyInstance): Promise<void> {
  const { db, clock } = app.deps;
  const ctx = { db, clock };

  app.get('/', { schema: { hide: true } }, async (request, reply) => reply.redirect(request.web.user ? paths.reports : paths.signIn, 303));

  app.get<{ Querystring: { next?: string; signed_out?: string } }>('/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const next = safeNext(request.query.next);
    if (request.web.user) return reply.redirect(next, 303);
    return sendPage(reply, SignInPage({ csrf: request.web.csrf(), next, signedOut: request.query.signed_out === '1' }));
  });

  app.post('/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const next = safeNext(field(request, 'next'));
    const email = field(request, 'email');
    try {
      const { token } = await signIn(ctx, {
        email,
        password: field(request, 'password'),
        clientAddress: clientAddress(request),
        previousToken: request.cookies.ps_session ?? null,
      });
      setSessionCookie(reply, app.publicBaseUrl, token);
      return reply.redirect(next, 303);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 401 && error.status !== 429)) throw error;
      if (error.headers) reply.headers(error.headers);
      return sendPage(reply, SignInPage({ csrf: request.web.csrf(), next, email: email.slice(0, 254), error: error.message }), error.status);
    }
  });

  app.post('/sign-out', { schema: { hide: true } }, async (request, reply) => {
    await signOut(ctx, request.cookies.ps_session);
    clearSessionCookie(reply, app.publicBaseUrl);
    return reply.redirect(`${paths.signIn}?signed_out=1`, 303);
  });

  app.get<{ Params: { token: string } }>('/links/:token', { schema: { hide: true, params: tokenParams } }, async (request, reply) => {
    // The token is the URL's secret: Referer goes only to this site (the plugin's same-origin policy;
    // no-referrer would make the browser send \`Origin: null\` with the form, which the Origin check refuses).
    const link = await describeLink(ctx, request.params.token);
    if (!link) throw new ApiError('not_found', 'This link was already used, has expired or was revoked. Ask an owner or admin for a new one.');
    return sendPage(reply, LinkPage({ csrf: request.web.csrf(), action: paths.link(request.params.token), link, signedInAs: signedInAs(request) }));
  });

  app.post<{ Params: { token: string } }>('/links/:token', { schema: { hide: true, params: tokenParams } }, async (request, reply) => {
    const input = { name: field(request, 'name'), email: field(request, 'email'), password: field(request, 'password') };
    const user = request.web.user;
    try {
      if (user && field(request, 'join') === '1') {
        // The signed-in account accepts the invitation: the session moves to the workspace it joined.
        const joined = await acceptInvitation(ctx, request.params.token, { accountId: user.accountId, name: user.name });
        await switchWorkspace(ctx, request.cookies.ps_session, user.accountId, joined.workspace_id);
        return reply.redirect(paths.reports, 303);
      }
      const token = await redeemLink(ctx, request.params.token, {
        ...input,
        previousToken: request.cookies.ps_session ?? null,
        clientAddress: clientAddress(request),
      });
      setSessionCookie(reply, app.publicBaseUrl, token);
      return reply.redirect(paths.reports, 303);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 422 && error.status !== 429)) throw error;
      if (error.headers) reply.headers(error.headers);
      const link = await describeLink(ctx, request.params.token);
      if (!link) throw error;
      return sendPage(
        reply,
        LinkPage({
          csrf: request.web.csrf(),
          action: paths.link(request.params.token),
          link,
          error: error.message,
          name: input.name.slice(0, 200),
          email: input.email.slice(0, 254),
          signedInAs: signedInAs(request),
        }),
        error.status,
      );
    }
  });

  app.get<{ Querystring: { changed?: string } }>('/account', { schema: { hide: true }, config: { signedIn: true } }, async (request, reply) => {
    const email = request.web.user!.email;
    return sendPage(reply, AccountPage({ csrf: request.web.csrf(), viewer: viewerOf(request), email, changed: request.query.changed === '1' }));
  });

  app.post('/account/password', { schema: { hide: true }, config: { signedIn: true } }, async (request, reply) => {
    try {
      const token = await changePassword(ctx, request.web.user!, {
        current: field(request, 'current'),
        next: field(request, 'next'),
        clientAddress: clientAddress(request),
      });
      setSessionCookie(reply, app.publicBaseUrl, token);
      return reply.redirect(`${paths.account}?changed=1`, 303);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 422 && error.status !== 429)) throw error;
      if (error.headers) reply.headers(error.headers);
      const email = request.web.user!.email;
      return sendPage(reply, AccountPage({ csrf: request.web.csrf(), viewer: viewerOf(request), email, error: error.message }), error.status);
    }
  });
}
