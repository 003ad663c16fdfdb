/**
 * The web workspace in a real browser ("Tested in a real
 * browser"): Chromium via playwright-core against a real server, PostgreSQL
 * and scan worker. One person's journey, as a new user would do it: sign in
 * from the first-run link, create a report from a CSV, watch its scans
 * finish on the report page, open a person and see a screenshot load,
 * create a key in the settings and use it against the API, revoke it and get
 * 401, share the report and open the public page signed out. Every page is
 * checked with axe-core (no serious or critical violation) and against the
 * Content-Security-Policy (no violation reported); the report page is also
 * looked at on a phone-sized screen.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app.js';
import { firstRunWorkspace } from '../support/first-run.js';
import { axeCheck, launchChromium, openGoodChecks, watchCsp } from '../support/browser.js';

/** As Excel writes it in a German or French locale: a byte order mark, semicolons, CRLF; with a column of its own. */
const CSV =
  '\uFEFF' +
  [
    'pronet_url;name;title;Department',
    'https://pronet.example/in/jane-doe;Jane Doe;Head of People;People',
    'https://pronet.example/in/quiet-bob;Bob Quiet;Engineer;Engineering',
    'https://pronet.example/in/ada-lovelace;Ada Lovelace;CTO;Engineering',
  ].join('\r\n');

describe('web workspace in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let signInLink: string;
  const cspViolations: string[] = [];
  let reportUrl = '';

  before(async () => {
    // A visible pace for the simulator, so the report page sees its scans running.
    t = await startTestApp({ env: { SIMULATOR_DELAY_MS: '400' } });
    const created = await firstRunWorkspace(t);
    signInLink = created.signInLink;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watchCsp(page, cspViolations);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('sign in from the first-run link', async () => {
    await page.goto(signInLink);
    await axeCheck(page, 'one-time link page');
    await page.getByLabel('Your name').fill('Fiona First');
    await page.getByLabel('Email (you sign in with it)').fill('fiona@example.test');
    await page.getByLabel('New password').fill('a long enough password');
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.waitForURL(`${t.baseUrl}/reports`);
    await assert.doesNotReject(page.getByRole('link', { name: 'Fiona First' }).waitFor());
    await axeCheck(page, 'report list (empty)');
  });

  test('create a report from a CSV, with the preview before the commit', async () => {
    await page.getByRole('link', { name: 'New report' }).click();
    await axeCheck(page, 'new report form');
    await page.getByLabel('Report name').fill('Spring audit');
    await page.getByLabel('Name', { exact: true }).fill('Acme');
    await page.getByLabel('Domain').fill('acme.com');
    await page.getByLabel('Company page URL').fill('https://pronet.example/company/acme');
    await page.getByLabel('…or a CSV file').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    await page.locator('input[name="mode"][value="test"]').check();
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: /Check and create/ }).waitFor();
    assert.equal(await page.locator('dt:has-text("Will be added and scanned") + dd').textContent(), '3');
    await axeCheck(page, 'create preview');
    await page.getByRole('button', { name: 'Create report' }).click();
    await page.waitForURL(/\/reports\/[0-9a-f-]+\?done=created$/);
    reportUrl = page.url().split('?')[0]!;
    await page.getByText('The report was created').waitFor();
  });

  test('watch its scans finish on the report page, without a reload', async () => {
    await page.goto(reportUrl);
    assert.equal(await page.locator('script[src="/assets/live.js"]').count(), 1, 'live progress while scans are queued');
    await axeCheck(page, 'report page (scans queued)');
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    const worker = await t.startWorker(4);
    await page.getByText('All scans have finished. Results updated.').waitFor({ timeout: 60_000 });
    await page.locator('#report-content [data-status="completed"]').first().waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'updated in place');
    await page.locator('#report-content').getByRole('link', { name: 'Jane Doe' }).waitFor();
    assert.match((await page.locator('#work-state').textContent()) ?? '', /Done/);
    await worker.stop();
    await page.reload();
    assert.equal(await page.locator('ol.bars li.bar-row meter').count(), 7, 'the per-category chart: one meter per category');
    await axeCheck(page, 'report page (finished)');
  });

  test("the report page's first screen on a desktop: the most common gaps and the people table start above the fold", async () => {
    const desktop = await context.newPage();
    await desktop.setViewportSize({ width: 1366, height: 900 });
    await desktop.goto(reportUrl);
    const top = async (selector: string) => (await desktop.locator(selector).first().boundingBox())!.y;
    assert.ok((await top('#gaps-heading')) < 900, 'the most common gaps are on the first screen');
    assert.ok((await top('#report-content table tbody tr')) < 900, 'the first person row is on the first screen');
    await desktop.close();
  });

  test('the category chart lists the worst category first, each bar coloured by its score band', async () => {
    await page.goto(reportUrl);
    const rows = await page.locator('ol.bars li.bar-row').evaluateAll((items) =>
      items.map((li) => ({
        score: (li.querySelector('meter') as HTMLMeterElement).value,
        band: li.className,
        colour: getComputedStyle(li.querySelector('meter')!).color,
      })),
    );
    const scores = rows.map((r) => r.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => a - b),
      'worst first',
    );
    for (const r of rows) assert.match(r.band, r.score < 40 ? /band-low/ : r.score < 70 ? /band-fair/ : /band-good/);
    assert.ok(new Set(rows.map((r) => r.band)).size === new Set(rows.map((r) => r.colour)).size, 'one colour per band');
  });

  test('filter the people by a column the CSV carried, on a desktop and on a phone', async () => {
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 375, height: 740 },
    ]) {
      const view = await context.newPage();
      watchCsp(view, cspViolations);
      await view.setViewportSize(viewport);
      await view.goto(reportUrl);
      await view.getByLabel('Group').selectOption({ label: 'Engineering' });
      await view.getByRole('button', { name: 'Apply' }).click();
      await view.getByText('2 of 3 people match.').waitFor();
      const rows = await view.locator('#report-content table tbody tr td:first-child a').allInnerTexts();
      assert.deepEqual(rows.sort(), ['Ada Lovelace', 'Bob Quiet']);
      assert.match(await view.locator('#report-content table tbody tr').first().innerText(), /Department: Engineering/);
      const overflow = await view.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `no sideways scrolling at ${viewport.width}px (overflow ${overflow}px)`);
      await axeCheck(view, `report page filtered by a group (${viewport.width}px)`);
      await view.close();
    }
  });

  test('the report page works on a phone-sized screen', async () => {
    const phone = await context.newPage();
    watchCsp(phone, cspViolations);
    await phone.setViewportSize({ width: 375, height: 740 });
    await phone.goto(reportUrl);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no sideways scrolling on a phone (overflow ${overflow}px)`);
    const label = await phone
      .locator('ol.bars .bar-label')
      .first()
      .evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    assert.ok(label >= 14, `chart labels readable on a phone (${label}px)`);
    await axeCheck(phone, 'report page on a phone');
    await phone.close();
  });

  test('open a person and see a screenshot load', async () => {
    await page.goto(reportUrl);
    await page.locator('#report-content').getByRole('link', { name: 'Jane Doe' }).click();
    await page.getByRole('heading', { level: 1, name: 'Jane Doe' }).waitFor();
    await openGoodChecks(page);
    const preview = page.locator('.evidence img').first();
    await preview.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.evidence img');
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    assert.match((await preview.getAttribute('src')) ?? '', /\/evidence\/[0-9a-f-]+\?variant=preview$/);
    await axeCheck(page, 'person page');
    // The original opens on click.
    const [original] = await Promise.all([
      page.waitForEvent('response', (r) => /\/evidence\/[0-9a-f-]+$/.test(r.url())),
      page.locator('.evidence a').first().click(),
    ]);
    assert.equal(original.status(), 200);
    assert.match(original.headers()['content-type'] ?? '', /^image\//);
  });

  test('create a key in the settings, use it against the API, revoke it and get 401', async () => {
    await page.goto(`${t.baseUrl}/settings`);
    await axeCheck(page, 'settings');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByLabel('Secret').inputValue();
    assert.match(secret, /^psk_test_[0-9A-Za-z]{32}$/);
    await axeCheck(page, 'settings with a new key');
    const context1 = await fetch(`${t.baseUrl}/api/v1/context`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(context1.status, 200);
    const keyId = ((await context1.json()) as { data: { key_id: string } }).data.key_id;
    await page.goto(`${t.baseUrl}/settings`);
    await page
      .locator(`#key-${keyId}`)
      .getByRole('button', { name: /Revoke/ })
      .click();
    // A confirmation step first (a page: it works without JavaScript); the key still works meanwhile.
    await page.getByRole('heading', { level: 1, name: /^Revoke the test API key .+\?$/ }).waitFor();
    await axeCheck(page, 'confirmation page');
    assert.equal((await fetch(`${t.baseUrl}/api/v1/context`, { headers: { authorization: `Bearer ${secret}` } })).status, 200);
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('The key was revoked').waitFor();
    const context2 = await fetch(`${t.baseUrl}/api/v1/context`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(context2.status, 401);
  });

  test('settings on a phone: the keys table fits, the key prefix stays on one line and Revoke is whole', async () => {
    const phone = await context.newPage();
    watchCsp(phone, cspViolations);
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${t.baseUrl}/settings`);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no sideways scrolling (overflow ${overflow}px)`);
    const prefix = phone.locator('code.key-prefix').first();
    const lineHeight = await prefix.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 24);
    assert.ok((await prefix.boundingBox())!.height <= lineHeight * 1.5, 'the prefix is on one line');
    const revoke = phone.getByRole('button', { name: /^Revoke key/ }).first();
    if ((await revoke.count()) > 0) {
      const box = (await revoke.boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= 390, `Revoke is whole (${box.x}..${box.x + box.width})`);
    }
    await axeCheck(phone, 'settings on a phone');
    await phone.close();
  });

  test('share the report and open the public page signed out', async () => {
    await page.goto(reportUrl);
    await page.getByRole('button', { name: 'Share a public link' }).click();
    await page.getByText('The report is shared').waitFor();
    const publicUrl = await page.locator('a[href*="/public/reports/"]').first().getAttribute('href');
    assert.ok(publicUrl);
    // The link is shown right where the confirmation is, ready to copy.
    assert.equal(await page.getByLabel('The public link').inputValue(), publicUrl);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    const copy = page.locator('.notice button[data-copy]');
    assert.ok(await copy.isVisible(), 'the Copy button (copy.js) is shown');
    await copy.click();
    await page.locator('.notice button[data-copy]', { hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), publicUrl);
    const outsider = await browser.newContext();
    const publicPage = await outsider.newPage();
    watchCsp(publicPage, cspViolations);
    await publicPage.goto(publicUrl);
    await publicPage.getByRole('heading', { level: 1, name: 'Spring audit' }).waitFor();
    const text = (await publicPage.locator('body').textContent()) ?? '';
    for (const personal of ['Jane Doe', 'Bob Quiet', 'Ada Lovelace', 'pronet.example']) assert.ok(!text.includes(personal), `no ${personal}`);
    assert.ok((await publicPage.locator('ol.bars').count()) === 1, 'the per-category chart');
    await axeCheck(publicPage, 'public page');
    await outsider.close();
  });

  test('keyboard: the skip link leads to the content; sign-out is a button', async () => {
    await page.goto(`${t.baseUrl}/reports`);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
    await page.getByRole('button', { name: 'Sign out' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/sign-in\?signed_out=1$/);
    await axeCheck(page, 'sign-in page');
  });

  test('no Content-Security-Policy violation on any page', () => {
    assert.deepEqual(cspViolations, []);
  });
});
