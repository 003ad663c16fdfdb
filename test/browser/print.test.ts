/**
 * A printable report, in Chromium: a person's page prints on one page and a
 * report as its summary, the team's actions and a compact people table, with
 * no controls or scan internals, at A4 and Letter. The PDFs and screenshots
 * of the print layout go to a temporary directory for a person to look at.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { people, reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { firstRunWorkspace } from '../support/first-run.js';
import { launchChromium, ownerSignIn } from '../support/browser.js';

/** The number of pages of a PDF (its page objects). */
const pageCount = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;

describe('printing a report, in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let reportUrl = '';
  let shots = '';

  before(async () => {
    t = await startTestApp();
    const created = await firstRunWorkspace(t);
    const report = await t.request('POST', '/api/v1/reports', {
      key: created.secret,
      headers: { 'idempotency-key': 'print' },
      body: reportBody({ name: 'Print audit', profiles: people(12) }),
    });
    const reportId = report.body.data.report.id as string;
    await t.startWorker(4);
    await scansFinished(t, created.secret, reportId);
    browser = await launchChromium();
    page = await ownerSignIn({
      browser,
      baseUrl: t.baseUrl,
      signInLink: created.signInLink,
      name: 'Pat Print',
      email: 'pat@example.test',
    })(1280, 900);
    reportUrl = `${t.baseUrl}/reports/${reportId}`;
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-print-'));
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function printed(url: string, name: string, format: 'A4' | 'Letter' = 'A4'): Promise<Buffer> {
    await page.goto(url);
    await page.emulateMedia({ media: 'print' });
    try {
      for (const control of [
        'header.site nav',
        'form.filters',
        '.crumbs',
        'section[aria-labelledby="actions-heading"]',
        'section[aria-labelledby="runs-heading"]',
        'section[aria-labelledby="refresh-heading"]',
        'form',
        '.evidence img',
      ]) {
        const shown = await page.locator(control).evaluateAll((els) => els.some((el) => (el as HTMLElement).offsetParent !== null));
        assert.equal(shown, false, `${name}: ${control} is not printed`);
      }
      await page.screenshot({ path: path.join(shots, `${name}-print.png`), fullPage: true });
      const pdf = await page.pdf({ format, printBackground: true });
      await fs.writeFile(path.join(shots, `${name}-${format}.pdf`), pdf);
      return pdf;
    } finally {
      await page.emulateMedia({ media: 'screen' });
    }
  }

  test('the report page prints the summary, the team actions and every row of a compact people table, without controls or scan runs', async () => {
    for (const format of ['A4', 'Letter'] as const) {
      const pdf = await printed(reportUrl, 'report', format);
      assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
      // A summary page, then the table: 12 people fit on a second page.
      assert.ok(pageCount(pdf) >= 1 && pageCount(pdf) <= 2, `${format}: ${pageCount(pdf)} pages`);
    }
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('#gaps').isVisible(), false, 'the team actions stand for the most common gaps');
    assert.ok(await page.locator('#team-actions').isVisible(), 'the team actions are printed');
    assert.equal(await page.locator('#chart').isVisible(), false, 'the chart stays on screen');
    assert.equal(await page.locator('#people-list tbody tr').count(), 12);
    assert.ok(await page.locator('#people-list th', { hasText: 'Good' }).isVisible(), 'every column is printed');
    await page.emulateMedia({ media: 'screen' });
  });

  test("a person's page prints on one page, A4 and Letter: name, score, first fixes with advice, one line per other gap", async () => {
    await page.goto(reportUrl);
    const hrefs = await page.locator('#people-list tbody td:first-child a').evaluateAll((els) => els.map((el) => el.getAttribute('href')!));
    // The person with the most gaps is the longest printout.
    let longest = '';
    let most = -1;
    for (const href of hrefs) {
      await page.goto(`${t.baseUrl}${href}`);
      const gaps = await page.locator('.checks li.outcome-optimize').count();
      if (gaps > most) [longest, most] = [href, gaps];
    }
    const personUrl = `${t.baseUrl}${longest}`;
    for (const format of ['A4', 'Letter'] as const) {
      const pdf = await printed(personUrl, 'person', format);
      assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
      assert.equal(pageCount(pdf), 1, `${format}: ${pageCount(pdf)} pages`);
    }
    await page.emulateMedia({ media: 'print' });
    assert.ok(await page.locator('h1').isVisible());
    assert.ok(await page.locator('#person-score').isVisible());
    assert.ok(await page.locator('#fix-heading').isVisible());
    assert.ok(await page.locator('.fix-list .sub').first().isVisible(), 'the advice is printed');
    assert.equal(await page.locator('#findings-heading').isVisible(), false, 'the findings stay on screen');
    assert.equal(await page.locator('section[aria-labelledby="remove-heading"]').isVisible(), false);
    assert.equal(await page.locator('section[aria-labelledby="share-person-heading"]').isVisible(), false);
    await page.emulateMedia({ media: 'screen' });
  });
});
