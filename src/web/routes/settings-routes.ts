/**
 * Settings pages and actions. Every action goes through a use-case that
 * checks the role itself (a member is refused with 403 there, whatever the
 * page showed), scoped to the signed-in user's workspace.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, notFound } from '../../domain/errors.js';
import { can } from '../../domain/permissions.js';
import { isRole } from '../../domain/web-tokens.js';
import { issueKey, listKeys, revokeKey } from '../../use-cases/manage-keys.js';
import {
  accessLinkPath,
  checkMemberRemoval,
  changeRole,
  inviteMember,
  listInvitations,
  listMembers,
  removeMember,
  revokeInvitation,
} from '../../use-cases/workspace-members.js';
import { readWorkspace, updateWorkspaceSettings } from '../../use-cases/workspace-settings.js';
import { renameWorkspace } from '../../use-cases/workspaces.js';
import { readScanAllowance } from '../../use-cases/scan-allowance.js';
import { readBilledRecords } from '../../use-cases/provider-usage.js';
import { SettingsPage, type SettingsProps } from '../pages/settings.js';
import { paths } from '../paths.js';
import { sendPage } from '../render.js';
import { askFirst } from '../pages/confirm.js';
import { actorOf, field, fields, viewerOf } from '../forms.js';
import { idParams } from '../route-params.js';

const IdParams = idParams('id');

const NOTICES: Record<string, string> = {
  key_revoked: 'The key was revoked: the next API request with it is refused.',
  invitation_revoked: 'The invitation was revoked.',
  role_changed: 'The role was changed.',
  member_removed: 'The member was removed: their sessions ended and their keys were revoked.',
  workspace_saved: 'The workspace settings were saved.',
  workspace_renamed: 'The workspace was renamed.',
};

export async function settingsRoutes(app: FastifyInstance): Promise<void> {
  const { db, clock, config } = app.deps;
  const ctx = { db, clock, readLimitMultiplier: config.readLimitMultiplier };
  const options = { schema: { hide: true }, config: { signedIn: true } };
  const withId = { schema: { hide: true, params: IdParams }, config: { signedIn: true } };

  async function render(request: FastifyRequest, reply: FastifyReply, extra: Partial<SettingsProps> = {}, status = 200) {
    const actor = actorOf(request);
    const manage = can(actor.role, 'manage_workspace');
    const [{ workspace, limits }, members, keys, invitations, allowance, billed] = await Promise.all([
      readWorkspace(ctx, actor),
      listMembers(ctx, actor),
      manage ? listKeys(ctx, actor) : null,
      manage ? listInvitations(ctx, actor) : null,
      readScanAllowance(db, actor.workspaceId, clock.now()),
      manage ? readBilledRecords(db, actor.workspaceId) : null,
    ]);
    return sendPage(
      reply,
      SettingsPage({
        csrf: request.web.csrf(),
        viewer: viewerOf(request),
        viewerId: actor.userId,
        workspace,
        limits,
        allowance,
        billed,
        members,
        keys,
        invitations,
        ...extra,
      }),
      status,
    );
  }

  /** Runs an action; a 422 (a rule of the form) re-renders the page with its message. */
  async function act(request: FastifyRequest, reply: FastifyReply, action: () => Promise<void>, done: string) {
    try {
      await action();
    } catch (error) {
      if (error instanceof ApiError && error.status === 422) return render(request, reply, { error: error.message }, 422);
      throw error;
    }
    return reply.redirect(`${paths.settings}?done=${done}`, 303);
  }

  app.get<{ Querystring: { done?: string } }>('/settings', options, async (request, reply) =>
    render(request, reply, { notice: NOTICES[request.query.done ?? ''] }),
  );

  app.post('/settings/keys', options, async (request, reply) => {
    try {
      const key = await issueKey(ctx, actorOf(request), { scopes: fields(request, 'scopes'), mode: field(request, 'mode') });
      // The secret is rendered into this response only (never a URL or a redirect), and never stored.
      reply.header('Cache-Control', 'no-store');
      return render(request, reply, { newKey: { id: key.id, secret: key.secret, mode: key.mode, scopes: key.scopes } });
    } catch (error) {
      if (error instanceof ApiError && error.status === 422) return render(request, reply, { error: error.message }, 422);
      throw error;
    }
  });

  app.post<{ Params: { id: string } }>('/settings/keys/:id/revoke', withId, async (request, reply) =>
    (await askFirst(request, reply, {
      precheck: async () => {
        const key = (await listKeys(ctx, actorOf(request))).find((k) => k.id === request.params.id);
        if (!key) throw notFound('key');
        return key;
      },
      title: (key) => `Revoke the ${key.mode} API key ${key.secret_prefix}… of ${key.user_name}?`,
      consequence: 'The next API request with it is refused, in every process. This cannot be undone: create a new key if you need one.',
      confirm: 'Revoke',
      back: paths.settings,
    }))
      ? reply
      : act(request, reply, () => revokeKey(ctx, actorOf(request), request.params.id), 'key_revoked'),
  );

  app.post('/settings/invitations', options, async (request, reply) => {
    const role = field(request, 'role');
    if (!isRole(role)) return render(request, reply, { error: 'Choose a role for the invitation.' }, 422);
    const { token } = await inviteMember(ctx, actorOf(request), { role, label: field(request, 'label') || null });
    return render(request, reply, { newInvitationUrl: `${app.publicBaseUrl}${accessLinkPath(token)}` });
  });

  app.post<{ Params: { id: string } }>('/settings/invitations/:id/revoke', withId, async (request, reply) =>
    act(request, reply, () => revokeInvitation(ctx, actorOf(request), request.params.id), 'invitation_revoked'),
  );

  app.post<{ Params: { id: string } }>('/settings/members/:id/role', withId, async (request, reply) => {
    const role = field(request, 'role');
    return act(
      request,
      reply,
      async () => {
        if (!isRole(role)) throw new ApiError('validation_failed', 'Choose a role.');
        await changeRole(ctx, actorOf(request), request.params.id, role);
      },
      'role_changed',
    );
  });

  app.post<{ Params: { id: string } }>('/settings/members/:id/remove', withId, async (request, reply) =>
    (await askFirst(request, reply, {
      precheck: async () => {
        await checkMemberRemoval(ctx, actorOf(request), request.params.id);
        return (await listMembers(ctx, actorOf(request))).find((m) => m.id === request.params.id);
      },
      title: (member) => `Remove ${member ? `${member.name}${member.email ? ` (${member.email})` : ''}` : 'this member'} from the workspace?`,
      consequence: 'They are signed out and can no longer open the workspace. Invite them again to give them access back.',
      confirm: 'Remove',
      back: paths.settings,
    }))
      ? reply
      : act(request, reply, () => removeMember(ctx, actorOf(request), request.params.id), 'member_removed'),
  );

  app.post('/settings/workspace', options, async (request, reply) => {
    const limit = (name: string): number | null => {
      const raw = field(request, name).trim();
      if (raw === '') return null;
      if (!/^\d{1,7}$/.test(raw)) return Number.NaN;
      return Number(raw);
    };
    return act(
      request,
      reply,
      async () => {
        await updateWorkspaceSettings(ctx, actorOf(request), {
          api_access: field(request, 'api_access') === '1',
          writes_per_minute_per_key: limit('writes_per_minute_per_key'),
          writes_per_minute_per_workspace: limit('writes_per_minute_per_workspace'),
          submitted_profiles_per_minute_per_workspace: limit('submitted_profiles_per_minute_per_workspace'),
        });
      },
      'workspace_saved',
    );
  });

  app.post(paths.settingsWorkspaceName, options, async (request, reply) =>
    act(request, reply, async () => void (await renameWorkspace(ctx, actorOf(request), field(request, 'name'))), 'workspace_renamed'),
  );
}
