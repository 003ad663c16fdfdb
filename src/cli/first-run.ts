/**
 * First run: on an empty store, create the workspace "Default", a
 * `*`-scoped test key and a one-time sign-in link for its first owner (the
 * web workspace). A session advisory lock keeps two processes starting at
 * once from both doing it.
 */
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { countWorkspaces, createKey, createWorkspace, type CreatedKey } from '../store/workspace-repository.js';
import { createSignInLink, firstOwner } from '../use-cases/workspace-members.js';

const FIRST_RUN_LOCK = 7_305_113_001;

export async function firstRun(db: Db, clock: Clock): Promise<(CreatedKey & { signInToken: string }) | null> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${FIRST_RUN_LOCK})`.execute(conn);
    try {
      if ((await countWorkspaces(conn)) > 0) return null;
      const workspace = await createWorkspace(conn, 'Default', clock.now());
      const key = await createKey(conn, { workspaceId: workspace.id, scopes: ['*'], mode: 'test' }, clock.now());
      const owner = await firstOwner({ db: conn, clock }, workspace.id);
      const link = owner ? await createSignInLink({ db: conn, clock }, owner.id) : null;
      return { ...key, signInToken: link!.token };
    } finally {
      await sql`select pg_advisory_unlock(${FIRST_RUN_LOCK})`.execute(conn);
    }
  });
}
