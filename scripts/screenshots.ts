/**
 * Refreshes docs/screenshots/*.png: the main pages of the web workspace,
 * taken by Debian's Chromium through playwright-core against a real server
 * with demo data (the built-in simulator). Uses an embedded PostgreSQL in a
 * temporary directory, or a scratch database on DATABASE_URL's server.
 *
 *   node --import tsx scripts/screenshots.ts
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { systemClock } from '../src/clock.js';
import { firstRun } from '../src/cli/first-run.js';
import { loadConfig } from '../src/config.js';
import { buildServer } from '../src/http/server.js';
import { openRuntime } from '../src/runtime.js';
import { ScanItemQueue } from '../src/store/queue-channel.js';
import { startScanWorker } from '../src/scanning/worker.js';
import { startEmbeddedPostgres } from '../src/store/embedded-postgres.js';
import { accessLinkPath } from '../src/use-cases/workspace-members.js';
import { findChromium } from '../test/support/chromium.js';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'docs/screenshots');

async function admin(url: string, statement: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function main() {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('no Chromium found: apt-get install -y chromium, or set CHROMIUM_PATH');
  const temp = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-shots-'));
  // Searchable by the embedded PostgreSQL's own user when run as root.
  await fs.chmod(temp, 0o755);
  const cleanups: (() => Promise<unknown>)[] = [() => fs.rm(temp, { recursive: true, force: true })];
  try {
    let databaseUrl: string;
    const given = process.env.DATABASE_URL?.trim();
    if (given) {
      const name = `profile_scan_shots_${randomBytes(4).toString('hex')}`;
      await admin(given, `create database ${name}`);
      const u = new URL(given);
      u.pathname = `/${name}`;
      databaseUrl = u.toString();
      cleanups.push(() => admin(given, `drop database if exists ${name} with (force)`));
    } else {
      const server = await startEmbeddedPostgres({ dataDir: path.join(temp, 'pg'), database: 'profile_scan_shots', log: () => {} });
      databaseUrl = server.url;
      cleanups.push(() => server.stop());
    }
    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      PORT: '0',
      DATA_DIR: path.join(temp, 'data'),
      LOG_LEVEL: 'silent',
      SIMULATOR_DELAY_MS: '0',
    });
    const runtime = await openRuntime(config, { poolSize: 10 });
    cleanups.push(() => runtime.close());
    const app = await buildServer({
      db: runtime.db,
      config,
      clock: systemClock,
      cursorSecret: randomBytes(32).toString('hex'),
      queue: new ScanItemQueue(),
    });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    config.publicBaseUrl = base;
    cleanups.push(() => app.close());
    const created = (await firstRun(runtime.db, systemClock))!;

    const api = (method: string, url: string, body?: unknown, key = created.secret) =>
      fetch(`${base}/api/v1${url}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json());
    const names = ['Jane Doe', 'Ravi Patel', 'Ada Lovelace', 'Tom Becker', 'Mia Wong', 'Lena Novak', 'Omar Haddad', 'Quiet Bob'];
    const report = await api('POST', '/reports', {
      name: 'Q2 profile audit',
      company: { name: 'Acme Robotics', domain: 'acme-robotics.com', pronet_company_url: 'https://pronet.example/company/acme-robotics' },
      profiles: names.map((name) => ({
        pronet_url: `https://pronet.example/in/${name === 'Quiet Bob' ? 'quiet-bob' : name.toLowerCase().replace(' ', '-')}`,
        name,
      })),
    });
    const reportId: string = report.data.report.id;
    await api('POST', '/reports', {
      name: 'Sales team',
      company: { name: 'Acme Robotics', domain: 'acme-robotics.com', pronet_company_url: 'https://pronet.example/company/acme-robotics' },
      profiles: [{ pronet_url: 'https://pronet.example/in/sam-sales' }],
    });
    const worker = await startScanWorker({ runtime, config, clock: systemClock, concurrency: 8, log: () => {} });
    cleanups.push(() => worker.stop());
    for (let i = 0; i < 300; i++) {
      const summary = await api('GET', `/reports/${reportId}/analysis`);
      if (summary.data.work.all_requested_work_terminal) break;
      await new Promise((r) => setTimeout(r, 200));
    }

    const browser = await chromium.launch({
      executablePath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    cleanups.push(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${base}${accessLinkPath(created.signInToken)}`);
    await page.getByLabel('Your name').fill('Fiona Owner');
    await page.getByLabel('Email (you sign in with it)').fill('fiona@acme-robotics.example');
    await page.getByLabel('New password').fill('a long enough password');
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.waitForURL(`${base}/reports`);

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
    for (const step of cleanups.reverse()) await step().catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
