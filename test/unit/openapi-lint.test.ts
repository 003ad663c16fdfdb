/**
 * The OpenAPI document (what GET /api/v1/openapi.json serves) is complete and
 * lint-clean: Redocly's `recommended` rules report nothing (no error, no
 * warning), every operation, parameter, status and error of the contract
 * (section 4, 7) is documented, and every example validates against its
 * schema (formats included).
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '../../scripts/openapi-document.js';

type Json = any;

async function lint(doc: Json): Promise<NormalizedProblem[]> {
  const config = await createConfig({ extends: ['recommended'] });
  return lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
}

const show = (problems: NormalizedProblem[]) => problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`).join('\n');

const READ = [400, 401, 403, 404, 429, 500, 503];
const WRITE = [...READ, 409, 413, 415, 422];

/** Section 4 (plus the evidence download path of the decisions): operation → statuses and parameters. */
const CONTRACT: Record<string, { statuses: number[]; params: string[] }> = {
  'GET /api/v1/context': { statuses: [200, ...READ], params: [] },
  'GET /api/v1/workspace': { statuses: [200, ...READ], params: [] },
  'GET /api/v1/reports': {
    statuses: [200, ...READ],
    params: ['query limit', 'query cursor', 'query company_root_domain', 'query include_archived'],
  },
  'POST /api/v1/reports': { statuses: [200, 201, ...WRITE], params: ['header Idempotency-Key'] },
  'GET /api/v1/reports/{report_id}': { statuses: [200, ...READ], params: ['path report_id'] },
  'GET /api/v1/reports/{report_id}/profiles': { statuses: [200, ...READ], params: ['path report_id', 'query limit', 'query cursor'] },
  'GET /api/v1/reports/{report_id}/scans/{scan_run_id}': { statuses: [200, ...READ], params: ['path report_id', 'path scan_run_id'] },
  'POST /api/v1/reports/{report_id}/profile-imports': {
    statuses: [200, 201, ...WRITE],
    params: ['path report_id', 'query validation_only', 'header Idempotency-Key'],
  },
  'GET /api/v1/reports/{report_id}/profile-imports/{import_id}': {
    statuses: [200, 410, ...READ],
    params: ['path report_id', 'path import_id'],
  },
  'GET /api/v1/reports/{report_id}/analysis': { statuses: [200, ...READ], params: ['path report_id'] },
  'GET /api/v1/reports/{report_id}/analysis/profiles': {
    statuses: [200, 409, 422, ...READ],
    params: ['path report_id', 'query limit', 'query cursor', 'query expected_revision', 'query profile_id'],
  },
  'GET /api/v1/reports/{report_id}/analysis/activity': {
    statuses: [200, 409, 422, ...READ],
    params: [
      'path report_id',
      'query limit',
      'query cursor',
      'query expected_revision',
      'query profile_id',
      'query event_type',
      'query occurred_from',
      'query occurred_to',
    ],
  },
  'GET /api/v1/reports/{report_id}/evidence/{image_id}': {
    statuses: [200, ...READ],
    params: ['path report_id', 'path image_id', 'query variant'],
  },
};

/** Operations beside the contract: documented under the `extensions` tag, never changing a contract operation. */
const EXTENSIONS: Record<string, { statuses: number[]; params: string[] }> = {
  'POST /api/v1/reports/{report_id}/refreshes': { statuses: [201, ...WRITE], params: ['path report_id', 'header Idempotency-Key'] },
};

const isExtension = (op: Json) => (op.tags ?? []).includes('extensions');

function operations(doc: Json): [string, Json][] {
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Json]),
  );
}

describe('OpenAPI document', () => {
  let doc: Json;
  before(async () => {
    doc = await buildOpenApiDocument();
  });

  test('Redocly recommended rules: no error and no warning', async () => {
    const problems = await lint(doc);
    assert.equal(problems.length, 0, `lint problems:\n${show(problems)}`);
  });

  test('the lint is live: an invalid example, a missing operationId and a missing 4XX are reported', async () => {
    const broken = structuredClone(doc);
    const scan = broken.paths['/api/v1/reports/{report_id}/scans/{scan_run_id}'].get;
    scan.responses['200'].content['application/json'].examples.example.value.data.status = 'exploded';
    delete broken.paths['/api/v1/context'].get.operationId;
    for (const status of ['400', '401', '403', '404', '429']) delete broken.paths['/api/v1/workspace'].get.responses[status];
    const rules = new Set((await lint(broken)).map((p) => p.ruleId));
    for (const rule of ['no-invalid-media-type-examples', 'operation-operationId', 'operation-4xx-response']) assert.ok(rules.has(rule), `${rule} reported`);
  });

  test('extensions: exactly the extension operations, each under the `extensions` tag, with its statuses and a required Idempotency-Key', () => {
    const ops = operations(doc).filter(([, op]) => isExtension(op));
    assert.deepEqual(ops.map(([key]) => key).sort(), Object.keys(EXTENSIONS).sort());
    assert.ok(
      doc.tags.some((tag: Json) => tag.name === 'extensions' && /not part of API v1/.test(tag.description)),
      'the tag says these are not the contract',
    );
    for (const [key, op] of ops) {
      assert.deepEqual(
        Object.keys(op.responses)
          .map(Number)
          .sort((a, b) => a - b),
        [...EXTENSIONS[key].statuses].sort((a, b) => a - b),
        `${key}: statuses`,
      );
      assert.deepEqual((op.parameters ?? []).map((p: Json) => `${p.in} ${p.name}`).sort(), [...EXTENSIONS[key].params].sort(), `${key}: parameters`);
      assert.equal(op.parameters.find((p: Json) => p.name === 'Idempotency-Key').required, true, `${key}: Idempotency-Key required`);
    }
  });

  test('section 4: exactly the contract operations, each with an operationId, description, scopes, its statuses and parameters', () => {
    const ops = operations(doc).filter(([, op]) => !isExtension(op));
    assert.deepEqual(ops.map(([key]) => key).sort(), Object.keys(CONTRACT).sort());
    const ids = new Set<string>();
    for (const [key, op] of ops) {
      const contract = CONTRACT[key];
      assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, `${key}: operationId`);
      assert.ok(!ids.has(op.operationId), `${key}: unique operationId`);
      ids.add(op.operationId);
      assert.ok(op.summary && op.description, `${key}: summary and description`);
      assert.match(op.description, /Scopes: /, `${key}: scopes in the description`);
      assert.deepEqual(
        Object.keys(op.responses)
          .map(Number)
          .sort((a, b) => a - b),
        [...contract.statuses].sort((a, b) => a - b),
        `${key}: statuses`,
      );
      const params = (op.parameters ?? []).map((p: Json) => `${p.in} ${p.name}`);
      assert.deepEqual([...params].sort(), [...contract.params].sort(), `${key}: parameters`);
      for (const p of op.parameters ?? []) {
        assert.ok(p.description, `${key}: parameter ${p.name} described`);
        assert.equal(
          p.required,
          p.in === 'path' || (p.in === 'header' && key === 'POST /api/v1/reports'),
          `${key}: ${p.name} required only if the contract requires it`,
        );
      }
    }
  });

  test(
    'section 7: every error response is the error envelope with an example of its code; 429 carries Retry-After; ' + 'writes document their 409 and 422 codes',
    () => {
      for (const [key, op] of operations(doc)) {
        for (const [status, response] of Object.entries<Json>(op.responses)) {
          if (Number(status) < 400) continue;
          const media = response.content?.['application/json'];
          assert.equal(media?.schema?.$ref, '#/components/schemas/Error', `${key} ${status}: error envelope`);
          const examples = Object.values<Json>(media.examples ?? {});
          assert.ok(examples.length > 0, `${key} ${status}: example`);
          for (const example of examples) assert.equal(typeof example.value.error.code, 'string');
          assert.ok(response.headers?.['X-Request-ID'], `${key} ${status}: X-Request-ID`);
          if (status === '429') assert.ok(response.headers['Retry-After'], `${key}: Retry-After on 429`);
        }
      }
      const codes = (key: string, status: number) =>
        Object.values<Json>(doc.paths[key.split(' ')[1]][key.split(' ')[0].toLowerCase()].responses[status].content['application/json'].examples).map(
          (e) => e.value.error.code,
        );
      assert.deepEqual(codes('POST /api/v1/reports/{report_id}/profile-imports', 422), ['import_validation_failed']);
      assert.ok(codes('POST /api/v1/reports/{report_id}/profile-imports', 409).includes('report_archived'));
      assert.ok(codes('POST /api/v1/reports', 409).includes('idempotency_key_reused'));
      assert.deepEqual(codes('GET /api/v1/reports/{report_id}/analysis/profiles', 409), ['results_changed']);
      assert.deepEqual(codes('GET /api/v1/reports/{report_id}/analysis/activity', 422), ['result_too_large']);
      assert.deepEqual(codes('GET /api/v1/reports/{report_id}/evidence/{image_id}', 404).sort(), ['evidence_unavailable', 'not_found']);
    },
  );

  test('every JSON request body and response has examples, and every example validates against its schema with formats (uuid, date-time, uri)', () => {
    const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    ajv.addSchema({ $id: 'openapi.json', components: doc.components, paths: doc.paths });
    let checked = 0;
    const pointer = (...parts: string[]) => 'openapi.json#/' + parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        const media: [string[], Json][] = [];
        if (op.requestBody) media.push([['paths', path, method, 'requestBody', 'content', 'application/json'], op.requestBody.content['application/json']]);
        for (const [status, response] of Object.entries<Json>(op.responses)) {
          const json = response.content?.['application/json'];
          if (json) media.push([['paths', path, method, 'responses', status, 'content', 'application/json'], json]);
          else assert.ok(response.content?.['image/jpeg'], `${method} ${path} ${status}: JSON or image content`);
        }
        for (const [at, m] of media) {
          const examples = Object.entries<Json>(m.examples ?? {});
          assert.ok(examples.length > 0, `${at.join(' ')}: examples`);
          const validate = ajv.getSchema(pointer(...at, 'schema'))!;
          for (const [name, example] of examples) {
            assert.ok(validate(example.value), `${at.join(' ')} example ${name}: ${ajv.errorsText(validate.errors)}`);
            checked++;
          }
        }
      }
    }
    assert.ok(checked >= 40, `examples checked: ${checked}`);
    // The validation is live: a malformed uuid in an example is caught.
    const scan = ajv.getSchema(
      pointer('paths', '/api/v1/reports/{report_id}/scans/{scan_run_id}', 'get', 'responses', '200', 'content', 'application/json', 'schema'),
    )!;
    const value = structuredClone(
      doc.paths['/api/v1/reports/{report_id}/scans/{scan_run_id}'].get.responses['200'].content['application/json'].examples.example.value,
    );
    assert.ok(scan(value));
    value.data.id = 'not-a-uuid';
    assert.ok(!scan(value));
  });

  test('named resources are components (generated clients get named types)', () => {
    for (const name of [
      'Report',
      'Profile',
      'Scan',
      'Context',
      'Workspace',
      'CreateReport',
      'ProfileImport',
      'ImportReceipt',
      'ImportValidation',
      'AnalysisSummary',
      'FindingsRecord',
      'ActivityEvent',
      'Error',
    ]) {
      assert.ok(doc.components.schemas[name], name);
    }
    const data = doc.paths['/api/v1/reports/{report_id}'].get.responses['200'].content['application/json'].schema.properties.data;
    assert.deepEqual(data, { $ref: '#/components/schemas/Report' });
  });
});
