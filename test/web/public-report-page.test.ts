/**
 * The public report page behind `public_url` (2.4, 5.5) through a real server:
 * served without a key, shows only aggregate facts, never personal values.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type ManualClock } from '../../src/clock.js';
import { PUBLIC_VIEWS_PER_MINUTE_PER_ADDRESS } from '../../src/domain/web-limits.js';
import { people, reportBody, startTestApp, type TestApp } from '../support/app.js';
import { archiveReport, shareReport } from '../support/operator.js';

describe('GET /public/reports/{token} (2.4 public_url, 5.5)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  async function publicReport(overrides: Record<string, unknown> = {}) {
    const { secret } = await t.tenant();
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': `p-${Math.random()}` },
      body: reportBody({
        profiles: [{ pronet_url: 'https://pronet.example/in/jane-doe', name: 'Jane Private' }, ...people(2)],
        ...overrides,
      }),
    });
    assert.equal(created.status, 201);
    const reportId: string = created.body.data.report.id;
    await shareReport(t, reportId);
    const read = await t.request('GET', `/api/v1/reports/${reportId}`, { key: secret });
    const publicUrl: string = read.body.data.public_url;
    assert.ok(publicUrl, '2.4: public_url is set once sharing is enabled');
    return { secret, reportId, publicUrl, path: new URL(publicUrl).pathname };
  }

  test('2.4: public_url serves an HTML page without a bearer key, with name, company and counts only', async () => {
    const { path, publicUrl } = await publicReport();
    assert.equal(publicUrl, `${t.baseUrl}${path}`);
    const res = await t.request('GET', path);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.match(res.text, /<h1>Quarterly audit<\/h1>/);
    assert.match(res.text, /A shared profile audit of Acme/);
    assert.match(res.text, /<dt>On the report<\/dt><dd>3<\/dd>/);
    assert.match(res.text, /<dt>Analyzed<\/dt><dd>0<\/dd>/);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer', 'the token stays out of Referer');
  });

  test('5.5: the page exposes no personal values: no profile URLs, names or ids', async () => {
    const { path, reportId } = await publicReport();
    const res = await t.request('GET', path);
    assert.equal(res.status, 200);
    assert.ok(!res.text.includes('pronet.example'), 'no pronet URL (people or company page)');
    assert.ok(!res.text.includes('jane-doe') && !res.text.includes('Jane Private'), 'no person');
    assert.ok(!res.text.includes(reportId), 'no report id');
    assert.ok(!res.text.includes('acme.co.uk'), 'no supplied domain');
  });

  test('5.5: public visibility grants no API access: the API still needs a key', async () => {
    const { reportId } = await publicReport();
    const res = await t.request('GET', `/api/v1/reports/${reportId}`);
    assert.equal(res.status, 401);
  });

  test('names are HTML-escaped', async () => {
    const { path } = await publicReport({
      name: '<script>alert("x")</script>',
      company: { name: 'A & B <b>', domain: 'ab.example', pronet_company_url: 'https://pronet.example/company/ab' },
    });
    const res = await t.request('GET', path);
    assert.equal(res.status, 200);
    assert.ok(!res.text.includes('<script>alert'), 'no raw script tag');
    assert.ok(res.text.includes('&lt;script>alert(&quot;x&quot;)&lt;/script>'), 'the name, as text');
    assert.ok(res.text.includes('A &amp; B &lt;b>'), 'the company name, as text');
  });

  test('unknown or malformed token is a 404 page', async () => {
    for (const token of ['AAAAAAAAAAAAAAAAAAAAAAAA', 'not%20a%20token']) {
      const res = await t.request('GET', `/public/reports/${token}`);
      assert.equal(res.status, 404, token);
      assert.match(res.text, /<h1>Not found<\/h1>/);
      assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    }
  });

  test('the public page is limited per client address, with a retry time', async () => {
    const { path } = await publicReport();
    (t.clock as ManualClock).set(new Date(Math.floor(t.clock.now().getTime() / 60_000) * 60_000 + 60_000));
    let refused = null;
    for (let i = 0; i <= PUBLIC_VIEWS_PER_MINUTE_PER_ADDRESS; i++) {
      const res = await t.request('GET', i % 2 === 0 ? path : '/public/reports/AAAAAAAAAAAAAAAAAAAAAAAA');
      if (res.status === 429) {
        refused = res;
        break;
      }
    }
    assert.ok(refused, 'refused within the limit + 1 views (unknown tokens count too)');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.match(refused.text, /Too many views of shared reports from your address\. Try again in \d+ seconds?\./);
    (t.clock as ManualClock).advance(60_000);
    assert.equal((await t.request('GET', path)).status, 200, 'the next minute is open again');
  });

  test('2.4: a report made private again, or archived, is 404', async () => {
    const shared = await publicReport();
    await shareReport(t, shared.reportId, false);
    const privateAgain = await t.request('GET', shared.path);
    assert.equal(privateAgain.status, 404);

    const archived = await publicReport();
    await archiveReport(t, archived.reportId);
    const res = await t.request('GET', archived.path);
    assert.equal(res.status, 404);
    await archiveReport(t, archived.reportId, false);
    assert.equal((await t.request('GET', archived.path)).status, 200, 'unarchiving brings the page back');
  });
});
