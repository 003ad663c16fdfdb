/**
 * A private link opened signed out, in Chromium, at desktop and phone sizes:
 * the person's own page (score, fix first, evidence that loads, their own
 * progress since the previous scan after a second scan), no
 * navigation into the workspace, no sideways scrolling, no accessibility
 * violation (axe-core) and no Content-Security-Policy violation; a revoked
 * link shows a plain 410 page. Screenshots are left in the directory the
 * test prints, to be looked at.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { axeCheck, launchChromium, watchCsp } from '../support/browser.js';
import { csrfOf, webUser, type WebUser } from '../support/web.js';

const SIZES = [
  { where: 'desktop', width: 1280, height: 900 },
  { where: 'phone', width: 390, height: 844 },
];

describe('a private link in Chromium, signed out', () => {
  let t: TestApp;
  let browser: Browser;
  let owner: WebUser;
  let reportId: string;
  let shots = '';
  let edits = '';
  const cspViolations: string[] = [];

  async function makeLink(person: string): Promise<string> {
    const page = await owner.client.submit(`/reports/${reportId}/links`, `/reports/${reportId}/links`, { person, days: '30' });
    assert.equal(page.status, 200);
    return /id="new-link-0" type="text" readonly value="([^"]+)"/.exec(page.text)![1];
  }

  before(async () => {
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-private-link-'));
    console.log(`# screenshots: ${shots}`);
    // Jane lacks a photo and a banner at the first scan and has both at the second.
    edits = path.join(shots, 'edits.json');
    await fs.writeFile(edits, JSON.stringify({ 'https://pronet.example/in/jane-doe': { profile: { has_photo: false, has_banner: false } } }));
    t = await startTestApp({ env: { SIMULATOR_EDITS: edits } });
    const tenant = await t.tenant();
    owner = await webUser(t, tenant.workspaceId);
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      headers: { 'idempotency-key': 'private-link-browser' },
      body: reportBody({
        profiles: [
          { pronet_url: 'https://pronet.example/in/jane-doe', name: 'Jane Doe' },
          { pronet_url: 'https://pronet.example/in/john-roe', name: 'John Roe' },
        ],
      }),
    });
    reportId = created.body.data.report.id;
    const round = async () => {
      const worker = await t.startWorker(2);
      await scansFinished(t, tenant.secret, reportId, 2);
      await worker.stop();
    };
    await round();
    await fs.writeFile(edits, JSON.stringify({ 'https://pronet.example/in/jane-doe': { profile: { has_photo: true, has_banner: true } } }));
    const refreshed = await t.request('POST', `/api/v1/reports/${reportId}/refreshes`, { key: tenant.secret, headers: { 'idempotency-key': 'again' } });
    assert.equal(refreshed.status, 201, refreshed.text);
    await round();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const size of SIZES) {
    test(`the person's own page at ${size.where} size: score, fix first, evidence; nothing of the workspace`, async () => {
      const people = await owner.client.get(`/reports/${reportId}`);
      const janeId = /\/people\/([0-9a-f-]{36})">Jane Doe</.exec(people.text)![1];
      const link = await makeLink(janeId);
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      watchCsp(page, cspViolations);
      const answer = await page.goto(link);
      assert.equal(answer?.status(), 200);
      await page.getByRole('heading', { level: 1, name: 'Jane Doe' }).waitFor();
      assert.ok(await page.getByRole('heading', { name: 'Fix first' }).isVisible());
      assert.ok(await page.getByRole('heading', { name: 'Since the previous scan' }).isVisible());
      assert.equal(await page.locator('#fixed-since li').count(), 2, 'her own fixes since the last scan');
      assert.equal(await page.locator('#person-trend svg').count(), 1, 'her own trend');
      await page.locator('#person-progress').screenshot({ path: path.join(shots, `private-link-progress-${size.where}.png`) });
      assert.equal(await page.getByRole('navigation').count(), 0, 'no navigation at all');
      assert.equal(await page.getByText('John Roe').count(), 0, 'no colleague');
      assert.equal(await page.locator('form').count(), 0, 'no form: no sign-in, no action');
      const images = page.locator('figure.evidence-item > a img');
      assert.ok((await images.count()) > 0, 'evidence is shown');
      await images.first().scrollIntoViewIfNeeded();
      await page.waitForFunction(() => {
        const img = document.querySelector<HTMLImageElement>('figure.evidence-item > a img');
        return img !== null && img.complete && img.naturalWidth > 0;
      });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `no sideways scrolling (overflow ${overflow}px)`);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(shots, `private-link-${size.where}.png`) });
      await page.screenshot({ path: path.join(shots, `private-link-${size.where}-full.png`), fullPage: true });
      await axeCheck(page, `private link (${size.where})`);
      await context.close();
    });
  }

  test('a revoked link shows a plain 410 page, without sign-in, at phone size', async () => {
    const people = await owner.client.get(`/reports/${reportId}`);
    const johnId = /\/people\/([0-9a-f-]{36})">John Roe</.exec(people.text)![1];
    const link = await makeLink(johnId);
    const list = await owner.client.get(`/reports/${reportId}/links`);
    assert.equal((await owner.client.post(`/reports/${reportId}/links/revoke-all`, { _csrf: csrfOf(list.text) })).status, 303);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    watchCsp(page, cspViolations);
    const answer = await page.goto(link);
    assert.equal(answer?.status(), 410);
    await page.getByRole('heading', { level: 1, name: 'This link no longer works' }).waitFor();
    assert.ok(await page.getByText(/withdrawn/).isVisible());
    assert.equal(await page.locator('form, a[href="/sign-in"]').count(), 0);
    await page.screenshot({ path: path.join(shots, 'private-link-revoked-phone.png') });
    await axeCheck(page, 'revoked private link');
    await context.close();
  });

  test('no Content-Security-Policy violation on any of these pages', () => {
    assert.deepEqual(cspViolations, []);
  });
});
