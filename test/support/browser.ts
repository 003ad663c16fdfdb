/**
 * Browser tests drive Debian's Chromium through playwright-core (no browser
 * download). `findChromium` is how test/run.ts decides whether the browser
 * tests run; `axeCheck` runs axe-core inside a page and fails on any
 * violation, whatever its impact.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium } from './chromium.js';

export { findChromium };

/**
 * Signs the first owner of a workspace in, in a new browser context of the
 * given size: the first time through the workspace's one-time sign-in link
 * (choosing name, email and password), later through the sign-in form.
 * `watch` sees each new page (e.g. watchCsp).
 */
export function ownerSignIn(options: {
  browser: Browser;
  baseUrl: string;
  signInLink: string;
  name: string;
  email: string;
  watch?: (page: Page) => void;
}): (width: number, height: number) => Promise<Page> {
  const password = 'a long enough password';
  let signedUp = false;
  return async (width, height) => {
    const context = await options.browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    options.watch?.(page);
    if (!signedUp) {
      await page.goto(options.signInLink);
      await page.getByLabel('Your name').fill(options.name);
      await page.getByLabel('Email (you sign in with it)').fill(options.email);
      await page.getByLabel('New password').fill(password);
      await page.getByRole('button', { name: 'Save and sign in' }).click();
      signedUp = true;
    } else {
      await page.goto(`${options.baseUrl}/sign-in`);
      await page.getByLabel('Email').fill(options.email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.waitForURL(`${options.baseUrl}/reports`);
    return page;
  };
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('no Chromium: apt-get install -y chromium, or set CHROMIUM_PATH');
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Collects the page's Content-Security-Policy violations, except those axe-core's own probes
 * cause while it runs (it applies inline styles to measure contrast, which the policy rightly blocks).
 */
export function watchCsp(page: Page, into: string[]): void {
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text()) && !auditing.has(page)) into.push(`${page.url()}: ${message.text()}`);
  });
}

const auditing = new Set<Page>();

/** Runs axe-core in the page (evaluated through the DevTools protocol, so the page's CSP stays strict). */
export async function axeCheck(page: Page, where: string): Promise<void> {
  auditing.add(page);
  try {
    await runAxe(page, where);
  } finally {
    // Console messages of the run arrive a moment later.
    await new Promise((r) => setTimeout(r, 200));
    auditing.delete(page);
  }
}

async function runAxe(page: Page, where: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target })),
    }));
  });
  // Every violation counts, whatever its impact: no exceptions.
  if (violations.length > 0) {
    throw new Error(
      `${where}: axe-core found ${violations.length} violation(s):\n` +
        violations.map((v) => `  ${v.impact} ${v.id}: ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`).join('\n'),
    );
  }
}

/** Opens every collapsed "N good in …" list of a person's page, as a reader does to see the good checks. */
export async function openGoodChecks(page: Page): Promise<void> {
  for (const summary of await page.locator('details.good-checks > summary').all()) await summary.click();
}
