/** Reading submitted forms (urlencoded or multipart) and the signed-in person, for the route files. */
import type { FastifyRequest } from 'fastify';
import type { Viewer } from './components/layout.js';
import type { Actor } from '../use-cases/workspace-members.js';

/** A text field of the posted form, '' when absent (a repeated field: its first value). */
export function field(request: FastifyRequest, name: string): string {
  const body = request.body as Record<string, unknown> | undefined;
  const value = body?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** Every value of a repeated field (checkboxes). */
export function fields(request: FastifyRequest, name: string): string[] {
  const body = request.body as Record<string, unknown> | undefined;
  const value = body?.[name];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

/** An uploaded file's bytes (multipart, attachFieldsToBody: 'keyValues'), or null when none was chosen. */
export function upload(request: FastifyRequest, name: string): Buffer | null {
  const body = request.body as Record<string, unknown> | undefined;
  const value = body?.[name];
  return Buffer.isBuffer(value) && value.length > 0 ? value : null;
}

export function viewerOf(request: FastifyRequest): Viewer {
  const user = request.web.user!;
  return {
    name: user.name,
    workspaceName: user.workspaceName,
    role: user.role,
    workspaceId: user.workspaceId,
    workspaces: user.workspaces.map((w) => ({ id: w.workspaceId, name: w.workspaceName })),
  };
}

export function actorOf(request: FastifyRequest): Actor {
  const user = request.web.user!;
  return { userId: user.userId, workspaceId: user.workspaceId, role: user.role };
}

/** The client address for per-address limits: the socket's peer, or behind a proxy listed in TRUST_PROXY the client it forwards for. */
export function clientAddress(request: FastifyRequest): string {
  return request.ip;
}
