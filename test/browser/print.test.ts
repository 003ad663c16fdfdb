/**
 * A printable report, in Chromium: the report page and a person's page print
 * to PDF as a handout (the content, no controls), at A4. Screenshots of the
 * print layout go to a temporary directory for a person to look at.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { firstRun } from '../../src/cli/first-run.js';
import { updateWorkspace } from '../../src/store/workspace-repository.js';
import { accessLinkPath } from '../../src/use-cases/workspace-members.js';
import { HIGH_LIMITS, people, reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
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
    const created = (await firstRun(t.runtime.db, t.clock))!;
    await updateWorkspace(t.runtime.db, created.workspace_id, HIGH_LIMITS, t.clock.now());
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
      signInLink: `${t.baseUrl}${accessLinkPath(created.signInToken)}`,
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

  async function printed(url: string, name: string): Promise<Buffer> {
    await page.goto(url);
    await page.emulateMedia({ media: 'print' });
    try {
      for (const control of ['header.site nav', 'form.filters', '.crumbs', 'section[aria-labelledby="actions-heading"]']) {
        const shown = await page.locator(control).evaluateAll((els) => els.some((el) => (el as HTMLElement).offsetParent !== null));
        assert.equal(shown, false, `${name}: ${control} is not printed`);
      }
      await page.screenshot({ path: path.join(shots, `${name}-print.png`), fullPage: true });
      return await page.pdf({ format: 'A4', printBackground: true });
    } finally {
      await page.emulateMedia({ media: 'screen' });
    }
  }

  test('the report page prints the summary, the most common gaps and every row of the people table, without controls', async () => {
    const pdf = await printed(reportUrl, 'report');
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.ok(pageCount(pdf) >= 1 && pageCount(pdf) <= 6, `${pageCount(pdf)} pages`);
    await page.emulateMedia({ media: 'print' });
    assert.ok(await page.locator('#gaps').isVisible(), 'the most common gaps are printed');
    assert.equal(await page.locator('#people-list tbody tr').count(), 12);
    assert.ok(await page.locator('#people-list th', { hasText: 'Good' }).isVisible(), 'every column is printed');
    await page.emulateMedia({ media: 'screen' });
  });

  test("a person's page prints their fix-first list and findings, without the remove form", async () => {
    await page.goto(reportUrl);
    const personUrl = `${t.baseUrl}${await page.locator('#people-list tbody a').first().getAttribute('href')}`;
    const pdf = await printed(personUrl, 'person');
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.ok(pageCount(pdf) >= 1, `${pageCount(pdf)} pages`);
    await page.emulateMedia({ media: 'print' });
    assert.ok(await page.locator('#fix-heading').isVisible());
    assert.equal(await page.locator('section[aria-labelledby="remove-heading"]').isVisible(), false);
    await page.emulateMedia({ media: 'screen' });
  });
});
