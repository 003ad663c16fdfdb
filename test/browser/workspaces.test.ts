/**
 * One account in several workspaces, in Chromium at desktop and phone
 * sizes: a workspace created from the Workspaces page, the header's
 * switcher, an invitation accepted with the signed-in account (viewer there,
 * owner in its own), the owner's rename form, and the page that says the
 * operator creates workspaces when the setting keeps it to them. axe-clean
 * in every state; screenshots are left in the directory the test prints.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { accessLinkPath, inviteMember } from '../../src/use-cases/workspace-members.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { firstRunWorkspace } from '../support/first-run.js';
import { axeCheck, launchChromium, ownerSignIn, watchCsp } from '../support/browser.js';
import { webUser } from '../support/web.js';

async function noOverflow(page: Page, where: string) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `${where}: no sideways scrolling (overflow ${overflow}px)`);
}

const current = (page: Page) => page.locator('#switch-workspace option:checked').innerText();

describe('several workspaces per account, in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let shots = '';
  let inviteLink = '';
  const cspViolations: string[] = [];
  let signedIn: (width: number, height: number) => Promise<Page>;

  before(async () => {
    t = await startTestApp();
    const created = await firstRunWorkspace(t, { limits: null });
    // Another company's workspace, whose owner invites Olga as a viewer.
    const other = await t.tenant({ name: 'Client Gamma' });
    const gammaOwner = await webUser(t, other.workspaceId, 'owner');
    const { token } = await inviteMember(
      { db: t.runtime.db, clock: t.clock },
      { userId: gammaOwner.userId, workspaceId: other.workspaceId, role: 'owner' },
      { role: 'viewer', label: 'Olga' },
    );
    inviteLink = `${t.baseUrl}${accessLinkPath(token)}`;
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-workspaces-'));
    console.log(`screenshots: ${shots}`);
    browser = await launchChromium();
    signedIn = ownerSignIn({
      browser,
      baseUrl: t.baseUrl,
      signInLink: created.signInLink,
      name: 'Olga Owner',
      email: 'olga@example.test',
      watch: (page) => watchCsp(page, cspViolations),
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('desktop: create a workspace, switch with the header, accept an invitation as the signed-in account, rename as owner', async () => {
    const page = await signedIn(1280, 900);
    await page.getByRole('link', { name: 'Workspaces' }).click();
    await page.getByRole('heading', { name: 'Workspaces', level: 1 }).waitFor();
    await axeCheck(page, 'workspaces page, one workspace');
    await page.getByLabel('Name').fill('Client Beta');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByText('Workspace “Client Beta” created: you are its owner.').waitFor();
    assert.equal(await current(page), 'Client Beta');
    await axeCheck(page, 'workspaces page after creating one');
    await page.screenshot({ path: path.join(shots, 'workspaces-desktop.png'), fullPage: true });

    // The header's switcher: back to the first workspace.
    const first = await page.locator('#switch-workspace option:not(:checked)').innerText();
    await page.getByLabel('Current workspace').selectOption({ label: first });
    await page.getByRole('button', { name: 'Switch', exact: true }).click();
    await page.waitForURL(`${t.baseUrl}/reports`);
    assert.equal(await current(page), first);
    await axeCheck(page, 'reports with the switcher');
    await page.locator('header.site').screenshot({ path: path.join(shots, 'header-desktop.png') });

    // The invitation, accepted with the signed-in account: a viewer there.
    await page.goto(inviteLink);
    await page.getByRole('heading', { name: 'Join Client Gamma' }).waitFor();
    await axeCheck(page, 'invitation while signed in');
    await page.screenshot({ path: path.join(shots, 'invitation-signed-in-desktop.png'), fullPage: true });
    await page.getByRole('button', { name: 'Join with this account' }).click();
    await page.waitForURL(`${t.baseUrl}/reports`);
    assert.equal(await current(page), 'Client Gamma');
    assert.equal(await page.getByRole('link', { name: 'New report' }).count(), 0, 'a viewer creates no report');
    await page.goto(`${t.baseUrl}/settings`);
    assert.equal(await page.getByRole('heading', { name: 'Workspace name' }).count(), 0, 'a viewer renames nothing');

    // Owner of Client Beta: the rename form.
    await page.getByLabel('Current workspace').selectOption({ label: 'Client Beta' });
    await page.getByRole('button', { name: 'Switch', exact: true }).click();
    await page.waitForURL(`${t.baseUrl}/reports`);
    await page.goto(`${t.baseUrl}/settings`);
    await page.getByLabel('Name', { exact: true }).fill('Beta GmbH');
    await page.getByRole('button', { name: 'Rename workspace' }).click();
    await page.getByText('The workspace was renamed.').waitFor();
    assert.equal(await current(page), 'Beta GmbH');
    await axeCheck(page, 'settings after a rename');
    await page.locator('section[aria-labelledby="rename-heading"]').screenshot({ path: path.join(shots, 'rename-desktop.png') });
    await page.goto(`${t.baseUrl}/workspaces`);
    const roles = await page.locator('tbody tr').allInnerTexts();
    assert.deepEqual(
      roles.map((r) => r.split('\t').slice(0, 2).join(' | ')),
      ['Beta GmbH | Owner', 'Client Gamma | Viewer (reads only)', `${first} | Owner`],
    );
    await page.context().close();
  });

  test('phone: the header wraps the switcher without sideways scrolling; switching works', async () => {
    const page = await signedIn(390, 844);
    await noOverflow(page, 'reports on a phone');
    await axeCheck(page, 'reports with the switcher on a phone');
    await page.locator('header.site').screenshot({ path: path.join(shots, 'header-phone.png') });
    await page.getByLabel('Current workspace').selectOption({ label: 'Client Gamma' });
    await page.getByRole('button', { name: 'Switch', exact: true }).click();
    await page.waitForURL(`${t.baseUrl}/reports`);
    assert.equal(await current(page), 'Client Gamma');
    await page.goto(`${t.baseUrl}/workspaces`);
    await noOverflow(page, 'workspaces on a phone');
    await axeCheck(page, 'workspaces on a phone');
    await page.screenshot({ path: path.join(shots, 'workspaces-phone.png'), fullPage: true });
    await page.context().close();
    assert.deepEqual(cspViolations, []);
  });
});

describe('workspace creation kept to the operator, in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let signedIn: (width: number, height: number) => Promise<Page>;
  let shots = '';

  before(async () => {
    t = await startTestApp({ env: { WEB_WORKSPACE_CREATION: 'operator' } });
    const created = await firstRunWorkspace(t, { limits: null });
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-workspaces-operator-'));
    console.log(`screenshots: ${shots}`);
    browser = await launchChromium();
    signedIn = ownerSignIn({
      browser,
      baseUrl: t.baseUrl,
      signInLink: created.signInLink,
      name: 'Otto Owner',
      email: 'otto@example.test',
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [label, width, height] of [
    ['desktop', 1280, 900],
    ['phone', 390, 844],
  ] as const) {
    test(`${label}: the Workspaces page says the operator creates workspaces and offers no form`, async () => {
      const page = await signedIn(width, height);
      await page.goto(`${t.baseUrl}/workspaces`);
      await page.getByText('On this installation, new workspaces are created by the operator').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Create workspace' }).count(), 0);
      await noOverflow(page, `operator-only workspaces page (${label})`);
      await axeCheck(page, `operator-only workspaces page (${label})`);
      await page.screenshot({ path: path.join(shots, `workspaces-operator-${label}.png`), fullPage: true });
      await page.context().close();
    });
  }
});
