/**
 * Changes the contract has no endpoint for (archiving, sharing, removing a
 * person, revoking a key, a workspace's access and limits), made for API tests
 * through the same use-cases as the web workspace and the admin CLI, in the
 * operator's scope; the tests then read their effect through the API.
 */
import assert from 'node:assert/strict';
import { revokeKeyAsOperator } from '../../src/use-cases/manage-keys.js';
import { removePerson, setReportArchived, setReportSharing, type ReportScope } from '../../src/use-cases/manage-report.js';
import { changeWorkspace } from '../../src/use-cases/workspace-settings.js';
import type { TestApp } from './app.js';

type App = Pick<TestApp, 'runtime' | 'clock'>;

const anyWorkspace = (t: App): ReportScope => ({ db: t.runtime.db, workspaceId: null, now: t.clock.now() });

/** Archives the report (its unfinished scans are cancelled), or unarchives it. */
export async function archiveReport(t: App, reportId: string, archived = true): Promise<void> {
  assert.ok(await setReportArchived(anyWorkspace(t), reportId, archived), `report ${reportId} exists`);
}

/** Turns the report's public page on or off. */
export async function shareReport(t: App, reportId: string, shared = true): Promise<void> {
  assert.ok(await setReportSharing(anyWorkspace(t), reportId, shared), `report ${reportId} exists`);
}

/** Removes a person from the report's roster. */
export async function removeFromReport(t: App, reportId: string, profileId: string): Promise<void> {
  assert.ok(await removePerson(anyWorkspace(t), reportId, profileId), `person ${profileId} is on report ${reportId}`);
}

export async function revokeKey(t: App, keyId: string): Promise<void> {
  assert.ok(await revokeKeyAsOperator({ db: t.runtime.db, clock: t.clock }, keyId), `key ${keyId} exists`);
}

/** API access and write limits, as the operator sets them. */
export async function changeWorkspaceSettings(t: App, workspaceId: string, changes: Parameters<typeof changeWorkspace>[2]): Promise<void> {
  assert.ok(await changeWorkspace(t.runtime.db, workspaceId, changes, t.clock.now()), `workspace ${workspaceId} exists`);
}
