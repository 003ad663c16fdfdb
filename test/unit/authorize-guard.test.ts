/** The authorization plugin fails closed: every route under it must declare how it is authorized. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { authorizePlugin } from '../../src/http/plugins/authorize.js';

test('5: a route that declares neither access nor public stops the server from starting', async () => {
  const app = Fastify();
  await assert.rejects(async () => {
    await app.register(async (api) => {
      await api.register(authorizePlugin);
      api.get('/forgotten', async () => 'served without a key');
    });
    await app.ready();
  }, /declares neither config.access nor config.public/);
  await app.close();
});

test('5: declared routes (access or an explicit public) are accepted', async () => {
  const app = Fastify();
  await app.register(async (api) => {
    await api.register(authorizePlugin);
    api.get('/guarded', { config: { access: { kind: 'read', scopes: ['reports:read'] } } }, async () => 'ok');
    api.get('/document', { config: { public: true } }, async () => 'ok');
  });
  await app.ready();
  await app.close();
});
