/**
 * Views per group and trouble links in Chromium, at desktop and phone sizes,
 * axe-clean: the report page filtered on a group (its figures are the
 * group's), the people table filtered on a kind of trouble, and the compare
 * view, which also prints to PDF. Screenshots and the PDF go to a temporary
 * directory for a person to look at.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { firstRun } from '../../src/use-cases/first-run.js';
import { updateWorkspace } from '../../src/store/workspace-repository.js';
import { accessLinkPath } from '../../src/use-cases/workspace-members.js';
import { HIGH_LIMITS, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { axeCheck, launchChromium, ownerSignIn } from '../support/browser.js';
import { reportFromCsv, webUser } from '../support/web.js';

const DEPARTMENTS = ['Engineering', 'Sales', 'Customer Success', 'People'];
const CSV = [
  'LinkedIn URL,Name,Department',
  ...Array.from({ length: 12 }, (_, i) => `https://pronet.example/in/person-${i + 1},Person ${i + 1},${DEPARTMENTS[i % DEPARTMENTS.length]}`),
  'https://pronet.example/in/inaccessible-ken,Ken Hidden,Sales',
].join('\r\n');

const SIZES = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

describe('groups and trouble, in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let signIn: (width: number, height: number) => Promise<Page>;
  let reportUrl = '';
  let shots = '';

  before(async () => {
    t = await startTestApp();
    const created = (await firstRun(t.runtime.db, t.clock))!;
    await updateWorkspace(t.runtime.db, created.workspace_id, HIGH_LIMITS, t.clock.now());
    const importer = await webUser(t, created.workspace_id);
    const reportId = await reportFromCsv(importer, CSV, { name: 'Department audit' });
    await t.startWorker(4);
    await scansFinished(t, created.secret, reportId, 12, 180_000);
    reportUrl = `${t.baseUrl}/reports/${reportId}`;
    browser = await launchChromium();
    signIn = ownerSignIn({
      browser,
      baseUrl: t.baseUrl,
      signInLink: `${t.baseUrl}${accessLinkPath(created.signInToken)}`,
      name: 'Gina Groups',
      email: 'gina@example.test',
    });
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'groups-'));
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const size of SIZES) {
    test(`${size.name}: a group chosen in the filter scopes the figures, and the page is axe-clean`, async () => {
      const page = await signIn(size.width, size.height);
      await page.goto(reportUrl);
      await page.getByLabel('Group').selectOption({ label: 'Sales' });
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.locator('#group-scope').waitFor();
      assert.match(
        await page.locator('#group-scope').innerText(),
        /Department: Sales — the score, coverage, gaps and chart below count these 4 people only, of 13/,
      );
      assert.match(await page.locator('#summary').innerText(), /3 of 4\s+profiles analyzed/);
      await axeCheck(page, `report filtered on a group (${size.name})`);
      await page.screenshot({ path: path.join(shots, `report-group-${size.name}.png`), fullPage: true });
      await page.context().close();
    });

    test(`${size.name}: a trouble count leads to its people with what to do, axe-clean`, async () => {
      const page = await signIn(size.width, size.height);
      await page.goto(reportUrl);
      await page.locator('#trouble').getByRole('link', { name: '1 person could not be scanned' }).click();
      await page.locator('#status-explained').waitFor();
      const names = await page.locator('#people-list tbody td:first-child > a').allInnerTexts();
      assert.deepEqual(names, ['Ken Hidden']);
      assert.equal(await page.getByLabel('Status').inputValue(), 'profile_inaccessible');
      await axeCheck(page, `people filtered on trouble (${size.name})`);
      await page.context().close();
    });

    test(`${size.name}: the compare view shows the chosen groups side by side, axe-clean`, async () => {
      const page = await signIn(size.width, size.height);
      await page.goto(reportUrl);
      await page.getByRole('link', { name: 'Compare groups' }).click();
      await page.locator('table.compare').waitFor();
      assert.deepEqual(
        await page.locator('table.compare thead th').allInnerTexts(),
        ['Sales', 'Customer Success', 'Engineering', 'People'],
        'the largest group first, then by name',
      );
      await axeCheck(page, `compare view (${size.name})`);
      // Choose two groups only.
      for (const value of ['Customer Success', 'People']) await page.getByLabel(value, { exact: true }).uncheck();
      await page.getByRole('button', { name: 'Compare' }).click();
      await page.waitForURL(/value=Sales/);
      assert.deepEqual(await page.locator('table.compare thead th').allInnerTexts(), ['Engineering', 'Sales']);
      await axeCheck(page, `compare view of two groups (${size.name})`);
      await page.screenshot({ path: path.join(shots, `compare-${size.name}.png`), fullPage: true });
      await page.getByLabel('Engineering', { exact: true }).uncheck();
      await page.getByRole('button', { name: 'Compare' }).click();
      await page.getByText('Choose at least 2 groups to compare.').waitFor();
      await axeCheck(page, `compare view with one group chosen (${size.name})`);
      await page.context().close();
    });
  }

  test('the compare view prints on one A4 page without its controls', async () => {
    const page = await signIn(1280, 900);
    await page.goto(`${reportUrl}/compare`);
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('form[aria-label="Choose the groups to compare"]').isVisible(), false);
    const pdf = await page.pdf({ format: 'A4', printBackground: true });
    await fs.writeFile(path.join(shots, 'compare.pdf'), pdf);
    const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;
    assert.equal(pages, 1);
    console.log(`compare view screenshots and PDF: ${shots}`);
    await page.context().close();
  });
});
