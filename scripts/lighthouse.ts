/**
 * Lighthouse on every page of the web workspace, at desktop and phone sizes,
 * against the demo workspace (demo-workspace.ts): signed in as its owner
 * (the session cookie sent as an extra header) and signed out for the public
 * pages. Prints one line per page and form factor with the performance,
 * accessibility, best-practices and SEO scores and the audits that cost the
 * last three points, and exits 1 when an accessibility or best-practices
 * score is below 1 or performance below 0.9. (Lighthouse audits pages that
 * answer 200 only: the error pages are left out. The public page and the
 * one-time link page are `noindex` on purpose, which costs them SEO points.)
 *
 *   LIGHTHOUSE="npx --yes lighthouse@12" node --import tsx scripts/lighthouse.ts
 *   LIGHTHOUSE_PAGES=person,report …   (only those pages)
 *
 * Lighthouse is not a dependency of the project (a large tool for a check a
 * person runs before calling a page done, docs/web.md "Checking the pages"):
 * LIGHTHOUSE names the command, an installed `lighthouse` by default. The
 * scores of one run on a shared machine vary by a few points in performance.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findChromium } from '../test/support/chromium.js';
import { startDemo } from './demo-workspace.js';

const run = promisify(execFile);
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

interface Scores {
  page: string;
  form: 'desktop' | 'mobile';
  scores: Record<(typeof CATEGORIES)[number], number>;
}

async function lighthouse(
  url: string,
  form: 'desktop' | 'mobile',
  headersFile: string | null,
): Promise<{ scores: Scores['scores']; missed: string[]; timings: string }> {
  const [command, ...prefix] = (process.env.LIGHTHOUSE ?? 'lighthouse').split(/\s+/u).filter(Boolean);
  const args = [
    ...prefix,
    url,
    '--quiet',
    '--output=json',
    '--output-path=stdout',
    `--only-categories=${CATEGORIES.join(',')}`,
    '--chrome-flags=--headless=new --no-sandbox --disable-gpu',
    ...(form === 'desktop' ? ['--preset=desktop'] : []),
    ...(headersFile ? [`--extra-headers=${headersFile}`] : []),
  ];
  const { stdout } = await run(command, args, { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CHROME_PATH: findChromium() ?? undefined } });
  const report = JSON.parse(stdout) as {
    categories: Record<string, { score: number | null; auditRefs: Array<{ id: string; weight: number }> }>;
    audits: Record<string, { score: number | null; numericValue?: number }>;
  };
  const scores = Object.fromEntries(CATEGORIES.map((c) => [c, report.categories[c]?.score ?? 0])) as Scores['scores'];
  // The weighted audits that failed in accessibility, best practices and SEO: what a point lost is about.
  const missed = (['accessibility', 'best-practices', 'seo'] as const).flatMap((c) =>
    (report.categories[c]?.auditRefs ?? []).filter((ref) => ref.weight > 0 && (report.audits[ref.id]?.score ?? 1) < 1).map((ref) => `${c}:${ref.id}`),
  );
  // Where the performance score comes from: the paints, the blocking time and the layout shift.
  const ms = (id: string) => Math.round(report.audits[id]?.numericValue ?? 0);
  const timings = `FCP ${ms('first-contentful-paint')} ms, LCP ${ms('largest-contentful-paint')} ms, TBT ${ms('total-blocking-time')} ms, CLS ${(report.audits['cumulative-layout-shift']?.numericValue ?? 0).toFixed(3)}`;
  return { scores, missed, timings };
}

async function main() {
  const demo = await startDemo();
  const temp = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-lighthouse-'));
  try {
    const { base, reportId, api, context, page } = demo;
    await page.goto(`${base}/reports/${reportId}`);
    const person = await page.locator('#report-content').getByRole('link', { name: 'Jane Doe' }).getAttribute('href');
    await page.getByRole('button', { name: 'Share a public link' }).click();
    await page.waitForURL(/done=shared/);
    const publicUrl = ((await api('GET', `/reports/${reportId}`)) as { data: { public_url: string } }).data.public_url;
    const cookie = (await context.cookies(base)).map((c) => `${c.name}=${c.value}`).join('; ');
    const headersFile = path.join(temp, 'headers.json');
    await fs.writeFile(headersFile, JSON.stringify({ Cookie: cookie }));

    const pages: Array<{ name: string; url: string; signedIn: boolean }> = [
      { name: 'sign-in', url: `${base}/sign-in`, signedIn: false },
      { name: 'reports', url: `${base}/reports`, signedIn: true },
      { name: 'report', url: `${base}/reports/${reportId}`, signedIn: true },
      { name: 'report, one group', url: `${base}/reports/${reportId}?group=${encodeURIComponent('Department=Sales')}`, signedIn: true },
      { name: 'person', url: `${base}${person}`, signedIn: true },
      { name: 'new report', url: `${base}/reports/new`, signedIn: true },
      { name: 'add people', url: `${base}/reports/${reportId}/import`, signedIn: true },
      { name: 'settings', url: `${base}/settings`, signedIn: true },
      { name: 'account', url: `${base}/account`, signedIn: true },
      { name: 'public report', url: publicUrl, signedIn: false },
    ];
    const results: Scores[] = [];
    // LIGHTHOUSE_PAGES=person,report: only the pages whose name starts with one of these.
    const only = (process.env.LIGHTHOUSE_PAGES ?? '').split(',').filter(Boolean);
    for (const p of pages.filter((page) => only.length === 0 || only.some((o) => page.name.startsWith(o)))) {
      for (const form of ['desktop', 'mobile'] as const) {
        const { scores, missed, timings } = await lighthouse(p.url, form, p.signedIn ? headersFile : null);
        results.push({ page: p.name, form, scores });
        const figures = CATEGORIES.map((c) => `${c} ${String(Math.round(scores[c] * 100)).padStart(3)}`).join('  ');
        console.log(`${p.name.padEnd(18)} ${form.padEnd(8)} ${figures}  ${timings}${missed.length > 0 ? `  (missed: ${missed.join(', ')})` : ''}`);
      }
    }
    const failing = results.filter((r) => r.scores.accessibility < 1 || r.scores['best-practices'] < 1 || r.scores.performance < 0.9);
    if (failing.length > 0) {
      console.error(`below target: ${failing.map((r) => `${r.page} (${r.form})`).join(', ')}`);
      process.exitCode = 1;
    }
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
    await demo.close();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
