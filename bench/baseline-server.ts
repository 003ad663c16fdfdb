/**
 * Baselines for the read scenarios, run as a separate process by bench/run.ts:
 * bare Fastify routes (no auth, rate limiting, schemas or envelope logic)
 * shaped like ours.
 *
 *   A  GET /memory/:name (report, list, findings): the exact JSON bytes the
 *      service returned for the same read, sent from memory.
 *   B  GET /select/reports/:id: one primary-key SELECT of the report row with
 *      a pg.Pool, returned as JSON; GET /select/reports: the one SELECT of 50
 *      rows our list needs (same index, same order).
 *
 * Environment: PORT, DATABASE_URL, WORKSPACE_ID, MEMORY_BODIES (JSON: name ->
 * file). Stops on SIGTERM.
 */
import fs from 'node:fs';
import Fastify from 'fastify';
import pg from 'pg';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`baseline-server: ${name} is required`);
  return value;
}

const workspaceId = required('WORKSPACE_ID');
const bodies = new Map(Object.entries(JSON.parse(required('MEMORY_BODIES')) as Record<string, string>).map(([name, file]) => [name, fs.readFileSync(file)]));
// Same pool size as `serve` (src/cli/serve.ts).
const pool = new pg.Pool({ connectionString: required('DATABASE_URL'), max: 20 });
const app = Fastify({ logger: false });

app.get<{ Params: { name: string } }>('/memory/:name', async (request, reply) => {
  const body = bodies.get(request.params.name);
  if (!body) return reply.status(404).send({ error: 'not found' });
  return reply.type('application/json; charset=utf-8').send(body);
});

app.get<{ Params: { id: string } }>('/select/reports/:id', async (request, reply) => {
  const { rows } = await pool.query('select * from reports where id = $1', [request.params.id]);
  if (rows.length === 0) return reply.status(404).send({ error: 'not found' });
  return rows[0];
});
app.get('/select/reports', async () => {
  const { rows } = await pool.query(
    'select * from reports where workspace_id = $1 and created_at <= now() and not archived order by created_at desc, id desc limit 50',
    [workspaceId],
  );
  return rows;
});

await app.listen({ port: Number(required('PORT')), host: '127.0.0.1' });
process.once('SIGTERM', () => {
  void app.close().then(() => pool.end());
});
