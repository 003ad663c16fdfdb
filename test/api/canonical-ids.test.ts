/**
 * Ids are canonical everywhere (src/http/canonical-url.ts): a UUID
 * in a request path is case-insensitive, so any letter-case spelling of an id
 * — percent-encoded or not — reaches the same resource with the same answer
 * on every route with an id in its path, a commit retried through another
 * spelling with the same Idempotency-Key is a replay, and every id, Location
 * and receipt the service returns is lower case.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { people, reportBody, startTestApp, type TestApp } from '../support/app.js';

/** `id` in the letter case of `mask` (one bit per character), some characters percent-encoded when `encode`. */
function spell(id: string, mask: boolean[], encode: boolean[]): string {
  return [...id]
    .map((c, i) => {
      const cased = mask[i % mask.length] ? c.toUpperCase() : c.toLowerCase();
      return encode[i % encode.length] && c !== '-' ? `%${cased.charCodeAt(0).toString(16).toUpperCase()}` : cased;
    })
    .join('');
}

const spelling = fc.record({ mask: fc.array(fc.boolean(), { minLength: 1, maxLength: 36 }), encode: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }) });
const LOWER_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('canonical ids in paths', () => {
  let t: TestApp;
  let secret: string;
  let ids: { report: string; run: string; importId: string; image: string };

  before(async () => {
    t = await startTestApp();
    secret = (await t.tenant()).secret;
    const created = await t.request('POST', '/api/v1/reports', {
      key: secret,
      headers: { 'idempotency-key': 'canon' },
      body: reportBody({ profiles: people(2, 'canon') }),
    });
    assert.equal(created.status, 201, created.text);
    const report = created.body.data.report.id as string;
    const imported = await t.request('POST', `/api/v1/reports/${report}/profile-imports`, {
      key: secret,
      headers: { 'idempotency-key': 'canon-import' },
      body: { profiles: people(1, 'canon-more') },
    });
    assert.equal(imported.status, 201, imported.text);
    const worker = await t.startWorker(4);
    const image = await (async () => {
      for (let i = 0; i < 200; i++) {
        const row = await t.runtime.db.selectFrom('evidence_images').select('id').where('report_id', '=', report).executeTakeFirst();
        if (row) return row.id;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('no evidence image');
    })();
    await worker.stop();
    ids = { report, run: created.body.data.scan_requests[0].id, importId: imported.body.data.id, image };
  });
  after(async () => t?.close());

  const routes = () => [
    (s: (id: string) => string) => `/api/v1/reports/${s(ids.report)}`,
    (s: (id: string) => string) => `/api/v1/reports/${s(ids.report)}/profiles`,
    (s: (id: string) => string) => `/api/v1/reports/${s(ids.report)}/scans/${s(ids.run)}`,
    (s: (id: string) => string) => `/api/v1/reports/${s(ids.report)}/analysis`,
    (s: (id: string) => string) => `/api/v1/reports/${s(ids.report)}/analysis/profiles`,
    (s: (id: string) => string) => `/api/v1/reports/${s(ids.report)}/analysis/activity`,
    (s: (id: string) => string) => `/api/v1/reports/${s(ids.report)}/profile-imports/${s(ids.importId)}`,
    (s: (id: string) => string) => `/api/v1/reports/${s(ids.report)}/evidence/${s(ids.image)}`,
  ];

  test('every route with an id in its path gives the same answer for any spelling of the ids', async () => {
    const canonical = new Map<number, string>();
    for (const [i, route] of routes().entries()) {
      const res = await t.request(
        'GET',
        route((id) => id),
        { key: secret },
      );
      assert.equal(res.status, 200, `${route((id) => id)}: ${res.text.slice(0, 200)}`);
      canonical.set(i, route.toString());
    }
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: routes().length - 1 }), spelling, async (i, { mask, encode }) => {
        const route = routes()[i];
        const plain = await t.request(
          'GET',
          route((id) => id),
          { key: secret },
        );
        const spelled = await t.request(
          'GET',
          route((id) => spell(id, mask, encode)),
          { key: secret },
        );
        assert.equal(spelled.status, 200, spelled.text.slice(0, 200));
        if (route((id) => id).includes('/evidence/')) {
          assert.equal(spelled.headers.get('content-type'), plain.headers.get('content-type'));
          return;
        }
        // The same answer (but for the request id and read time).
        const strip = (text: string) => text.replace(/"(request_id|evaluated_at)":"[^"]*"/g, '');
        assert.equal(strip(spelled.text), strip(plain.text));
        for (const m of spelled.text.matchAll(/"[a-z_]*id":"([^"]+)"/g)) if (/^[0-9a-fA-F-]{36}$/.test(m[1])) assert.match(m[1], LOWER_UUID);
      }),
      { numRuns: 60 },
    );
  });

  test('a commit retried through another spelling of the report id is a replay, with a lower-case receipt and Location', async () => {
    await fc.assert(
      fc.asyncProperty(spelling, fc.integer({ min: 0, max: 1_000_000 }), async ({ mask, encode }, n) => {
        const body = { profiles: [{ pronet_url: `https://pronet.example/in/replay-${n}` }] };
        const key = `replay-${n}-${mask.join('')}-${encode.join('')}`;
        const first = await t.request('POST', `/api/v1/reports/${spell(ids.report, mask, encode)}/profile-imports`, {
          key: secret,
          headers: { 'idempotency-key': key },
          body,
        });
        assert.equal(first.status, 201, first.text);
        assert.equal(first.body.data.report_id, ids.report);
        assert.equal(first.headers.get('location'), `${t.app.publicBaseUrl}/api/v1/reports/${ids.report}/profile-imports/${first.body.data.id}`);
        const again = await t.request('POST', `/api/v1/reports/${ids.report}/profile-imports`, { key: secret, headers: { 'idempotency-key': key }, body });
        assert.equal(again.status, 201, again.text);
        assert.equal(again.headers.get('idempotency-replayed'), 'true');
        assert.equal(again.body.data.id, first.body.data.id);
      }),
      { numRuns: 15 },
    );
    const receipts = await t.runtime.db.selectFrom('import_receipts').select(['report_id']).execute();
    for (const r of receipts) assert.match(r.report_id, LOWER_UUID);
  });
});
