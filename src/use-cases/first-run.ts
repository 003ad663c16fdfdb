/**
 * First run: on an empty store, create the workspace "Default", a
 * `*`-scoped test key and a one-time sign-in link for its first owner (the
 * web workspace). A session advisory lock keeps two processes starting at
 * once from both doing it.
 */
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { withSessionLock } from '../store/session-lock.js';
import { countWorkspaces } from '../store/workspace-repository.js';
import { issueKeyAsOperator, type CreatedKey } from './manage-keys.js';
import { createSignInLink, firstOwner } from './workspace-members.js';
import { createWorkspace } from './workspace-settings.js';

const FIRST_RUN_LOCK = 7_305_113_001;

export async function firstRun(db: Db, clock: Clock): Promise<(CreatedKey & { signInToken: string }) | null> {
  return withSessionLock(db, FIRST_RUN_LOCK, { wait: true }, async (conn) => {
    if ((await countWorkspaces(conn)) > 0) return null;
    const workspace = await createWorkspace(conn, 'Default', clock.now());
    const key = await issueKeyAsOperator({ db: conn, clock }, { workspaceId: workspace.id, scopes: ['*'], mode: 'test' });
    const owner = await firstOwner({ db: conn, clock }, workspace.id);
    const link = owner ? await createSignInLink({ db: conn, clock }, owner.id) : null;
    return { ...key, signInToken: link!.token };
  });
}
