/**
 * Refreshes docs/screenshots/*.png: the main pages of the web workspace,
 * taken by Debian's Chromium through playwright-core against a real server
 * with demo data (demo-workspace.ts: the built-in simulator, an embedded
 * PostgreSQL in a temporary directory or a scratch database on DATABASE_URL's
 * server).
 *
 *   node --import tsx scripts/screenshots.ts
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { startDemo } from './demo-workspace.js';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'docs/screenshots');

async function main() {
  const { base, reportId, api, browser, context, page, close } = await startDemo();
  try {
    await fs.mkdir(out, { recursive: true });
    const shot = async (name: string, target = page, fullPage = true) => {
      await target.screenshot({ path: path.join(out, `${name}.png`), fullPage });
      console.log(`docs/screenshots/${name}.png`);
    };
    await shot('reports');
    await page.goto(`${base}/reports/${reportId}`);
    await page.getByRole('button', { name: 'Share a public link' }).click();
    await page.waitForURL(/done=shared/);
    await page.goto(`${base}/reports/${reportId}`);
    await shot('report');
    await page.locator('#report-content').getByRole('link', { name: 'Jane Doe' }).click();
    await page.getByRole('heading', { level: 1, name: 'Jane Doe' }).waitFor();
    // The previews load lazily; a full-page picture wants them all.
    await page.evaluate(() => document.querySelectorAll('img[loading="lazy"]').forEach((i) => i.setAttribute('loading', 'eager')));
    await page.waitForFunction(() =>
      [...document.querySelectorAll('.evidence img')].every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0),
    );
    await page.setViewportSize({ width: 1200, height: 1500 });
    await shot('person', page, false);
    await page.setViewportSize({ width: 1200, height: 800 });
    await page.goto(`${base}/settings`);
    await shot('settings');
    await page.goto(`${base}/reports/new`);
    await page.getByLabel('Report name').fill('Engineering leads');
    await page.getByLabel('Name', { exact: true }).fill('Acme Robotics');
    await page.getByLabel('Domain').fill('acme-robotics.com');
    await page.getByLabel('Company page URL').fill('https://pronet.example/company/acme-robotics');
    await page
      .getByLabel('Profile URLs, one per line')
      .fill('https://pronet.example/in/kim-lee, Kim Lee\nhttps://pronet.example/in/raj-iyer, Raj Iyer\nhttps://pronet.example/in/kim-lee/, Kim again');
    await page.getByRole('button', { name: 'Preview' }).click();
    await shot('new-report-preview');
    const publicUrl = (await api('GET', `/reports/${reportId}`)).data.public_url as string;
    const outsider = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const publicPage = await outsider.newPage();
    await publicPage.goto(publicUrl);
    await shot('public', publicPage);
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${base}/reports/${reportId}`);
    await shot('report-phone', phone, false);
  } finally {
    await close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
