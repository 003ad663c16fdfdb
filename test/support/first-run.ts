/**
 * A fresh install's workspace, made as `serve` makes it on an empty store
 * (use-cases/first-run.ts): "Default", a `*` test key, and the first owner's
 * one-time sign-in link (absolute, for a browser). Its limits are those of
 * tests that are not about limits unless `limits` says otherwise (null: the
 * defaults), set through the operator's use-case.
 */
import assert from 'node:assert/strict';
import { firstRun } from '../../src/use-cases/first-run.js';
import { accessLinkPath } from '../../src/use-cases/workspace-members.js';
import { changeWorkspace } from '../../src/use-cases/workspace-settings.js';
import { HIGH_LIMITS, type TestApp } from './app.js';

export interface FirstRun {
  workspaceId: string;
  /** The `*` key's secret. */
  secret: string;
  signInLink: string;
}

export async function firstRunWorkspace(t: TestApp, options: { limits?: Parameters<typeof changeWorkspace>[2] | null } = {}): Promise<FirstRun> {
  const created = await firstRun(t.runtime.db, t.clock);
  assert.ok(created, 'the store was empty');
  if (options.limits !== null) assert.ok(await changeWorkspace(t.runtime.db, created.workspace_id, options.limits ?? HIGH_LIMITS, t.clock.now()));
  return { workspaceId: created.workspace_id, secret: created.secret, signInLink: `${t.baseUrl}${accessLinkPath(created.signInToken)}` };
}
