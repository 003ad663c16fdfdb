/**
 * Every answer of a whole workflow conforms to the served OpenAPI document,
 * as a validating proxy in front of the service would check it: each JSON
 * body against the schema the document gives its operation and status
 * (bounds, patterns and formats included), and the headers it declares with a
 * schema (RateLimit, X-Request-ID, Location, …) against theirs. A real server,
 * a real worker and the simulator; success and error answers alike.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { eventually, people, reportBody, startTestApp, type Response, type TestApp } from '../support/app.js';

type Json = any;

const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

/** A JSON pointer segment. */
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

describe('answers conform to the served OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;
  let ajv: Ajv2020;
  const checked: string[] = [];

  before(async () => {
    t = await startTestApp();
    doc = (await t.request('GET', '/api/v1/openapi.json')).body;
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addSchema(doc, 'openapi.json');
  });
  after(async () => t?.close());

  /** Checks one answer against the document's operation `method path` and the answer's status. */
  function conforms(method: string, path: string, res: Response): void {
    const op = doc.paths[path]?.[method.toLowerCase()];
    assert.ok(op, `${method} ${path} is documented`);
    const status = String(res.status);
    const response = op.responses[status];
    assert.ok(response, `${method} ${path}: status ${status} is documented (${res.text.slice(0, 200)})`);
    const where = `${method} ${path} → ${status}`;
    const type = res.headers.get('content-type') ?? '';
    if (type.startsWith('application/json')) {
      const pointer = `openapi.json#/paths/${esc(path)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
      const validate = ajv.compile({ $ref: pointer });
      assert.ok(validate(res.body), `${where}: ${JSON.stringify(validate.errors?.slice(0, 5))}`);
    }
    for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
      const value = res.headers.get(name);
      if (value === null) continue;
      const schema = header.$ref ? doc.components.headers[header.$ref.split('/').pop()].schema : header.schema;
      const typed = schema.type === 'integer' ? Number(value) : value;
      const validate = ajv.compile(schema);
      assert.ok(validate(typed), `${where}: header ${name}: ${value} ${JSON.stringify(validate.errors)}`);
    }
    checked.push(where);
  }

  test('a whole workflow, from creation to the stored analysis, and its error answers', async (ctx) => {
    const { secret } = await t.tenant({ name: 'Conformance' });
    const key = { key: secret };
    conforms('GET', '/api/v1/context', await t.request('GET', '/api/v1/context', key));
    conforms('GET', '/api/v1/workspace', await t.request('GET', '/api/v1/workspace', key));

    const body = reportBody({ profiles: [...people(3, 'conf'), { pronet_url: 'https://pronet.example/in/conf-1' }] });
    const created = await t.request('POST', '/api/v1/reports', { ...key, headers: { 'idempotency-key': 'conf-create' }, body });
    conforms('POST', '/api/v1/reports', created);
    conforms('POST', '/api/v1/reports', await t.request('POST', '/api/v1/reports', { ...key, headers: { 'idempotency-key': 'conf-create' }, body }));
    const existing = await t.request('POST', '/api/v1/reports', {
      ...key,
      headers: { 'idempotency-key': 'conf-existing' },
      body: { ...body, on_existing: 'return_existing' },
    });
    conforms('POST', '/api/v1/reports', existing);
    const reportId: string = created.body.data.report.id;

    conforms('GET', '/api/v1/reports', await t.request('GET', '/api/v1/reports?limit=1', key));
    conforms('GET', '/api/v1/reports/{report_id}', await t.request('GET', `/api/v1/reports/${reportId}`, key));
    conforms('GET', '/api/v1/reports/{report_id}/profiles', await t.request('GET', `/api/v1/reports/${reportId}/profiles?limit=2`, key));

    const importPath = `/api/v1/reports/${reportId}/profile-imports`;
    const imports = { profiles: [...people(2, 'conf-more'), { pronet_url: 'https://pronet.example/in/conf-1' }] };
    conforms('POST', '/api/v1/reports/{report_id}/profile-imports', await t.request('POST', `${importPath}?validation_only=true`, { ...key, body: imports }));
    const receipt = await t.request('POST', importPath, { ...key, headers: { 'idempotency-key': 'conf-import' }, body: imports });
    conforms('POST', '/api/v1/reports/{report_id}/profile-imports', receipt);
    conforms('GET', '/api/v1/reports/{report_id}/profile-imports/{import_id}', await t.request('GET', `${importPath}/${receipt.body.data.id}`, key));

    const worker = await t.startWorker(8);
    try {
      await eventually(async () => {
        const runs = await t.runtime.db.selectFrom('scan_runs').select('status').where('report_id', '=', reportId).execute();
        return runs.length > 0 && runs.every((r) => !['queued', 'running'].includes(r.status));
      }, 60_000);
    } finally {
      await worker.stop();
    }
    for (const run of created.body.data.scan_requests) {
      conforms('GET', '/api/v1/reports/{report_id}/scans/{scan_run_id}', await t.request('GET', `/api/v1/reports/${reportId}/scans/${run.id}`, key));
    }
    const summary = await t.request('GET', `/api/v1/reports/${reportId}/analysis`, key);
    conforms('GET', '/api/v1/reports/{report_id}/analysis', summary);
    // The check bites: the same answer with a malformed revision does not conform.
    const tampered = structuredClone(summary.body);
    tampered.data.results_revision = 'not a revision';
    assert.equal(
      ajv.compile({ $ref: `openapi.json#/paths/${esc('/api/v1/reports/{report_id}/analysis')}/get/responses/200/content/application~1json/schema` })(tampered),
      false,
    );
    const findings = await t.request('GET', `/api/v1/reports/${reportId}/analysis/profiles?limit=2`, key);
    conforms('GET', '/api/v1/reports/{report_id}/analysis/profiles', findings);
    assert.ok(findings.body.next_cursor);
    conforms(
      'GET',
      '/api/v1/reports/{report_id}/analysis/profiles',
      await t.request('GET', `/api/v1/reports/${reportId}/analysis/profiles?limit=2&cursor=${encodeURIComponent(findings.body.next_cursor)}`, key),
    );
    conforms('GET', '/api/v1/reports/{report_id}/analysis/activity', await t.request('GET', `/api/v1/reports/${reportId}/analysis/activity`, key));
    const image = findings.body.data.flatMap((r: Json) => r.analysis?.checks ?? []).flatMap((c: Json) => c.evidence.images)[0];
    assert.ok(image, 'an evidence image to download');
    const imagePath = new URL(image.url).pathname;
    conforms('GET', '/api/v1/reports/{report_id}/evidence/{image_id}', await t.request('GET', imagePath, key));

    // Error answers.
    conforms('GET', '/api/v1/reports', await t.request('GET', '/api/v1/reports'));
    conforms('GET', '/api/v1/reports', await t.request('GET', '/api/v1/reports?limit=1000', key));
    conforms('GET', '/api/v1/reports', await t.request('GET', '/api/v1/reports?cursor=not-a-cursor', key));
    conforms('GET', '/api/v1/reports/{report_id}', await t.request('GET', '/api/v1/reports/00000000-0000-4000-8000-000000000000', key));
    conforms('POST', '/api/v1/reports', await t.request('POST', '/api/v1/reports', { ...key, headers: { 'idempotency-key': 'conf-bad' }, body: { name: '' } }));
    conforms(
      'POST',
      '/api/v1/reports',
      await t.request('POST', '/api/v1/reports', { ...key, headers: { 'idempotency-key': 'conf-create' }, body: { ...body, name: 'Another name' } }),
    );
    conforms(
      'POST',
      '/api/v1/reports/{report_id}/profile-imports',
      await t.request('POST', importPath, { ...key, headers: { 'idempotency-key': 'conf-bad' }, body: { profiles: [{ pronet_url: 'nope' }] } }),
    );
    const { secret: narrow } = await t.tenant({ name: 'Narrow', scopes: ['workspace:read'] });
    conforms('GET', '/api/v1/reports', await t.request('GET', '/api/v1/reports', { key: narrow }));
    ctx.diagnostic(`${checked.length} answers checked: ${[...new Set(checked)].join('; ')}`);
    const statuses = new Set(checked.map((c) => c.split('→ ')[1]));
    for (const status of ['200', '201', '400', '401', '403', '404', '409', '422']) assert.ok(statuses.has(status), `a ${status} answer was checked`);
  });
});
