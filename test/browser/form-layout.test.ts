/**
 * Form layout in Chromium at desktop and phone sizes: every label of the
 * "New report" and "Add people" forms sits directly above its own field
 * (fields inside a fieldset included), and the "Include archived" checkbox of
 * the reports filter sits next to its words. Screenshots are left in the
 * directory the test prints.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';
import { firstRunWorkspace } from '../support/first-run.js';
import { launchChromium, ownerSignIn } from '../support/browser.js';

const SIZES = [
  { name: 'desktop', width: 1366, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/**
 * For each `label[for]` of the page's main form: where it is against its field
 * (px), and how many other fields lie between them (a hint may; a field not).
 */
async function labelPlacement(page: Page) {
  return page.evaluate(() => {
    const fields = [...document.querySelectorAll<HTMLElement>('main form input:not([type="hidden"]), main form select, main form textarea')];
    return [...document.querySelectorAll<HTMLLabelElement>('main form label[for]')].map((label) => {
      const field = document.getElementById(label.htmlFor)!;
      const l = label.getBoundingClientRect();
      const f = field.getBoundingClientRect();
      const between = fields.filter((o) => o !== field && o.getBoundingClientRect().top >= l.bottom && o.getBoundingClientRect().top < f.top).length;
      return { label: label.textContent.trim(), gapAbove: f.top - l.bottom, leftOffset: f.left - l.left, between };
    });
  });
}

describe('form layout in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let signInLink = '';
  let reportId = '';
  let shots = '';
  let signedIn: (width: number, height: number) => Promise<Page>;

  before(async () => {
    t = await startTestApp();
    const created = await firstRunWorkspace(t);
    signInLink = created.signInLink;
    const report = await t.request('POST', '/api/v1/reports', {
      key: created.secret,
      headers: { 'idempotency-key': 'form-layout' },
      body: reportBody({ profiles: [{ pronet_url: 'https://pronet.example/in/amy-one' }] }),
    });
    assert.equal(report.status, 201);
    reportId = report.body.data.report.id;
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-form-layout-'));
    browser = await launchChromium();
    signedIn = ownerSignIn({ browser, baseUrl: t.baseUrl, signInLink, name: 'Olga Owner', email: 'olga@example.test' });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const { name, width, height } of SIZES) {
    test(`every label of the New report and Add people forms sits directly above its own field (${name})`, async (ctx) => {
      const page = await signedIn(width, height);
      for (const [form, url] of [
        ['new-report', `${t.baseUrl}/reports/new`],
        ['add-people', `${t.baseUrl}/reports/${reportId}/import`],
      ] as const) {
        await page.goto(url);
        const placements = await labelPlacement(page);
        assert.ok(placements.length >= 2, `${form}: labelled fields found (${placements.length})`);
        for (const p of placements) {
          assert.ok(p.gapAbove >= 0, `${form}, ${name}: "${p.label}" is ${-p.gapAbove}px below its field's top`);
          assert.equal(p.between, 0, `${form}, ${name}: ${p.between} other field(s) between "${p.label}" and its own`);
          assert.ok(Math.abs(p.leftOffset) <= 2, `${form}, ${name}: "${p.label}" starts ${p.leftOffset}px from its field's left edge`);
        }
        await page.screenshot({ path: path.join(shots, `${form}-${name}.png`), fullPage: true });
      }
      ctx.diagnostic(`screenshots in ${shots}`);
      await page.context().close();
    });

    test(`the Include archived checkbox sits next to its words (${name})`, async () => {
      const page = await signedIn(width, height);
      await page.goto(`${t.baseUrl}/reports`);
      const gap = await page.evaluate(() => {
        const box = document.querySelector<HTMLInputElement>('.filters input[name="archived"]')!;
        const words = [...box.parentElement!.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== '')!;
        const range = document.createRange();
        range.selectNodeContents(words);
        return range.getBoundingClientRect().left - box.getBoundingClientRect().right;
      });
      assert.ok(gap >= 0 && gap <= 16, `${name}: ${gap}px between the checkbox and "Include archived"`);
      await page.screenshot({ path: path.join(shots, `reports-filter-${name}.png`) });
      await page.context().close();
    });
  }
});
