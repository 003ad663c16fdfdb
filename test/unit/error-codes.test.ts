/**
 * Each error code is declared once (src/domain/errors.ts ERRORS) with its
 * status and message template: every code the OpenAPI document shows is
 * declared there, under the status the document shows it with, and a
 * code answers with the table's status whatever the call site.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { buildOpenApiDocument } from '../../scripts/openapi-document.js';
import { ApiError, apiError, ERRORS, errorMessage, notFound, type ErrorCode } from '../../src/domain/errors.js';
import { errorBody } from '../../src/http/errors.js';

type Json = any;

/** Every [code, status, where] an error example of the document shows. */
function documentedCodes(doc: Json): [string, number, string][] {
  const found: [string, number, string][] = [];
  for (const [route, operations] of Object.entries<Json>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      for (const [status, response] of Object.entries<Json>(operation?.responses ?? {})) {
        for (const media of Object.values<Json>(response?.content ?? {})) {
          const examples = [...Object.values<Json>(media.examples ?? {}).map((e) => e.value), media.example].filter(Boolean);
          for (const value of examples) {
            const code = value?.error?.code;
            if (typeof code === 'string') found.push([code, Number(status), `${method.toUpperCase()} ${route}`]);
          }
        }
      }
    }
  }
  return found;
}

describe('error codes, declared once', () => {
  let doc: Json;
  before(async () => {
    doc = await buildOpenApiDocument();
  });

  test('every code the OpenAPI document shows is declared, with the status the document shows it under', () => {
    const shown = documentedCodes(doc);
    assert.ok(shown.length > 20, `too few error examples found: ${shown.length}`);
    for (const [code, status, where] of shown) {
      assert.ok(code in ERRORS, `${where} shows ${code}, which src/domain/errors.ts does not declare`);
      assert.equal(status, ERRORS[code as ErrorCode].status, `${where} shows ${code} under ${status}`);
    }
  });

  test('a code keeps its one status whatever message a call site gives', () => {
    for (const code of Object.keys(ERRORS) as ErrorCode[]) {
      assert.equal(apiError(code, 'A situation of its own.').status, ERRORS[code].status, code);
      assert.equal(new ApiError(code, 'A situation of its own.').status, ERRORS[code].status, code);
    }
  });

  test('a template is filled from the values named at the call site, into the contract envelope', () => {
    assert.deepEqual(errorBody(notFound('report'), 'req-1'), {
      error: { code: 'not_found', message: 'The report does not exist or is not visible to this key.' },
      request_id: 'req-1',
    });
    assert.equal(apiError('method_not_allowed', { method: 'PUT', allowed: 'GET, HEAD' }).message, 'Method PUT is not allowed here; allowed: GET, HEAD.');
  });

  test('a template hole without a value is refused rather than sent with braces', () => {
    assert.throws(() => errorMessage('insufficient_scope'), /no value for \{scopes\}/);
    assert.throws(() => apiError('report_archived', {}), /no value for \{action\}/);
  });

  test('a code without holes is sent with its template as is', () => {
    assert.equal(apiError('payload_too_large').message, 'The request body exceeds 1 MiB.');
  });
});
