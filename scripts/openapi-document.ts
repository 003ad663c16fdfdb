/**
 * Builds the OpenAPI document exactly as the server serves it
 * (GET /api/v1/openapi.json), without a database: the server is built with a
 * connection pool that is never used (building registers routes; only
 * requests touch the database) and closed without listening.
 * Used by `npm run gen:client-types` and the OpenAPI tests.
 */
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { buildServer } from '../src/http/server.js';
import { createDb, createPool } from '../src/store/database.js';

/** The server URL written into the document; the served document uses PUBLIC_BASE_URL instead. */
export const DOCUMENT_SERVER_URL = 'http://127.0.0.1:8080';

export async function buildOpenApiDocument(): Promise<Record<string, any>> {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: DOCUMENT_SERVER_URL,
    DATA_DIR: path.join(os.tmpdir(), 'profile-scan-openapi'),
  });
  // Port 9 (discard) on loopback: never connected to, because no request is served.
  const pool = createPool('postgres://openapi@127.0.0.1:9/openapi', 1);
  const app = await buildServer({
    db: createDb(pool),
    config,
    clock: { now: () => new Date(0) },
    cursorSecret: 'openapi-document-only-0123456789abcdef',
    queue: {
      enqueueItems: async () => {
        throw new Error('the OpenAPI document build serves no request');
      },
    },
  });
  try {
    await app.ready();
    return structuredClone(app.swagger() as Record<string, any>);
  } finally {
    await app.close();
    await pool.end();
  }
}
