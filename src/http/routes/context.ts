/** GET /context (4.1) and GET /workspace (4.2). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { readWorkspace } from '../../use-cases/workspaces.js';
import { notFound } from '../../domain/errors.js';
import { ContextResponse, WorkspaceResponse } from '../../domain/schemas/workspace.js';

export async function contextRoutes(app: FastifyInstance): Promise<void> {
  // Request (params, querystring, body) and reply types are inferred from each route's TypeBox schemas.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/context',
    {
      config: { access: { kind: 'read', scopes: ['workspace:read'] } },
      schema: {
        tags: ['workspace'],
        summary: 'The calling key, its workspace, scopes and effective limits',
        response: { 200: ContextResponse },
      },
    },
    async (request) => {
      const { keyId, userId, workspaceId, scopes, limits } = request.auth;
      return { data: { key_id: keyId, user_id: userId, workspace_id: workspaceId, scopes, limits }, request_id: request.id };
    },
  );

  api.get(
    '/workspace',
    {
      config: { access: { kind: 'read', scopes: ['workspace:read'] } },
      schema: { tags: ['workspace'], summary: 'The workspace of the calling key', response: { 200: WorkspaceResponse } },
    },
    async (request) => {
      const workspace = await readWorkspace(app.deps.db, request.auth.workspaceId);
      if (!workspace) throw notFound('workspace');
      return {
        data: {
          id: workspace.id,
          name: workspace.name,
          slug: workspace.slug,
          status: workspace.status,
          created_at: workspace.created_at.toISOString(),
          updated_at: workspace.updated_at.toISOString(),
        },
        request_id: request.id,
      };
    },
  );
}
