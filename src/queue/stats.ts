/** The queue's gauges (metrics.ts). */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

/** The queue per scan mode, for the metrics: items ready, scheduled (deferred) and running, and the age of the oldest ready one (seconds). */
export interface QueueStats {
  mode: string;
  ready: number;
  scheduled: number;
  running: number;
  oldest: number | null;
}

export async function queueStatsByMode(db: Kysely<Database>): Promise<QueueStats[]> {
  const { rows } = await sql<QueueStats>`
    select r.mode,
           count(*) filter (where i.pending and i.ready_at <= now())::int as ready,
           count(*) filter (where i.pending and i.ready_at > now())::int as scheduled,
           count(*) filter (where not i.pending)::int as running,
           extract(epoch from now() - min(i.ready_at) filter (where i.pending and i.ready_at <= now()))::float8 as oldest
      from (select run_id, ready_at, true as pending from scan_items where status = 'pending'
            union all
            select run_id, ready_at, false from scan_items where status = 'running') i
      join scan_runs r on r.id = i.run_id
     group by r.mode`.execute(db);
  return rows;
}
