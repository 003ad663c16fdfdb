/** The account's workspaces: the list, switching (the header's switcher posts here) and a new workspace. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { createWorkspaceFor, listWorkspaces, switchWorkspace } from '../../use-cases/workspaces.js';
import { WorkspacesPage, type WorkspacesProps } from '../pages/workspaces.js';
import { paths } from '../paths.js';
import { sendPage } from '../render.js';
import { field, viewerOf } from '../forms.js';

export async function workspaceRoutes(app: FastifyInstance): Promise<void> {
  const { db, clock, config } = app.deps;
  const ctx = { db, clock };
  const options = { schema: { hide: true }, config: { signedIn: true } };

  async function render(request: FastifyRequest, reply: FastifyReply, extra: Partial<WorkspacesProps> = {}, status = 200) {
    const user = request.web.user!;
    return sendPage(
      reply,
      WorkspacesPage({
        csrf: request.web.csrf(),
        viewer: viewerOf(request),
        currentId: user.workspaceId,
        workspaces: await listWorkspaces(ctx, user.accountId),
        creation: config.webWorkspaceCreation,
        ...extra,
      }),
      status,
    );
  }

  const notices: Record<string, (workspaceName: string) => string> = {
    created: (name) => `Workspace “${name}” created: you are its owner.`,
    deleted: (name) => `The workspace was deleted, with everything of it. You are now in “${name}”.`,
  };
  app.get<{ Querystring: { created?: string; deleted?: string } }>(paths.workspaces, options, async (request, reply) => {
    const done = request.query.created === '1' ? 'created' : request.query.deleted === '1' ? 'deleted' : null;
    return render(request, reply, done ? { notice: notices[done](request.web.user!.workspaceName) } : {});
  });

  app.post(paths.workspaces, options, async (request, reply) => {
    const user = request.web.user!;
    const name = field(request, 'name');
    try {
      const workspace = await createWorkspaceFor(ctx, config.webWorkspaceCreation, { accountId: user.accountId, name: user.name }, name);
      await switchWorkspace(ctx, request.cookies.ps_session, user.accountId, workspace.id);
    } catch (error) {
      if (error instanceof ApiError && error.status === 422) return render(request, reply, { error: error.message, name: name.slice(0, 200) }, 422);
      throw error;
    }
    return reply.redirect(`${paths.workspaces}?created=1`, 303);
  });

  // A page of the previous workspace is not one of the next: the report list is where every workspace starts.
  app.post(paths.workspaceSwitch, options, async (request, reply) => {
    const user = request.web.user!;
    await switchWorkspace(ctx, request.cookies.ps_session, user.accountId, field(request, 'workspace'));
    return reply.redirect(paths.reports, 303);
  });
}
