/**
 * Workspaces, their users and API keys.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { generateSecret, hashSecret, type KeyMode, type Scope } from '../domain/keys.js';
import type { ApiKeysTable, Database, WorkspacesTable } from './schema.js';

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;

export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return slug === '' ? 'workspace' : slug;
}

export async function createWorkspace(db: Kysely<Database>, name: string, now: Date): Promise<WorkspaceRow> {
  return db.transaction().execute(async (trx) => {
    const base = slugify(name);
    const taken = await trx
      .selectFrom('workspaces')
      .select('slug')
      .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
      .execute();
    const used = new Set(taken.map((r) => r.slug));
    let slug = base;
    for (let n = 2; used.has(slug); n++) slug = `${base}-${n}`;
    const workspace = await trx
      .insertInto('workspaces')
      .values({ id: randomUUID(), name, slug, status: 'active', api_access: true, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('users')
      .values({ id: randomUUID(), workspace_id: workspace.id, name: `${name} owner`, role: 'owner', created_at: now })
      .execute();
    return workspace;
  });
}

export async function findWorkspace(db: Kysely<Database>, id: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countWorkspaces(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('workspaces')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface WorkspaceChanges {
  api_access?: boolean;
  writes_per_minute_per_key?: number | null;
  writes_per_minute_per_workspace?: number | null;
  submitted_profiles_per_minute_per_workspace?: number | null;
}

export async function updateWorkspace(db: Kysely<Database>, id: string, changes: WorkspaceChanges, now: Date): Promise<WorkspaceRow | undefined> {
  return db
    .updateTable('workspaces')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export interface CreatedKey {
  id: string;
  user_id: string;
  workspace_id: string;
  secret: string;
  scopes: string[];
  mode: KeyMode;
}

export async function createKey(
  db: Kysely<Database>,
  input: { workspaceId: string; userId?: string; scopes: Scope[]; mode: KeyMode },
  now: Date,
): Promise<CreatedKey> {
  return db.transaction().execute(async (trx) => {
    const user = await trx
      .selectFrom('users')
      .select('id')
      .where('workspace_id', '=', input.workspaceId)
      .$if(input.userId !== undefined, (qb) => qb.where('id', '=', input.userId!))
      .orderBy('created_at')
      .executeTakeFirst();
    if (!user) throw new Error(input.userId ? 'no such user in this workspace' : 'no such workspace');
    const secret = generateSecret(input.mode);
    const id = randomUUID();
    const scopes = [...new Set(input.scopes)].sort();
    await trx
      .insertInto('api_keys')
      .values({
        id,
        workspace_id: input.workspaceId,
        user_id: user.id,
        mode: input.mode,
        scopes,
        secret_hash: hashSecret(secret),
        secret_prefix: secret.slice(0, 13),
        created_at: now,
      })
      .execute();
    return { id, user_id: user.id, workspace_id: input.workspaceId, secret, scopes, mode: input.mode };
  });
}

export async function revokeKey(db: Kysely<Database>, keyId: string, now: Date): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)) }))
    .where('id', '=', keyId)
    .returningAll()
    .executeTakeFirst();
}

export interface AuthenticatedKey {
  key_id: string;
  user_id: string;
  workspace_id: string;
  mode: KeyMode;
  scopes: string[];
  revoked: boolean;
  api_access: boolean;
  writes_per_minute_per_key: number | null;
  writes_per_minute_per_workspace: number | null;
  submitted_profiles_per_minute_per_workspace: number | null;
}
