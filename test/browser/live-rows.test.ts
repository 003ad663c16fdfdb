/**
 * Live rows, in Chromium: while a report's scans run, its page updates each
 * person's row as that person finishes, without a reload (live.js swaps in
 * the page's live regions), and the "scans are queued" notice goes once
 * everything has finished. Items are processed one at a time by the test
 * (processItem), so the page is seen between them; the page's first poll
 * comes only after the first person finished.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { processItem } from '../../src/scanning/item-handler.js';
// Items are claimed and processed one at a time, so the page is seen between them.
import { claimItem } from '../../src/queue/claim.js';
import { readReportPeople } from '../../src/use-cases/report-people.js';
import { reportBody, startTestApp, type TestApp } from '../support/app.js';
import { firstRunWorkspace } from '../support/first-run.js';
import { launchChromium, ownerSignIn } from '../support/browser.js';
import { handlerContext } from '../support/handler.js';

describe('live rows on the report page, in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let reportId = '';
  let workspaceId = '';

  before(async () => {
    t = await startTestApp();
    const created = await firstRunWorkspace(t);
    workspaceId = created.workspaceId;
    const report = await t.request('POST', '/api/v1/reports', {
      key: created.secret,
      headers: { 'idempotency-key': 'live' },
      body: reportBody({
        profiles: [
          { pronet_url: 'https://pronet.example/in/jane-doe', name: 'Jane Doe' },
          { pronet_url: 'https://pronet.example/in/ada-lovelace', name: 'Ada Lovelace' },
        ],
      }),
    });
    assert.equal(report.status, 201);
    reportId = report.body.data.report.id;
    browser = await launchChromium();
    const signIn = ownerSignIn({
      browser,
      baseUrl: t.baseUrl,
      signInLink: created.signInLink,
      name: 'Lee Live',
      email: 'lee@example.test',
    });
    page = await signIn(1280, 900);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The people table's status cells, by name. */
  const shownStatuses = () =>
    page
      .locator('#people-list tbody tr')
      .evaluateAll((rows) => Object.fromEntries(rows.map((r) => [r.querySelector('a')!.textContent, r.children[1].textContent])));

  test("each person's row changes as they finish, without a reload, and the queued notice goes at the end", async () => {
    // The page's first poll is held until the first person has finished: the rows must change even
    // when items finish before live.js first asks (it compares with the count the page was rendered with).
    let releaseFirstPoll = () => {};
    const firstPollHeld = new Promise<void>((resolve) => (releaseFirstPoll = resolve));
    await page.route('**/progress', async (route) => {
      await firstPollHeld;
      await route.continue();
    });
    await page.goto(`${t.baseUrl}/reports/${reportId}?done=created`);
    assert.equal(await page.locator('[data-live-transient]').count(), 1, 'the "scans are queued" notice, while they are');
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    const ctx = handlerContext(t);
    let sawMixed = false;
    for (let claim = await claimItem(t.runtime.db, 30); claim; claim = await claimItem(t.runtime.db, 30)) {
      await processItem(ctx, claim);
      const truth = Object.fromEntries(
        (await readReportPeople({ db: t.runtime.db, workspaceId }, reportId)).map((p) => [p.display_name, p.status === 'analyzed' ? 'Analyzed' : 'Queued']),
      );
      if (Object.values(truth).includes('Analyzed') && Object.values(truth).includes('Queued')) {
        // One person done, the other not: the page must show exactly that, without being reloaded.
        releaseFirstPoll();
        await page.waitForFunction(
          (expected) =>
            [...document.querySelectorAll('#people-list tbody tr')].every((r) => expected[r.querySelector('a')!.textContent] === r.children[1].textContent),
          truth,
          { timeout: 15_000 },
        );
        assert.deepEqual(await shownStatuses(), truth);
        sawMixed = true;
      }
    }
    assert.ok(sawMixed, 'the items were processed so that one person finished before the other');
    await page.getByText('All scans have finished. Results updated.').waitFor({ timeout: 30_000 });
    assert.deepEqual(await shownStatuses(), { 'Jane Doe': 'Analyzed', 'Ada Lovelace': 'Analyzed' });
    assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'updated in place');
    assert.equal(await page.locator('[data-live-transient]').count(), 0, 'the queued notice is gone');
  });
});
