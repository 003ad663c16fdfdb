/**
 * First run: on an empty store, create the workspace "Default" and a
 * `*`-scoped test key. A session advisory lock keeps two processes starting
 * at once from both doing it.
 */
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { countWorkspaces, createKey, createWorkspace, type CreatedKey } from '../store/workspace-repository.js';

const FIRST_RUN_LOCK = 7_305_113_001;

export async function firstRun(db: Db, clock: Clock): Promise<CreatedKey | null> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${FIRST_RUN_LOCK})`.execute(conn);
    try {
      if ((await countWorkspaces(conn)) > 0) return null;
      const workspace = await createWorkspace(conn, 'Default', clock.now());
      return await createKey(conn, { workspaceId: workspace.id, scopes: ['*'], mode: 'test' }, clock.now());
    } finally {
      await sql`select pg_advisory_unlock(${FIRST_RUN_LOCK})`.execute(conn);
    }
  });
}
