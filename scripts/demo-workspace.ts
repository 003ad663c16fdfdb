/**
 * A demo workspace for the scripts that look at the web workspace
 * (screenshots.ts, lighthouse.ts): a real server with demo data scanned by
 * the built-in simulator, on an embedded PostgreSQL in a temporary directory
 * or a scratch database on DATABASE_URL's server, and Debian's Chromium
 * (playwright-core) signed in as its owner.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { systemClock } from '../src/clock.js';
import { firstRun } from '../src/use-cases/first-run.js';
import { loadConfig } from '../src/config.js';
import { buildServer } from '../src/http/server.js';
import { openRuntime } from '../src/runtime.js';
import { ScanItemQueue } from '../src/store/queue-channel.js';
import { startScanWorker } from '../src/scanning/worker.js';
import { startEmbeddedPostgres } from '../src/store/embedded-postgres.js';
import { accessLinkPath } from '../src/use-cases/workspace-members.js';
import { findChromium } from '../test/support/chromium.js';
import { runStatement } from '../test/support/db.js';

export interface Demo {
  base: string;
  reportId: string;
  /** The API with the owner's key. */
  api: (method: string, url: string, body?: unknown) => Promise<any>;
  browser: Browser;
  /** Signed in as the owner, 1200 x 800. */
  context: BrowserContext;
  page: Page;
  /** Stops everything and removes the temporary files. */
  close: () => Promise<void>;
}

export async function startDemo(): Promise<Demo> {
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
      await runStatement(given, `create database ${name}`);
      const u = new URL(given);
      u.pathname = `/${name}`;
      databaseUrl = u.toString();
      cleanups.push(() => runStatement(given, `drop database if exists ${name} with (force)`));
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
    cleanups.push(() => app.close());
    const created = (await firstRun(runtime.db, systemClock))!;

    const api = (method: string, url: string, body?: unknown, key = created.secret) =>
      fetch(`${base}/api/v1${url}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json());
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
    // The main report comes from the web form with a CSV, as a team would create it (with a column of its own).
    const people = [
      ['Jane Doe', 'Marketing'],
      ['Ravi Patel', 'Sales'],
      ['Ada Lovelace', 'Engineering'],
      ['Tom Becker', 'Sales'],
      ['Mia Wong', 'Marketing'],
      ['Lena Novak', 'Engineering'],
      ['Omar Haddad', 'Sales'],
      ['Quiet Bob', 'Engineering'],
    ];
    const csv = [
      'pronet_url;name;Department',
      ...people.map(
        ([name, department]) => `https://pronet.example/in/${name === 'Quiet Bob' ? 'quiet-bob' : name.toLowerCase().replace(' ', '-')};${name};${department}`,
      ),
    ].join('\r\n');
    await page.goto(`${base}/reports/new`);
    await page.getByLabel('Report name').fill('Q2 profile audit');
    await page.getByLabel('Name', { exact: true }).fill('Acme Robotics');
    await page.getByLabel('Domain').fill('acme-robotics.com');
    await page.getByLabel('Company page URL').fill('https://pronet.example/company/acme-robotics');
    await page.getByLabel('…or a CSV file').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('button', { name: 'Create report' }).click();
    await page.waitForURL(/\/reports\/[0-9a-f-]+\?done=created$/);
    const reportId = /\/reports\/([0-9a-f-]+)\?/.exec(page.url())![1];
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
    await page.goto(`${base}/reports`);
    return {
      base,
      reportId,
      api,
      browser,
      context,
      page,
      close: async () => {
        for (const step of cleanups.reverse()) await step().catch(() => {});
      },
    };
  } catch (error) {
    for (const step of cleanups.reverse()) await step().catch(() => {});
    throw error;
  }
}
