/**
 * The workspace's static assets, served by the app (no CDN): one stylesheet,
 * the live-progress script and the copy buttons' script. A fixed list, read once at start; cached by
 * browsers for an hour and revalidated by ETag.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

const ASSETS: Record<string, string> = {
  'app.css': 'text/css; charset=utf-8',
  'live.js': 'text/javascript; charset=utf-8',
  'copy.js': 'text/javascript; charset=utf-8',
};

export async function assetRoutes(app: FastifyInstance): Promise<void> {
  const loaded = new Map(
    Object.entries(ASSETS).map(([name, type]) => {
      const body = readFileSync(new URL(`../assets/${name}`, import.meta.url));
      return [name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` }] as const;
    }),
  );

  // Browsers ask for it on every site; there is none (answered here so it is not a 404 in the console).
  app.get('/favicon.ico', { schema: { hide: true }, config: { stateless: true } }, async (_request, reply) =>
    reply.status(204).header('Cache-Control', 'public, max-age=86400').send(),
  );

  app.get<{ Params: { name: string } }>('/assets/:name', { schema: { hide: true }, config: { stateless: true } }, async (request, reply) => {
    const asset = loaded.get(request.params.name);
    if (!asset) return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
    reply.header('Cache-Control', 'public, max-age=3600').header('ETag', asset.etag);
    if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
    return reply.type(asset.type).send(asset.body);
  });
}
