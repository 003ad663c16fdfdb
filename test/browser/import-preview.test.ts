/**
 * The add-people preview of a real spreadsheet in Chromium at desktop and
 * phone sizes: the choice of the URL column, the columns not imported, the
 * note on several imports, and the problems of a file with bad rows; axe-core
 * finds no violation and the page does not scroll sideways. Screenshots are
 * left in the directory the test prints.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';
import { firstRunWorkspace } from '../support/first-run.js';
import { axeCheck, launchChromium, ownerSignIn, watchCsp } from '../support/browser.js';

const SIZES = [
  { name: 'desktop', width: 1366, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

const EXTRA = Array.from({ length: 11 }, (_, i) => `Extra field ${i + 1}`);
const GOOD = [
  ['Name', 'URL', 'LinkedIn URL', 'Department', ...EXTRA].join(','),
  ...Array.from({ length: 150 }, (_, i) =>
    [`Person ${i}`, `https://acme.example/team/p-${i}`, `www.linkedin.com/in/browser-${i}`, i % 2 ? 'Sales' : 'Engineering', ...EXTRA.map(() => 'x')].join(','),
  ),
].join('\n');
const BAD = [
  'LinkedIn URL,Name',
  'linkedin.com/in/ok,Ok',
  'https://www.linkedin.com/company/acme,Acme',
  'https://www.linkedin.com/posts/someone_activity-1,Post',
].join('\n');

describe('import preview in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let reportId = '';
  let shots = '';
  let signedIn: (width: number, height: number) => Promise<Page>;

  before(async () => {
    t = await startTestApp();
    const created = await firstRunWorkspace(t);
    const report = await t.request('POST', '/api/v1/reports', {
      key: created.secret,
      headers: { 'idempotency-key': 'import-preview' },
      body: reportBody({ profiles: [{ pronet_url: 'https://pronet.example/in/amy-one' }] }),
    });
    assert.equal(report.status, 201);
    reportId = report.body.data.report.id;
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-import-preview-'));
    browser = await launchChromium();
    signedIn = ownerSignIn({
      browser,
      baseUrl: t.baseUrl,
      signInLink: created.signInLink,
      name: 'Olga Owner',
      email: 'olga@example.test',
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function upload(page: Page, csv: string): Promise<void> {
    await page.goto(`${t.baseUrl}/reports/${reportId}/import`);
    await page.setInputFiles('#csv', { name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await Promise.all([page.waitForNavigation(), page.click('form.stack button[type="submit"]')]);
  }

  const sideways = (page: Page) =>
    page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const wide = [...document.querySelectorAll<HTMLElement>('main *')]
        .filter((e) => e.getBoundingClientRect().right > width + 0.5)
        .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className ? `.${String(e.className)}` : ''}`);
      return { overflow: document.documentElement.scrollWidth - width, wide };
    });

  for (const { name, width, height } of SIZES) {
    test(`the preview of a 150-row file offers the URL column, lists the columns not imported and passes axe (${name})`, async (ctx) => {
      const page = await signedIn(width, height);
      const csp: string[] = [];
      watchCsp(page, csp);
      await upload(page, GOOD);
      await page.getByRole('heading', { name: 'Check and add people' }).waitFor();
      assert.equal(await page.locator('#url_column').inputValue(), 'LinkedIn URL');
      assert.equal(await page.getByLabel('Several columns could hold the profile URLs. Profile URLs from the column').count(), 1);
      assert.match(await page.locator('main').innerText(), /“Extra field 10”: at most 10 other columns are kept/);
      assert.match(await page.locator('main').innerText(), /The 150 people are added as 2 imports of at most 100/);
      await axeCheck(page, `import preview (${name})`);
      await page.locator('form.card').screenshot({ path: path.join(shots, `preview-choice-${name}.png`) });
      await page.screenshot({ path: path.join(shots, `preview-${name}.png`), fullPage: false });
      assert.equal((await sideways(page)).overflow, 0, `${name}: the page scrolls sideways`);

      // Choosing the other column reads the people again from it.
      await page.selectOption('#url_column', 'URL');
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Use this column' }).click()]);
      assert.equal(await page.locator('#url_column').inputValue(), 'URL');
      assert.match(await page.locator('table').innerText(), /https:\/\/acme\.example\/team\/p-0/);
      await axeCheck(page, `import preview, other column (${name})`);
      assert.deepEqual(csp, []);
      ctx.diagnostic(`screenshots in ${shots}`);
      await page.context().close();
    });

    test(`a file with wrong kinds of URLs is answered on the form by row, quoting the values, and passes axe (${name})`, async () => {
      const page = await signedIn(width, height);
      await upload(page, BAD);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      const text = await alert.innerText();
      assert.match(text, /Row 3: “https:\/\/www\.linkedin\.com\/company\/acme” is a company page/);
      assert.match(text, /Row 4: “https:\/\/www\.linkedin\.com\/posts\/someone_activity-1” is a post/);
      await axeCheck(page, `import problems (${name})`);
      await page.screenshot({ path: path.join(shots, `problems-${name}.png`), fullPage: true });
      assert.deepEqual(await sideways(page), { overflow: 0, wide: [] }, `${name}: the page scrolls sideways`);
      await page.context().close();
    });

    test(`the bad rows left out, the preview lists them and passes axe (${name})`, async () => {
      const page = await signedIn(width, height);
      await upload(page, BAD);
      await page.getByRole('alert').waitFor();
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: /^Leave out these \d+ rows and preview the rest$/ }).click()]);
      const notice = await page.locator('.notice.info', { hasText: 'left out, as you chose' }).innerText();
      assert.match(notice, /Row 3: “https:\/\/www\.linkedin\.com\/company\/acme” is a company page/);
      assert.ok(await page.getByRole('button', { name: 'Add 1 person' }).isVisible(), 'only the row that can be imported is left to add');
      await axeCheck(page, `import with rows left out (${name})`);
      await page.screenshot({ path: path.join(shots, `left-out-${name}.png`), fullPage: true });
      assert.deepEqual(await sideways(page), { overflow: 0, wide: [] }, `${name}: the page scrolls sideways`);
      await page.context().close();
    });
  }
});
