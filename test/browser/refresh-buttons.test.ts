/**
 * "Scan again", "Try these again" and the refresh schedule in Chromium, at
 * desktop and phone sizes: the controls are reachable by their names, the
 * confirmation names what it acts on, confirming queues the scans and says so,
 * no sideways scrolling, no accessibility violation (axe-core) and no
 * Content-Security-Policy violation. Screenshots are left in the directory
 * the test prints, to be looked at.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { axeCheck, launchChromium, watchCsp } from '../support/browser.js';
import { webUser, type WebUser } from '../support/web.js';

const SIZES = [
  { where: 'desktop', width: 1280, height: 900 },
  { where: 'phone', width: 390, height: 844 },
];

describe('refresh controls in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let member: WebUser;
  let reportId: string;
  let shots = '';
  const cspViolations: string[] = [];

  before(async () => {
    t = await startTestApp();
    const tenant = await t.tenant();
    member = await webUser(t, tenant.workspaceId, 'member');
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': 'refresh-browser' },
      body: reportBody({
        profiles: [
          { pronet_url: 'https://pronet.example/in/jane-doe', name: 'Jane Doe' },
          { pronet_url: 'https://pronet.example/in/inaccessible-roe', name: 'John Roe' },
        ],
      }),
    });
    reportId = created.body.data.report.id;
    const worker = await t.startWorker(2);
    await scansFinished(t, tenant.secret, reportId, 1);
    await worker.stop();
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-refresh-'));
    console.log(`# screenshots: ${shots}`);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(width: number, height: number): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height } });
    await context.addCookies([{ name: 'ps_session', value: member.client.cookies.get('ps_session')!, url: t.baseUrl }]);
    const page = await context.newPage();
    watchCsp(page, cspViolations);
    return page;
  }

  for (const size of SIZES) {
    test(`the report's Scan again section at ${size.where} size: buttons, confirmation, the notice, the schedule; axe finds nothing`, async () => {
      const page = await signedIn(size.width, size.height);
      await page.goto(`${t.baseUrl}/reports/${reportId}`);
      const section = page.getByRole('region', { name: 'Scan again' });
      await section.scrollIntoViewIfNeeded();
      assert.ok(await section.getByRole('button', { name: 'Scan again: all 2 people' }).isVisible());
      assert.ok(await section.getByRole('button', { name: 'Try these again (1): the people who failed or were inaccessible' }).isVisible());
      assert.ok(await section.getByLabel('Scan again automatically').isVisible());
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `no sideways scrolling (overflow ${overflow}px)`);
      await axeCheck(page, `report page (${size.where})`);
      await section.screenshot({ path: path.join(shots, `scan-again-${size.where}.png`) });

      await section.getByRole('button', { name: 'Try these again (1): the people who failed or were inaccessible' }).click();
      await page.getByRole('heading', { level: 1, name: 'Try the people of “Quarterly audit” who failed or were inaccessible again?' }).waitFor();
      await axeCheck(page, `confirmation (${size.where})`);
      await page.screenshot({ path: path.join(shots, `confirm-${size.where}.png`) });
      await page.getByRole('button', { name: 'Try these again' }).click();
      // The first size queues the person; the second finds them still waiting (coalesced) and says so.
      await page.getByText(size.where === 'desktop' ? 'Scans queued for 1 person.' : 'Scans queued for 0 people; 1 already waiting').waitFor();

      const schedule = page.getByRole('region', { name: 'Scan again' });
      await schedule.getByLabel('Scan again automatically').selectOption('monthly');
      await schedule.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Refresh schedule saved: every month.').waitFor();
      assert.ok(await page.getByText('Next scheduled refresh').isVisible());
      await axeCheck(page, `report page after saving (${size.where})`);
      await page.getByRole('region', { name: 'Scan again' }).screenshot({ path: path.join(shots, `scheduled-${size.where}.png`) });
      await page.context().close();
    });

    test(`a person's Scan again at ${size.where} size: asks first, then says the scan is queued; axe finds nothing`, async () => {
      const page = await signedIn(size.width, size.height);
      await page.goto(`${t.baseUrl}/reports/${reportId}`);
      await page.getByRole('link', { name: 'Jane Doe' }).first().click();
      const section = page.getByRole('region', { name: 'Scan again' });
      await section.getByRole('button', { name: 'Scan Jane Doe again' }).click();
      await page.getByRole('heading', { level: 1, name: 'Scan Jane Doe of “Quarterly audit” again?' }).waitFor();
      await page.getByRole('button', { name: 'Scan again' }).click();
      await page.getByRole('region', { name: 'Scan again' }).getByRole('status').waitFor();
      await axeCheck(page, `person page (${size.where})`);
      await page.getByRole('region', { name: 'Scan again' }).screenshot({ path: path.join(shots, `person-${size.where}.png`) });
      await page.context().close();
    });
  }

  test('no Content-Security-Policy violation on any page', () => {
    assert.deepEqual(cspViolations, []);
  });
});
