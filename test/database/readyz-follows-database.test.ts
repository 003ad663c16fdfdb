/**
 * /readyz follows the database: a real server on its own
 * embedded PostgreSQL (in a temporary DATA_DIR, not the suite's server),
 * which the test stops and starts again. While it is down /readyz answers
 * 503 (database failing) and /livez still 200; once it is back (same port:
 * the embedded server keeps its port across restarts when it is free) the
 * pool reconnects and /readyz answers 200 again, with no restart of the
 * service.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { Health } from '../../src/http/ops.js';
import { buildServer } from '../../src/http/server.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
// The service assembled on an embedded server of its own, which the test stops and starts.
import { ScanItemQueue } from '../../src/store/queue-channel.js';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../src/store/embedded-postgres.js';
import { eventually } from '../support/app.js';

describe('/readyz when the database stops and comes back', () => {
  let dataDir: string;
  let embedded: EmbeddedServer;
  let runtime: Runtime;
  let app: FastifyInstance;
  let baseUrl: string;

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-readyz-'));
    embedded = await startEmbeddedPostgres({ dataDir, database: 'profile_scan' });
    const config = loadConfig({ DATABASE_URL: embedded.url, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' });
    runtime = await openRuntime(config, { poolSize: 4 });
    app = await buildServer({
      db: runtime.db,
      config,
      clock: systemClock,
      cursorSecret: 'readyz-cursor-secret-0123456789abcdef',
      queue: new ScanItemQueue(),
      health: new Health(runtime.db),
    });
    baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  after(async () => {
    await app?.close();
    await runtime?.close();
    await embedded?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  const readyz = async () => {
    const res = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(10_000) });
    return { status: res.status, body: await res.json() };
  };

  test('200 while the database answers, 503 once it is stopped, 200 again when it is back', async () => {
    assert.deepEqual(await readyz(), { status: 200, body: { status: 'ready', checks: { database: 'ok', migrations: 'ok' } } });
    const before = new URL(embedded.url).port;

    await embedded.stop();
    const down = await readyz();
    assert.equal(down.status, 503);
    assert.deepEqual(down.body, { status: 'unavailable', checks: { database: 'failing', migrations: 'unknown' } });
    assert.equal((await fetch(`${baseUrl}/livez`)).status, 200, 'the process itself is alive');

    embedded = await startEmbeddedPostgres({ dataDir, database: 'profile_scan' });
    assert.equal(new URL(embedded.url).port, before, 'restarted on the same port');
    const back = await eventually(
      async () => {
        const res = await readyz();
        return res.status === 200 ? res : null;
      },
      30_000,
      200,
    );
    assert.deepEqual(back.body, { status: 'ready', checks: { database: 'ok', migrations: 'ok' } });
  });
});
