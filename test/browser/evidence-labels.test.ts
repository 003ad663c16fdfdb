/**
 * A reader can always tell a captured image from a rendered card: on a
 * person's page, in Chromium, at desktop and phone sizes. The person's record
 * links a photo on a local HTTPS CDN (captured through the safe fetcher); the
 * sections with data get rendered cards. Screenshots of both sizes are left
 * in the directory the test prints, to be looked at.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CHECKS } from '../../src/domain/checks/catalog.js';
import { CARD_AREAS, CARD_UNITS } from '../../src/domain/evidence-areas.js';
import { FileMediaStore } from '../../src/scanning/media/media-store.js';
import { SafeFetcher } from '../../src/scanning/media/safe-fetch.js';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';
import { firstRunWorkspace } from '../support/first-run.js';
import { axeCheck, launchChromium, openGoodChecks, ownerSignIn, watchCsp } from '../support/browser.js';
import { startFakeCdn, type FakeCdn } from '../support/fake-cdn.js';
import { LinkingCollector } from '../support/linking-collector.js';
import { scanQueued } from '../support/handler.js';
import { foldsSettled } from '../support/rollups.js';

describe('evidence labels on the person page, in Chromium', () => {
  let cdn: FakeCdn;
  let t: TestApp;
  let browser: Browser;
  let signedIn: (width: number, height: number) => Promise<Page>;
  let personUrl = '';
  let signInLink = '';
  let shots = '';
  const cspViolations: string[] = [];

  before(async () => {
    cdn = await startFakeCdn();
    t = await startTestApp({
      env: { EVIDENCE_IMAGE_HOSTS: cdn.hostEntry, EVIDENCE_FETCH_ALLOW_ADDRESSES: '127.0.0.1/32', EVIDENCE_FETCH_CA_FILE: cdn.caFile },
    });
    const created = await firstRunWorkspace(t);
    signInLink = created.signInLink;
    const report = await t.request('POST', '/api/v1/reports', {
      key: created.secret,
      headers: { 'idempotency-key': 'labels' },
      body: reportBody({ profiles: [{ pronet_url: 'https://pronet.example/in/jane-doe', name: 'Jane Doe' }] }),
    });
    assert.equal(report.status, 201);
    const collector = new LinkingCollector((request) => (request.mode === 'full_profile' ? [{ section: 'top_card', url: `${cdn.baseUrl}/photo.jpg` }] : []));
    const ctx = {
      db: t.runtime.db,
      clock: t.clock,
      media: new FileMediaStore(path.join(t.config.dataDir, 'media')),
      collectorFor: () => collector,
      timeoutMs: 20_000,
      maxAttempts: 1,
      log: () => {},
      evidence: { fetcher: new SafeFetcher(t.config.evidenceFetch!) },
    };
    await scanQueued(t, ctx);
    await foldsSettled(t);
    personUrl = `${t.baseUrl}/reports/${report.body.data.report.id}/people/${report.body.data.profiles.rows[0].profile_id}`;
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-evidence-labels-'));
    browser = await launchChromium();
    signedIn = ownerSignIn({
      browser,
      baseUrl: t.baseUrl,
      signInLink,
      name: 'Lena Label',
      email: 'lena@example.test',
      watch: (page) => watchCsp(page, cspViolations),
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await cdn?.close();
  });

  async function checkLabels(page: Page, where: string): Promise<void> {
    await page.goto(personUrl);
    await page.getByRole('heading', { level: 1, name: 'Jane Doe' }).waitFor();
    await openGoodChecks(page);
    // Each image once: as many figures as distinct images the findings name.
    const named = await page.locator('.evidence-links .lightbox img').evaluateAll((imgs) => new Set(imgs.map((img) => img.getAttribute('src'))).size);
    assert.equal(await page.locator('figure.evidence-item').count(), named, `${where}: every image shown once`);
    const identity = page.getByRole('group', { name: 'Evidence for Identity' });
    const captured = identity.locator('figure.origin-captured');
    const rendered = identity.locator('figure.origin-rendered');
    assert.equal(await captured.count(), 1, `${where}: one captured image (the photo)`);
    assert.equal(await rendered.count(), 1, `${where}: one rendered card (the top card)`);
    assert.match((await captured.locator('figcaption').innerText()).trim(), /^Captured taken from the source\s+For: Profile photo/);
    assert.match((await rendered.locator('figcaption').innerText()).trim(), /^Rendered card drawn from the observed data\s+For: Profile photo, /);
    assert.equal(await captured.locator('img').first().getAttribute('alt'), 'Captured image of the top of the profile');
    assert.equal(await rendered.locator('img').first().getAttribute('alt'), 'Evidence card of the top of the profile');
    // Sized before it loads (no layout shift).
    for (const img of [captured.locator('img').first(), rendered.locator('img').first()]) {
      assert.match((await img.getAttribute('width')) ?? '', /^\d+$/);
      assert.match((await img.getAttribute('height')) ?? '', /^\d+$/);
    }
    // The photo check points to both, by name.
    const photoCheck = page.locator('li', { has: page.getByRole('heading', { name: 'Profile photo' }) });
    assert.deepEqual(await photoCheck.locator('.evidence-links a.evidence-open').allInnerTexts(), [
      'evidence card of the top of the profile',
      'captured image of the top of the profile',
    ]);
    // The label is visible, and the two frames differ (solid for a capture, dashed for a card).
    assert.ok(await captured.locator('.badge').isVisible());
    assert.equal(
      await captured
        .locator('img')
        .first()
        .evaluate((img) => getComputedStyle(img).borderTopStyle),
      'solid',
    );
    assert.equal(
      await rendered
        .locator('img')
        .first()
        .evaluate((img) => getComputedStyle(img).borderTopStyle),
      'dashed',
    );
    await identity.scrollIntoViewIfNeeded();
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLImageElement>('figure.evidence-item > a > img')].slice(0, 2).every((i) => i.complete && i.naturalWidth > 0),
    );
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${where}: no sideways scrolling (overflow ${overflow}px)`);
    await identity.screenshot({ path: path.join(shots, `person-evidence-${where}.png`) });
    await axeCheck(page, `person page (${where})`);
    // Opening an image stays inside the page, with the keyboard: the overlay shows the original; Close returns.
    await captured.locator('a').first().focus();
    await page.keyboard.press('Enter');
    const overlay = captured.locator('.lightbox');
    await overlay.waitFor({ state: 'visible' });
    assert.equal(new URL(page.url()).pathname, new URL(personUrl).pathname, 'still on the person page');
    await page.waitForFunction(
      (id) => {
        const img = document.getElementById(id)?.querySelector('img');
        return img !== null && img !== undefined && img.complete && img.naturalWidth > 0;
      },
      (await overlay.getAttribute('id'))!,
    );
    await page.screenshot({ path: path.join(shots, `person-lightbox-${where}.png`) });
    await overlay.getByRole('link', { name: 'Close' }).focus();
    await page.keyboard.press('Enter');
    await overlay.waitFor({ state: 'hidden' });
  }

  test('desktop: each image shown once per person, labelled captured or rendered card, opened inside the page', async () => {
    const page = await signedIn(1280, 900);
    await checkLabels(page, 'desktop');
    await page.context().close();
  });

  test('phone: the same labels, readable without sideways scrolling', async () => {
    const page = await signedIn(375, 740);
    await checkLabels(page, 'phone');
    await page.context().close();
    console.log(`# screenshots: ${shots}`);
  });

  test('the area a finding is about is outlined on the rendered card; a capture is shown whole', async () => {
    const page = await signedIn(1280, 900);
    await page.goto(personUrl);
    await page.getByRole('heading', { level: 1, name: 'Jane Doe' }).waitFor();
    await openGoodChecks(page);
    const photoCheck = page.locator('li', { has: page.getByRole('heading', { name: 'Profile photo' }) });
    // From the check: the card opens inside the page with the photo's area outlined where the card draws it.
    await photoCheck.getByRole('link', { name: 'evidence card of the top of the profile' }).click();
    const cardView = photoCheck.locator('.lightbox').first();
    await cardView.waitFor({ state: 'visible' });
    assert.equal((await cardView.locator('.lightbox-caption').innerText()).trim(), 'Outlined: the photo, what “Profile photo” looks at.');
    await page.waitForFunction((id) => (document.getElementById(id)?.querySelector('img')?.naturalWidth ?? 0) > 0, (await cardView.getAttribute('id'))!);
    const img = (await cardView.locator('img').boundingBox())!;
    const outline = (await cardView.locator('.areas rect').boundingBox())!;
    const { photo } = CARD_AREAS;
    const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) <= 0.02, `${what}: ${a.toFixed(3)} vs ${b.toFixed(3)}`);
    near((outline.x - img.x) / img.width, photo.x / CARD_UNITS.width, 'left');
    near((outline.y - img.y) / img.height, photo.y / CARD_UNITS.height, 'top');
    near(outline.width / img.width, photo.width / CARD_UNITS.width, 'width');
    near(outline.height / img.height, photo.height / CARD_UNITS.height, 'height');
    await page.screenshot({ path: path.join(shots, 'person-outlined-area.png') });
    await cardView.getByRole('link', { name: 'Close' }).click();
    await cardView.waitFor({ state: 'hidden' });
    // The captured photo has no outline: it is its subject whole.
    await photoCheck.getByRole('link', { name: 'captured image of the top of the profile' }).click();
    const capturedView = photoCheck.locator('.lightbox').nth(1);
    await capturedView.waitFor({ state: 'visible' });
    assert.equal(await capturedView.locator('.areas').count(), 0);
    assert.match(
      await capturedView.locator('.lightbox-caption').innerText(),
      /^Captured from the source: the image as a whole is the evidence for “Profile photo”\.$/,
    );
    await capturedView.getByRole('link', { name: 'Close' }).click();
    // The top card's preview outlines the areas of every top-card check to optimize, and names them.
    const toOptimize = await page.locator('li.outcome-optimize[id^="check-"]').evaluateAll((items) => items.map((li) => li.id.slice('check-'.length)));
    const expected = [
      ...new Set(CHECKS.filter((c) => toOptimize.includes(c.key) && c.evidence_section === 'top_card').map((c) => CARD_AREAS[c.evidence_area!].label)),
    ];
    assert.ok(expected.length > 0, 'the scanned person has top-card gaps');
    const rendered = page.getByRole('group', { name: 'Evidence for Identity' }).locator('figure.origin-rendered');
    assert.equal(await rendered.locator('a > .marked .areas rect').count(), expected.length);
    const outlined = await rendered.locator('.outlined').innerText();
    for (const label of expected) assert.ok(outlined.includes(label), `"${outlined}" names ${label}`);
    assert.match(outlined, /\(to optimize\)\.$/);
    await axeCheck(page, 'person page with an evidence overlay');
    await page.context().close();
  });

  test('no Content-Security-Policy violation', () => {
    assert.deepEqual(cspViolations, []);
  });
});
