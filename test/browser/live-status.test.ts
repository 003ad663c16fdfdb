/**
 * The live status line of a report page, in Chromium (live.js): it says what
 * the progress answer says (here: the scans wait, no scan worker beats), and
 * while the progress cannot be read (the service's database stops answering:
 * the server reaches it through a relay the test makes silent, and answers
 * 503) it says the progress is unknown, never that scans run; once the
 * database answers again, the line says what is true again.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { SCANS_UNKNOWN, SCANS_WAITING } from '../../src/web/components/runs.js';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';
import { firstRunWorkspace } from '../support/first-run.js';
import { launchChromium, ownerSignIn } from '../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { relayedUrl, startRelay, targetOf, type Relay } from '../support/relay.js';

describe('the live status line of a report page, in Chromium', () => {
  let database: TestDatabase;
  let relay: Relay;
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let reportId = '';

  before(async () => {
    database = await createTestDatabase();
    relay = await startRelay(targetOf(database.url));
    t = await startTestApp({ database: { url: relayedUrl(database.url, relay), drop: async () => {} }, env: { DATABASE_TIMEOUT_MS: '1000' } });
    const created = await firstRunWorkspace(t);
    const report = await t.request('POST', '/api/v1/reports', {
      key: created.secret,
      headers: { 'idempotency-key': 'live-status' },
      body: reportBody({ profiles: [{ pronet_url: 'https://pronet.example/in/jane-doe', name: 'Jane Doe' }] }),
    });
    assert.equal(report.status, 201);
    reportId = report.body.data.report.id;
    browser = await launchChromium();
    const signIn = ownerSignIn({
      browser,
      baseUrl: t.baseUrl,
      signInLink: created.signInLink,
      name: 'Sam Status',
      email: 'sam@example.test',
    });
    page = await signIn(1280, 900);
  });

  after(async () => {
    if (relay) relay.silent = false;
    await browser?.close();
    await t?.close();
    await relay?.close();
    await database?.drop();
  });

  const statusLine = () => page.locator('#live-status');

  test('says the scans wait while no worker beats, that their progress is unknown while the service cannot read it, and the truth again after', async () => {
    await page.goto(`${t.baseUrl}/reports/${reportId}`);
    assert.equal(await statusLine().textContent(), SCANS_WAITING);
    assert.equal(await page.locator('#runs-heading ~ ul [data-field="status"]').first().textContent(), 'Waiting for a worker');

    relay.silent = true;
    try {
      await page.waitForFunction((expected) => document.getElementById('live-status')?.textContent === expected, SCANS_UNKNOWN, { timeout: 20_000 });
      assert.doesNotMatch((await statusLine().textContent()) ?? '', /running/i);
    } finally {
      relay.silent = false;
    }
    await page.waitForFunction((expected) => document.getElementById('live-status')?.textContent === expected, SCANS_WAITING, { timeout: 40_000 });
  });
});
