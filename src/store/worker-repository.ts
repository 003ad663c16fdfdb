/**
 * Worker processes' heartbeats (migration 0027; docs/scanning.md, "Leases and
 * worker heartbeats"): a worker registers when it starts, beats every few
 * seconds, and retires when it stops. The claim takes the items of a worker
 * whose heartbeat is older than the dead threshold.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export async function registerWorker(db: Kysely<Database>, worker: { id: string; host: string; pid: number }): Promise<void> {
  await sql`
    insert into scan_workers (id, host, pid) values (${worker.id}, ${worker.host}, ${worker.pid})
    on conflict (id) do update set heartbeat_at = now()`.execute(db);
}

/**
 * One beat: the worker is alive now. Returns the claims of `inFlight` it
 * still holds (the others were lost: cancelled, or claimed again while this
 * worker was taken for dead).
 */
export async function beatWorker(
  db: Kysely<Database>,
  worker: { id: string; host: string; pid: number },
  inFlight: string[],
  forgetAfterSeconds: number,
): Promise<Set<string>> {
  const { rows } = await sql<{ claim_id: string }>`
    with beat as (
      insert into scan_workers (id, host, pid) values (${worker.id}, ${worker.host}, ${worker.pid})
      on conflict (id) do update set heartbeat_at = now()
      returning id),
    -- Rows of workers long gone whose items were all taken over.
    forgotten as (
      delete from scan_workers w
       where w.heartbeat_at < now() - make_interval(secs => ${forgetAfterSeconds}::int)
         and not exists (select 1 from scan_items i where i.worker_id = w.id and i.status = 'running')
      returning id)
    select claim_id from scan_items
     where worker_id = ${worker.id} and status = 'running' and claim_id = any (${inFlight}::uuid[])`.execute(db);
  return new Set(rows.map((r) => r.claim_id));
}

/**
 * Hands a claimed item from its worker to its lease (a store failure ended its
 * attempt): claimed again once `leaseSeconds` have passed, like an item of an
 * older worker. False when the claim was already gone.
 */
export async function handToLease(db: Kysely<Database>, claimId: string, leaseSeconds: number): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    update scan_items set worker_id = null, lease_expires_at = now() + make_interval(secs => ${leaseSeconds}::int)
     where claim_id = ${claimId} and status = 'running'
    returning id`.execute(db);
  return rows.length > 0;
}

/** The worker stopped: its row says so at once (items it still holds are claimed again at the next claim). */
export async function retireWorker(db: Kysely<Database>, workerId: string): Promise<void> {
  await sql`update scan_workers set heartbeat_at = '-infinity' where id = ${workerId}`.execute(db);
}
