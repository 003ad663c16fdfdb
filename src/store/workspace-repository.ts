/**
 * Workspaces and their first user (API keys: key-repository.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Database, WorkspacesTable } from './schema.js';

export type WorkspaceRow = Selectable<WorkspacesTable>;

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

/**
 * Inserts a workspace with a free slug and its first user (an owner): the
 * membership of `owner`'s account, else a new account without credentials
 * (its sign-in link sets them). Run it in a transaction
 * (use-cases/workspace-settings.ts): the slug is chosen from what the same
 * transaction read.
 */
export async function insertWorkspace(
  trx: Kysely<Database>,
  name: string,
  now: Date,
  owner: { accountId: string; name: string } | null = null,
): Promise<WorkspaceRow> {
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
  const accountId =
    owner?.accountId ??
    (
      await trx
        .insertInto('accounts')
        .values({ id: randomUUID(), email: null, password_hash: null, password_changed_at: null, created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  await trx
    .insertInto('users')
    .values({ id: randomUUID(), workspace_id: workspace.id, account_id: accountId, name: owner?.name ?? `${name} owner`, role: 'owner', created_at: now })
    .execute();
  return workspace;
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
  name?: string;
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
