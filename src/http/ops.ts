/**
 * Operations endpoints, outside /api/v1 and without an API key:
 *
 * - `GET /livez`: the process is alive (its event loop answers): always 200.
 * - `GET /readyz`: 200 when this process should get traffic: the database
 *   answers, every migration this build knows is applied, and the scan
 *   worker started (when this process runs one); 503 while draining on
 *   shutdown or when a check fails. The body names the checks and their
 *   state only (`ok` / `failing` / `draining`), nothing else.
 * - `GET /metrics`: Prometheus text (src/metrics.ts), only where configured:
 *   on the API port behind `Authorization: Bearer METRICS_TOKEN`, or on the
 *   separate METRICS_PORT listener (where the token is required too when set).
 *
 * `opsPlugin` also records every HTTP response in the metrics (route
 * pattern, status, latency; rate-limit refusals).
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Db, DatabaseAvailability } from '../runtime.js';
import { migrationsPending } from '../use-cases/service-state.js';

export type QueueState = 'none' | 'starting' | 'ready' | 'failed';

/** What /readyz reports on; shared by the API server and the process's lifecycle. */
export class Health {
  draining = false;
  /** 'none': this process runs no scan worker (nothing to wait for). */
  queue: QueueState = 'none';
  constructor(
    private readonly db: Db,
    /** Told what each check found: an outage begins or ends with it (store/database-availability.ts). */
    private readonly availability?: DatabaseAvailability,
  ) {}

  async readiness(timeoutMs = 2000): Promise<{ ready: boolean; checks: Record<string, string> }> {
    const checks: Record<string, string> = {};
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
    });
    try {
      const pending = await Promise.race([migrationsPending(this.db), timeout]);
      checks.database = 'ok';
      checks.migrations = pending === 0 ? 'ok' : 'failing';
      this.availability?.succeeded();
    } catch (error) {
      this.availability?.failed(error);
      checks.database = 'failing';
      checks.migrations = 'unknown';
    } finally {
      clearTimeout(timer);
    }
    if (this.queue !== 'none') checks.queue = this.queue === 'ready' ? 'ok' : this.queue === 'starting' ? 'starting' : 'failing';
    if (this.draining) checks.shutdown = 'draining';
    const ready = !this.draining && Object.values(checks).every((v) => v === 'ok');
    return { ready, checks };
  }
}

export interface OpsOptions {
  health: Health;
  metrics: Metrics | null;
  /** Serve /metrics here (on the API port only with a token). */
  serveMetrics: boolean;
  metricsToken: string | null;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1]), digest(token));
}

export const opsPlugin = fp(
  async (app: FastifyInstance, options: OpsOptions) => {
    const { health, metrics } = options;
    const hide = { schema: { hide: true }, config: { public: true, ops: true } } as const;

    if (metrics) {
      app.addHook('onResponse', async (request, reply) => {
        const route = request.routeOptions?.url ?? 'unmatched';
        const labels = { method: request.method, route, status: String(reply.statusCode) };
        metrics.httpRequests.inc(labels);
        metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
        if (reply.statusCode === 429) metrics.rateLimited.inc({ kind: request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write' });
      });
    }

    app.get('/livez', hide, async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));

    app.get('/readyz', hide, async (_request, reply) => {
      const { ready, checks } = await health.readiness();
      return reply
        .status(ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({ status: ready ? 'ready' : 'unavailable', checks });
    });

    if (metrics && options.serveMetrics) {
      const token = options.metricsToken;
      app.get('/metrics', hide, async (request, reply) => {
        if (token !== null && !bearerMatches(request.headers.authorization, token)) {
          return reply.status(401).header('www-authenticate', 'Bearer').header('cache-control', 'no-store').send({ status: 'unauthorized' });
        }
        const { contentType, body } = await metrics.render();
        return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
      });
    }
  },
  { name: 'profile-scan-ops' },
);

/**
 * The METRICS_PORT listener (and the only HTTP listener of `profile-scan
 * worker`): /livez, /readyz and /metrics.
 */
export async function startOpsServer(options: {
  host: string;
  port: number;
  logger: Logger;
  health: Health;
  metrics: Metrics;
  metricsToken: string | null;
}): Promise<{ address: string; close(): Promise<void> }> {
  const app = Fastify({ loggerInstance: options.logger.child({ listener: 'ops' }), disableRequestLogging: true, return503OnClosing: true });
  await app.register(opsPlugin, {
    health: options.health,
    metrics: options.metrics,
    serveMetrics: true,
    metricsToken: options.metricsToken,
  });
  const address = await app.listen({ host: options.host, port: options.port });
  return { address, close: () => app.close() };
}
