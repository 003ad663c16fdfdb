/**
 * The served OpenAPI document (GET /api/v1/openapi.json on a real server)
 * against the routes Fastify actually registered: nothing missing, nothing
 * extra, and every documented operation answers (401 without a key, not
 * 404/405).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildOpenApiDocument } from '../../scripts/openapi-document.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Fastify's route list, from `printRoutes({ commonPrefix: false })` (the public
 * API that lists routes): one line per tree node, `├── /segment (GET, HEAD)`,
 * indented four columns per level under its parent.
 */
function registeredRoutes(tree: string): { method: string; url: string }[] {
  const routes: { method: string; url: string }[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    if (line.trim() === '') continue;
    const m = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    assert.ok(m, `unexpected printRoutes line: ${JSON.stringify(line)}`);
    const depth = m[1].length / 4;
    const url = (depth > 0 ? stack[depth - 1] : '') + m[2];
    stack[depth] = url;
    stack.length = depth + 1;
    for (const method of (m[3] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean))
      routes.push({ method, url });
  }
  return routes;
}

describe('served OpenAPI document vs registered routes', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('GET /api/v1/openapi.json is served without a key and equals the built document (servers: this server)', async () => {
    const res = await t.request('GET', '/api/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    assert.deepEqual(
      res.body.servers.map((s: { url: string }) => s.url),
      [t.baseUrl],
    );
    const built = await buildOpenApiDocument();
    assert.deepEqual({ ...res.body, servers: null }, { ...built, servers: null });
  });

  test('every registered API route is documented, every documented operation is registered (HEAD and the document itself excepted)', async () => {
    const res = await t.request('GET', '/api/v1/openapi.json');
    const documented = Object.entries<Record<string, unknown>>(res.body.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();

    const all = registeredRoutes(t.app.printRoutes({ commonPrefix: false }));
    for (const route of all) assert.ok(t.app.hasRoute(route), `parsed route exists: ${route.method} ${route.url}`);
    const registered = all
      // HEAD is Fastify's automatic twin of each GET; the document describes the API, not itself.
      .filter((r) => r.url.startsWith('/api/v1/') && r.method !== 'HEAD' && r.url !== '/api/v1/openapi.json')
      .map((r) => `${r.method} ${r.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`)
      .sort();
    assert.ok(
      all.some((r) => r.url === '/public/reports/:token'),
      'routes outside /api/v1 are listed too (and excluded)',
    );
    assert.deepEqual(documented, registered);
    assert.equal(documented.length, 14);
  });

  test('every documented operation answers: 401 unauthorized without a key (the route exists and is authorized)', async () => {
    const res = await t.request('GET', '/api/v1/openapi.json');
    const uuid = '00000000-0000-4000-8000-000000000000';
    for (const [path, item] of Object.entries<Record<string, { operationId: string }>>(res.body.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const url = path.replace(/\{[a-z_]+\}/g, uuid);
        const answer = await t.request(method.toUpperCase(), url, method === 'post' ? { body: {} } : {});
        assert.equal(answer.status, 401, `${op.operationId} ${method} ${url}: ${answer.text}`);
        assert.equal(answer.body.error.code, 'unauthorized');
      }
    }
  });
});
