/**
 * The scan allowance in the web workspace, in Chromium at desktop and phone
 * sizes: the settings show it (read-only: the operator sets it), the new
 * report preview and the add-people preview say how much the commit would
 * use and how much is left, and warn before a commit that would be refused.
 * Screenshots are left in the directory the test prints.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { setScanAllowance } from '../../src/use-cases/scan-allowance.js';
// Records billed by the provider: only a live collector records them, so the test stages them.
import { recordProviderUsage } from '../../src/store/provider-usage-repository.js';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';
import { firstRunWorkspace } from '../support/first-run.js';
import { axeCheck, launchChromium, ownerSignIn, watchCsp } from '../support/browser.js';

describe('scan allowance in the web workspace, in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let signInLink = '';
  let reportId = '';
  let workspaceId = '';
  let shots = '';
  const cspViolations: string[] = [];
  let signedIn: (width: number, height: number) => Promise<Page>;

  before(async () => {
    t = await startTestApp();
    const created = await firstRunWorkspace(t);
    await setScanAllowance(t.runtime.db, created.workspaceId, 5, t.clock.now());
    workspaceId = created.workspaceId;
    signInLink = created.signInLink;
    const report = await t.request('POST', '/api/v1/reports', {
      key: created.secret,
      headers: { 'idempotency-key': 'allowance-page' },
      body: reportBody({ profiles: [{ pronet_url: 'https://pronet.example/in/amy-one' }, { pronet_url: 'https://pronet.example/in/ben-two' }] }),
    });
    assert.equal(report.status, 201);
    reportId = report.body.data.report.id;
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-allowance-'));
    browser = await launchChromium();
    signedIn = ownerSignIn({
      browser,
      baseUrl: t.baseUrl,
      signInLink,
      name: 'Olga Owner',
      email: 'olga@example.test',
      watch: (page) => watchCsp(page, cspViolations),
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const fact = (page: Page, term: string) => page.locator(`#scan-allowance dt:has-text("${term}") + dd`).innerText();

  async function noOverflow(page: Page, where: string) {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${where}: no sideways scrolling (overflow ${overflow}px)`);
  }

  test('settings (desktop): the allowance, this month’s use, what is left and when it starts again; no form to change it', async () => {
    const page = await signedIn(1280, 900);
    await page.goto(`${t.baseUrl}/settings`);
    await page.getByRole('heading', { name: 'Scan allowance' }).waitFor();
    assert.equal(await fact(page, 'Per calendar month (UTC)'), '5 profile scans');
    assert.equal(await fact(page, 'Used this month'), '2 profile scans');
    assert.equal(await fact(page, 'Left this month'), '3 profile scans');
    assert.match(await fact(page, 'Starts again'), /UTC$/);
    assert.equal(await page.locator('#scan-allowance input, #scan-allowance form').count(), 0, 'read-only: the operator sets it');
    await axeCheck(page, 'settings with the scan allowance');
    await page.locator('#scan-allowance').screenshot({ path: path.join(shots, 'settings-desktop.png') });
    await page.context().close();
  });

  test('new report preview: what it would use of what is left, and a warning when it is more', async () => {
    const page = await signedIn(1280, 900);
    await page.goto(`${t.baseUrl}/reports/new`);
    await page.getByLabel('Report name').fill('Allowance check');
    await page.getByLabel('Name', { exact: true }).fill('Acme');
    await page.getByLabel('Domain').fill('acme.com');
    await page.getByLabel('Company page URL').fill('https://pronet.example/company/acme');
    const people = ['c1', 'c2', 'c3', 'c4'].map((s) => `https://pronet.example/in/${s}`).join('\n');
    await page.locator('textarea[name="people"]').fill(people);
    await page.locator('input[name="mode"][value="test"]').check();
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: /Check and create/ }).waitFor();
    const line = await page.locator('#allowance-preview dd').innerText();
    assert.equal(line, 'This would use 4 profile scans of the 3 profile scans left this month (5 per month; 2 used).');
    assert.match(await page.locator('#allowance-preview [role="alert"]').innerText(), /more than the workspace's scan allowance has left/);
    await axeCheck(page, 'new report preview over the allowance');
    await page.locator('#allowance-preview').screenshot({ path: path.join(shots, 'new-report-preview.png') });
    // Committing anyway is refused whole, with the reason.
    await page.getByRole('button', { name: 'Create report' }).click();
    await page.getByText(/would queue 4 profile scans/).waitFor();
    await page.context().close();
  });

  test('add-people preview on a phone: the same line, readable without sideways scrolling', async () => {
    const page = await signedIn(375, 740);
    await page.goto(`${t.baseUrl}/reports/${reportId}/import`);
    await page.locator('textarea[name="people"]').fill('https://pronet.example/in/dana-three');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: 'Check and add people' }).waitFor();
    assert.equal(
      await page.locator('#allowance-preview dd').innerText(),
      'This would use 1 profile scan of the 3 profile scans left this month (5 per month; 2 used).',
    );
    assert.equal(await page.locator('#allowance-preview [role="alert"]').count(), 0);
    await noOverflow(page, 'add-people preview on a phone');
    await page.locator('#allowance-preview').screenshot({ path: path.join(shots, 'import-preview-phone.png') });
    await page.goto(`${t.baseUrl}/settings`);
    await noOverflow(page, 'settings on a phone');
    await page.locator('#scan-allowance').screenshot({ path: path.join(shots, 'settings-phone.png') });
    await page.context().close();
    console.log(`# screenshots: ${shots}`);
  });

  test("provider records billed, on the owner's settings at desktop and phone sizes: readable facts, no sideways scrolling", async () => {
    await recordProviderUsage(t.runtime.db, { workspaceId, provider: 'brightdata', records: 1234 });
    for (const [width, height, name] of [
      [1280, 900, 'desktop'],
      [375, 740, 'phone'],
    ] as const) {
      const page = await signedIn(width, height);
      await page.goto(`${t.baseUrl}/settings`);
      await page.getByRole('heading', { name: 'Provider records billed' }).waitFor();
      assert.equal(await page.locator('#billed-records h3').innerText(), 'Bright Data');
      assert.deepEqual(await page.locator('#billed-records dd').allInnerTexts(), ['1,234 records', '1,234 records', '1,234 records']);
      await noOverflow(page, `settings with billed records, ${name}`);
      await axeCheck(page, `settings with billed records, ${name}`);
      await page.locator('#billed-records').screenshot({ path: path.join(shots, `billed-records-${name}.png`) });
      await page.context().close();
    }
  });

  test('no Content-Security-Policy violation', () => {
    assert.deepEqual(cspViolations, []);
  });
});
