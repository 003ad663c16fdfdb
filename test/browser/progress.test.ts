/**
 * Progress on the report page and a person's page, in Chromium:
 * after two rounds of scans with simulated profiles edited in between, the
 * "since the previous scan" section and the trend chart show at desktop and
 * phone sizes, pass axe, and print (the SVG chart and its text are on the
 * PDF). The screenshots and PDFs go to a temporary directory for a person to
 * look at.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { sql } from 'kysely';
import { ManualClock } from '../../src/clock.js';
import { firstRun } from '../../src/use-cases/first-run.js';
import { updateWorkspace } from '../../src/store/workspace-repository.js';
import { accessLinkPath } from '../../src/use-cases/workspace-members.js';
import { eventually, HIGH_LIMITS, reportBody, scansFinished, startTestApp, type TestApp } from '../support/app.js';
import { axeCheck, launchChromium, ownerSignIn } from '../support/browser.js';

const url = (slug: string) => `https://pronet.example/in/${slug}`;
const SLUGS = ['trend-ann-able', 'trend-ben-baker', 'trend-cat-cole', 'trend-dan-dale'];

describe('progress pages, in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let open: (width: number, height: number) => Promise<Page>;
  let reportUrl = '';
  let personUrl = '';
  let shots = '';
  let edits = '';

  before(async () => {
    shots = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-progress-'));
    edits = path.join(shots, 'edits.json');
    await fs.writeFile(
      edits,
      JSON.stringify({ [url(SLUGS[0])]: { profile: { has_photo: false, has_banner: false } }, [url(SLUGS[1])]: { profile: { has_photo: true } } }),
    );
    const clock = new ManualClock(new Date('2026-11-20T12:00:00Z'));
    t = await startTestApp({ clock, env: { SIMULATOR_EDITS: edits } });
    const created = (await firstRun(t.runtime.db, t.clock))!;
    await updateWorkspace(t.runtime.db, created.workspace_id, HIGH_LIMITS, t.clock.now());
    const report = await t.request('POST', '/api/v1/reports', {
      key: created.secret,
      headers: { 'idempotency-key': 'progress-browser' },
      body: reportBody({ name: 'Progress audit', profiles: SLUGS.map((slug) => ({ pronet_url: url(slug) })) }),
    });
    const reportId = report.body.data.report.id as string;
    const fixer = (report.body.data.profiles.rows as { profile_id: string; row_number: number }[]).find((r) => r.row_number === 1)!.profile_id;
    const rounds = async (n: number) => {
      const worker = await t.startWorker(2);
      await scansFinished(t, created.secret, reportId);
      await worker.stop();
      await eventually(async () => Number((await sql<{ n: string }>`select count(*) as n from report_snapshots`.execute(t.runtime.db)).rows[0].n) === n);
    };
    await rounds(1);
    await fs.writeFile(
      edits,
      JSON.stringify({ [url(SLUGS[0])]: { polish: true }, [url(SLUGS[1])]: { profile: { has_photo: false } }, [url(SLUGS[2])]: { inaccessible: true } }),
    );
    clock.advance(86_400_000);
    const refreshed = await t.request('POST', `/api/v1/reports/${reportId}/refreshes`, { key: created.secret, headers: { 'idempotency-key': 'again' } });
    assert.equal(refreshed.status, 201, refreshed.text);
    await rounds(2);
    browser = await launchChromium();
    open = ownerSignIn({
      browser,
      baseUrl: t.baseUrl,
      signInLink: `${t.baseUrl}${accessLinkPath(created.signInToken)}`,
      name: 'Pat Progress',
      email: 'pat@example.test',
    });
    reportUrl = `${t.baseUrl}/reports/${reportId}`;
    personUrl = `${reportUrl}/people/${fixer}`;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [size, width, height] of [
    ['desktop', 1280, 900],
    ['phone', 390, 844],
  ] as const) {
    test(`the report page's progress and the person's trend show and pass axe at ${size} size`, async () => {
      const page = await open(width, height);
      await page.goto(reportUrl);
      const section = page.locator('#progress');
      assert.equal(await section.isVisible(), true);
      assert.match(await page.locator('#progress-counts').innerText(), /1\s+improved/);
      const chart = page.locator('#team-trend svg');
      assert.equal(await chart.isVisible(), true);
      const box = (await chart.boundingBox())!;
      assert.ok(box.width <= width, 'the chart fits the page');
      assert.match(await page.locator('#team-trend figcaption').innerText(), /Team score by completed scan: .*;/);
      await section.screenshot({ path: path.join(shots, `report-progress-${size}.png`) });
      await page.screenshot({ path: path.join(shots, `report-${size}.png`), fullPage: true });
      await axeCheck(page, `report page (${size})`);

      await page.goto(personUrl);
      assert.equal(await page.locator('#person-trend svg').isVisible(), true);
      assert.ok((await page.locator('#fixed-since li').count()) >= 2);
      await page.locator('#person-progress').screenshot({ path: path.join(shots, `person-progress-${size}.png`) });
      await axeCheck(page, `person page (${size})`);
      await page.close();
    });
  }

  test('the printed report carries the trend chart and its text', async () => {
    const page = await open(1280, 900);
    await page.goto(reportUrl);
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('#team-trend svg').isVisible(), true);
    assert.equal(await page.locator('#team-trend figcaption').isVisible(), true);
    const pdf = await page.pdf({ format: 'A4', printBackground: true });
    await fs.writeFile(path.join(shots, 'report-progress-A4.pdf'), pdf);
    assert.ok(pdf.length > 1000);
    await page.close();
    console.log(`# progress screenshots and PDF: ${shots}`);
  });
});
