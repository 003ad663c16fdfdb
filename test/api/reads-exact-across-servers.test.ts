/**
 * The hot reads (one statement each) through real servers and a real
 * PostgreSQL:
 * - request counting in slots (migration 0011) stays exact under concurrent
 *   requests of two servers with their own pools: no limit is exceeded, and
 *   requests are refused only at the limit;
 * - the reads fused into the authorization statement (GET /reports/{id}, the
 *   analysis summary) and the findings page refuse a revoked key on the next
 *   request in every process;
 * - findings records served from the text stored with the findings are byte
 *   for byte what Fastify's serializer writes for them and what the fallback
 *   (findingsRecord from the stored findings) serves, valid against the
 *   response schema, and the stored text follows the findings.
 */
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ManualClock } from '../../src/clock.js';
import { findingsRecord } from '../../src/domain/analysis-records.js';
import { ANALYSIS_TEXT_FORMAT, fillAnalysis } from '../../src/domain/findings-text.js';
import { FindingsPage } from '../../src/domain/schemas/analysis.js';
import { evidenceUrl } from '../../src/use-cases/present.js';
import { eventually, reportBody, startTestApp, type TestApp } from '../support/app.js';
import { startService } from '../support/processes.js';
import { revokeKey } from '../support/operator.js';

const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

describe('request counting in slots, two servers with their own pools', () => {
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    // Both servers' clocks stand still in the middle of one minute window.
    const instant = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);
    a = await startTestApp({ clock: new ManualClock(instant), env: { READ_LIMIT_MULTIPLIER: '1' } });
    b = await startTestApp({ clock: new ManualClock(instant), env: { READ_LIMIT_MULTIPLIER: '1' }, database: a.database });
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  async function reportOf(app: TestApp, secret: string): Promise<string> {
    const res = await app.request('POST', '/api/v1/reports', {
      key: secret,
      body: reportBody(),
      headers: { 'idempotency-key': `r-${secret}` },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.data.report.id;
  }

  test('8: 100 concurrent reads of one key through both servers: exactly 60 admitted, the rest 429 with r=0', async () => {
    const tenant = await a.tenant();
    const reportId = await reportOf(a, tenant.secret); // a write: the read buckets are untouched
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? a : b).request('GET', `/api/v1/reports/${reportId}`, { key: tenant.secret })),
    );
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 60);
    assert.equal(statuses.filter((s) => s === 429).length, 40);
    for (const refused of results.filter((r) => r.status === 429)) {
      assert.match(refused.headers.get('ratelimit') ?? '', /^"reads-per-key";r=0;t=30$/);
    }
    // The window stays full for this key in every process.
    assert.equal((await b.request('GET', '/api/v1/context', { key: tenant.secret })).status, 429);
    assert.equal((await a.request('GET', '/api/v1/context', { key: tenant.secret })).status, 429);
  });

  test('8: 360 concurrent reads of 6 keys of one workspace: exactly 300 admitted, no key over 60', async () => {
    const first = await a.tenant();
    const keys = [first, ...(await Promise.all(Array.from({ length: 5 }, () => a.key(first.workspaceId))))];
    const results = await Promise.all(
      Array.from({ length: 360 }, (_, i) =>
        (i % 2 === 0 ? a : b)
          .request('GET', '/api/v1/context', { key: keys[i % keys.length].secret })
          .then((r) => ({ key: i % keys.length, status: r.status })),
      ),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 300);
    assert.equal(results.filter((r) => r.status === 429).length, 60);
    for (let k = 0; k < keys.length; k++) {
      assert.ok(results.filter((r) => r.key === k && r.status === 200).length <= 60, `key ${k} admitted more than its limit`);
    }
  });
});

describe('revocation on the next request in every process (fused reads)', () => {
  let t: TestApp;
  const children: ChildProcess[] = [];
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    for (const child of children) child.kill('SIGTERM');
    await t.close();
  });

  async function serve(): Promise<string> {
    const service = await startService('serve', ['serve'], { DATABASE_URL: t.database.url, PORT: '0', WORKER_CONCURRENCY: '0', LOG_LEVEL: 'warn' });
    children.push(service.child);
    return service.url;
  }

  test('5.6: a key revoked through one process is refused by the next request of every server, on every hot read', async () => {
    const [first, second] = await Promise.all([serve(), serve()]);
    const tenant = await t.tenant();
    const created = await t.request('POST', '/api/v1/reports', {
      key: tenant.secret,
      body: reportBody(),
      headers: { 'idempotency-key': 'revoke-1' },
    });
    assert.equal(created.status, 201);
    const id = created.body.data.report.id;
    const paths = [`/api/v1/reports/${id}`, `/api/v1/reports/${id}/analysis`, `/api/v1/reports/${id}/analysis/profiles`, '/api/v1/context'];
    const get = async (base: string, urlPath: string) => {
      const res = await fetch(base + urlPath, { headers: { authorization: `Bearer ${tenant.secret}` } });
      await res.arrayBuffer();
      return res.status;
    };
    for (const base of [t.baseUrl, first, second]) {
      for (const urlPath of paths) assert.equal(await get(base, urlPath), 200, `${base}${urlPath} before`);
    }
    await revokeKey(t, tenant.keyId);
    for (const base of [second, first, t.baseUrl]) {
      for (const urlPath of paths) assert.equal(await get(base, urlPath), 401, `${base}${urlPath} after revocation`);
    }
  });
});

describe('findings records from stored text', () => {
  let t: TestApp;
  let secret: string;
  let reportId: string;
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  const validPage = ajv.compile(FindingsPage);

  before(async () => {
    t = await startTestApp();
    secret = (await t.tenant()).secret;
    const profiles = [
      { pronet_url: 'https://pronet.example/in/jane-doe', name: 'Zoë "Q" \\ O\'Neil — ünïcode ✓' },
      { pronet_url: 'https://pronet.example/in/inaccessible-ivy', title: 'Tab\there' },
      ...['quiet-bob', 'ann-lee', 'max-power', 'li-wei', 'sam-oak'].map((u) => ({ pronet_url: `https://pronet.example/in/${u}` })),
    ];
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'text-main' },
      body: reportBody({ profiles }),
    });
    assert.equal(created.status, 201, created.text);
    reportId = created.body.data.report.id;
    await t.startWorker(4);
    for (const run of created.body.data.scan_requests as { id: string }[]) {
      await eventually(async () => {
        const res = await t.request('GET', `/api/v1/reports/${reportId}/scans/${run.id}`, { key: secret });
        return !['queued', 'running'].includes(res.body.data.status);
      }, 60_000);
    }
  });
  after(async () => t.close());

  const pagePath = () => `/api/v1/reports/${reportId}/analysis/profiles?limit=25`;

  /** The `analysis` member findingsRecord() builds from a person's stored analysis row (no page, no reason: plain reads of the row). */
  async function analysisFromStoredRow(profileId: string, pronetUrl: string) {
    const row = await t.runtime.db
      .selectFrom('profile_analyses')
      .select(['revision', 'catalog_version', 'findings', 'captured_at', 'available_at'])
      .where('profile_id', '=', profileId)
      .executeTakeFirstOrThrow();
    return findingsRecord(
      { profileId, person: { pronet_url: pronetUrl, name: null, title: null, headline: null }, analysis: row, full: null },
      (imageId, variant) => evidenceUrl(t.app.publicBaseUrl, reportId, imageId, variant),
    ).analysis;
  }

  /** What Fastify's serializer writes, with the response schema, for the served page's own records and envelope. */
  async function serializedBySchema(served: { data: unknown[]; revision: string; next_cursor: string | null; request_id: string }): Promise<string> {
    const reference = Fastify();
    reference.get('/', { schema: { response: { 200: FindingsPage } } }, async () => served);
    const res = await reference.inject({ method: 'GET', url: '/' });
    await reference.close();
    assert.equal(res.statusCode, 200, res.body);
    return res.body;
  }

  test('every analysis is stored with its text, in the current format', async () => {
    const rows = await t.runtime.db.selectFrom('profile_analyses').select(['analysis_json', 'analysis_format']).where('report_id', '=', reportId).execute();
    assert.ok(rows.length >= 5, 'analyses stored');
    for (const row of rows) {
      assert.equal(row.analysis_format, ANALYSIS_TEXT_FORMAT);
      assert.ok(row.analysis_json && row.analysis_json.startsWith('{"catalog_version":'));
    }
  });

  test('the stored text, filled in, is the JSON of the analysis built from scratch (evidence URLs included)', async () => {
    const rows = await t.runtime.db
      .selectFrom('profile_analyses as a')
      .innerJoin('report_profiles as p', 'p.id', 'a.profile_id')
      .select(['a.profile_id', 'a.analysis_json', 'p.pronet_url'])
      .where('a.report_id', '=', reportId)
      .execute();
    let images = 0;
    for (const row of rows) {
      const expected = JSON.stringify(await analysisFromStoredRow(row.profile_id, row.pronet_url));
      assert.equal(fillAnalysis(row.analysis_json!, row.pronet_url, t.app.publicBaseUrl), expected);
      images += (expected.match(/"preview_url":/g) ?? []).length;
    }
    assert.ok(images > 0, 'the simulator stored evidence images, so their URLs were filled in');
  });

  test('2.9: the served page is byte for byte what the schema serializer writes for its records, and valid', async () => {
    const served = await t.request('GET', pagePath(), { key: secret });
    assert.equal(served.status, 200, served.text);
    assert.equal(served.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.ok(validPage(served.body), JSON.stringify(validPage.errors));
    assert.ok(
      served.body.data.some((r: { analysis: unknown }) => r.analysis === null),
      'a person without analysis (reason) is on the page',
    );
    assert.equal(served.text, await serializedBySchema(served.body));
  });

  test('records whose stored text is of another format are built from the findings (findingsRecord), with the same bytes as from the texts', async () => {
    const before = await t.request('GET', pagePath(), { key: secret });
    await t.runtime.db.updateTable('profile_analyses').set({ analysis_format: 'an older format' }).where('report_id', '=', reportId).execute();
    try {
      const built = await t.request('GET', pagePath(), { key: secret });
      assert.equal(built.status, 200);
      assert.ok(validPage(built.body), JSON.stringify(validPage.errors));
      assert.equal(JSON.stringify(built.body.data), JSON.stringify(before.body.data));
      assert.equal(built.text, before.text.replace(before.body.request_id, built.body.request_id));
    } finally {
      await t.runtime.db.updateTable('profile_analyses').set({ analysis_format: ANALYSIS_TEXT_FORMAT }).where('report_id', '=', reportId).execute();
    }
  });

  test('the text follows the findings: a changed finding written without a new text drops the old one', async () => {
    const row = await t.runtime.db
      .selectFrom('profile_analyses')
      .select(['profile_id', 'findings'])
      .where('report_id', '=', reportId)
      .executeTakeFirstOrThrow();
    const findings = row.findings.map((f, i) => (i === 0 ? { ...f, observed: 'changed by hand' } : f));
    await t.runtime.db
      .updateTable('profile_analyses')
      .set({ findings: JSON.stringify(findings) })
      .where('profile_id', '=', row.profile_id)
      .execute();
    const stored = await t.runtime.db
      .selectFrom('profile_analyses')
      .select(['analysis_json', 'analysis_format'])
      .where('profile_id', '=', row.profile_id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.analysis_json, null);
    assert.equal(stored.analysis_format, null);
    const page = await t.request('GET', `/api/v1/reports/${reportId}/analysis/profiles?profile_id=${row.profile_id}`, { key: secret });
    assert.equal(page.status, 200);
    assert.equal(page.body.data[0].analysis.checks[0].observed_value, 'changed by hand');
    assert.equal(page.text, await serializedBySchema(page.body));
  });
});
