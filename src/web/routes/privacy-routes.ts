/**
 * Requests about personal data in the web workspace (docs/privacy.md): a
 * person's erasure (with a confirmation naming them) and export, and the
 * owners' privacy page (audit log, deleting the workspace). The role is
 * checked for every request (route-permissions.ts) and again by
 * use-cases/personal-data.ts.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { readAuditLog } from '../../use-cases/audit-log.js';
import { deleteWorkspace, describePerson, erasePerson, exportPerson, type Requester } from '../../use-cases/personal-data.js';
import type { MediaStore } from '../../scanning/media/media-store.js';
import { actorOf, field, viewerOf } from '../forms.js';
import { askFirst } from '../pages/confirm.js';
import { PrivacyPage } from '../pages/privacy.js';
import { paths } from '../paths.js';
import { sendPage } from '../render.js';
import { idParams } from '../route-params.js';

const AUDIT_SHOWN = 200;

export async function privacyRoutes(app: FastifyInstance, options: { media: MediaStore }): Promise<void> {
  const { db, clock } = app.deps;
  const deps = { db, clock, media: options.media };
  const requester = (request: Parameters<typeof actorOf>[0]): Requester => {
    const actor = actorOf(request);
    return { kind: 'user', userId: actor.userId, role: actor.role };
  };
  const personOptions = { schema: { hide: true, params: idParams('report_id', 'profile_id') }, config: { signedIn: true } };

  app.post<{ Params: { report_id: string; profile_id: string } }>('/reports/:report_id/people/:profile_id/erase', personOptions, async (request, reply) => {
    const { report_id: reportId, profile_id: profileId } = request.params;
    const workspaceId = actorOf(request).workspaceId;
    const person = await describePerson(db, workspaceId, reportId, profileId);
    const asked = await askFirst(request, reply, {
      precheck: async () => undefined,
      title: `Erase ${person.name} from this report?`,
      consequence: `Everything stored about ${person.name} (${person.url}) on this report goes for good: supplied details, imported columns, findings, activity, evidence images and history. Adding the same profile later adds them as new. This cannot be undone.`,
      confirm: 'Erase',
      back: paths.person(reportId, profileId),
    });
    if (asked) return reply;
    await erasePerson(deps, requester(request), workspaceId, { reportId, profileId });
    return reply.redirect(`${paths.report(reportId)}?done=erased`, 303);
  });

  app.get<{ Params: { report_id: string; profile_id: string } }>(
    '/reports/:report_id/people/:profile_id/export.json',
    personOptions,
    async (request, reply) => {
      const { report_id: reportId, profile_id: profileId } = request.params;
      const exported = await exportPerson(deps, requester(request), actorOf(request).workspaceId, { reportId, profileId });
      reply.header('Cache-Control', 'no-store');
      reply.header('Content-Disposition', `attachment; filename="person-${profileId}.json"`);
      reply.type('application/json; charset=utf-8');
      return reply.send(JSON.stringify(exported, null, 2));
    },
  );

  const renderPrivacy = async (request: Parameters<typeof actorOf>[0], reply: Parameters<typeof sendPage>[0], error?: string) => {
    const entries = await readAuditLog(db, actorOf(request).workspaceId, AUDIT_SHOWN);
    return sendPage(reply, PrivacyPage({ viewer: viewerOf(request), csrf: request.web.csrf(), entries, error }), error ? 422 : 200);
  };

  app.get(paths.settingsPrivacy, { schema: { hide: true }, config: { signedIn: true } }, async (request, reply) => {
    return renderPrivacy(request, reply);
  });

  app.post(paths.settingsWorkspaceDelete, { schema: { hide: true }, config: { signedIn: true } }, async (request, reply) => {
    let deleted;
    try {
      deleted = await deleteWorkspace(deps, requester(request), actorOf(request).workspaceId, field(request, 'name'), {
        token: request.cookies.ps_session,
        accountId: request.web.user!.accountId,
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 422) return renderPrivacy(request, reply, error.message);
      throw error;
    }
    // An account with another workspace stays signed in there; one without any is signed out with it.
    return reply.redirect(deleted.movedTo ? `${paths.workspaces}?deleted=1` : paths.signIn, 303);
  });
}
