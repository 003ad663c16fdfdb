/**
 * Records when each API key was last used, for the workspace settings
 * ("list with last use"). After the response is sent (onResponse), at most
 * once a minute per key and process, in the background: it adds no round
 * trip to a request and never fails one. Precision is therefore about a
 * minute. It does not authenticate anything (./authorize.ts does).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { recordKeysUsed } from '../../use-cases/api-access.js';

const EVERY_MS = 60_000;

export const keyUsagePlugin = fp(async (app: FastifyInstance) => {
  const lastRecorded = new Map<string, number>();
  app.addHook('onResponse', async (request) => {
    const keyId = (request as { auth?: { keyId?: string } | null }).auth?.keyId;
    if (!keyId) return;
    const now = app.deps.clock.now();
    const last = lastRecorded.get(keyId);
    if (last !== undefined && now.getTime() - last < EVERY_MS) return;
    lastRecorded.set(keyId, now.getTime());
    if (lastRecorded.size > 100_000) lastRecorded.clear();
    recordKeysUsed(app.deps.db, [keyId], now).catch((error: unknown) => request.log.warn({ err: error }, 'could not record key use'));
  });
});
