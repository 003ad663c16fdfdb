/**
 * Worker processes' heartbeats (migrations 0027, 0028; docs/scanning.md,
 * "Leases and worker heartbeats"): a worker registers when it starts, beats
 * every few seconds from a connection that holds its liveness lock, and
 * retires when it stops. The claim takes the items of a worker silent past
 * the dead threshold whose lock is free (its process is gone), or silent past
 * the hung threshold.
 */
import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import { createDb, createPool, type Db } from '../store/database.js';
import type { Database } from '../store/schema.js';

/** The advisory-lock namespace of worker liveness ('pswk'; migration 0028): key (namespace, hashtext(worker id)). */
const WORKER_LOCK_NAMESPACE = 1886615403;

export interface WorkerConnection {
  db: Db;
  /**
   * Takes the liveness lock on the connection if it does not hold it (the
   * connection's first attempt met the lock still held: by an older session of
   * this worker not yet ended, or by a claim probing it). Called before each beat.
   */
  relock(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A worker process's own connection: its heartbeats, and a session advisory
 * lock that says its process lives (migration 0028). Its own, so that a beat
 * goes out however busy the worker's pool is; never closed for being idle, so
 * the lock is held for the process's life. A connection replaced after an
 * error takes the lock again before its first statement; if it could not (the
 * lock still held elsewhere for a moment), the next beat tries again.
 */
export function openWorkerConnection(databaseUrl: string, workerId: string, onError: (error: Error) => void): WorkerConnection {
  const pool = createPool(databaseUrl, 1, { keepIdle: true });
  let locked = false;
  const tryLock = (client: { query: pg.Pool['query'] }) =>
    client
      .query<{ locked: boolean }>('select pg_try_advisory_lock($1, hashtext($2::uuid::text)) as locked', [WORKER_LOCK_NAMESPACE, workerId])
      .then(({ rows }) => {
        locked = rows[0]?.locked === true;
      });
  pool.on('error', (error) => {
    locked = false;
    onError(error);
  });
  pool.on('connect', (client) => {
    locked = false;
    tryLock(client).catch(onError);
  });
  const db = createDb(pool);
  return {
    db,
    relock: async () => {
      if (!locked) await tryLock(pool);
    },
    close: () => db.destroy(),
  };
}

export async function registerWorker(db: Kysely<Database>, worker: { id: string; host: string; pid: number }): Promise<void> {
  await sql`
    insert into scan_workers (id, host, pid) values (${worker.id}, ${worker.host}, ${worker.pid})
    on conflict (id) do update set heartbeat_at = now()`.execute(db);
}

/**
 * One beat: the worker is alive now. Returns the claims of `inFlight` that
 * were lost, with why: the item was cancelled (its report archived), or
 * claimed again (while this worker was taken for dead). An item this worker
 * already finished or handed back is not lost: its attempt is over.
 */
export async function beatWorker(
  db: Kysely<Database>,
  worker: { id: string; host: string; pid: number },
  inFlight: Array<{ claimId: string; itemId: string }>,
  forgetAfterSeconds: number,
): Promise<Map<string, 'cancelled' | 'claimed again'>> {
  const { rows } = await sql<{ claim_id: string; status: string }>`
    with beat as (
      insert into scan_workers (id, host, pid) values (${worker.id}, ${worker.host}, ${worker.pid})
      on conflict (id) do update set heartbeat_at = now()
      -- The first beat after the server came back (a restart, a failover) records its return: the
      -- silence of workers that have not beaten again yet counts from there (migration 0045).
      -- In RETURNING, so that it runs once per beat (a CTE nobody reads would not run at all).
      returning id, database_epoch()),
    -- Rows of workers long gone whose items were all taken over.
    forgotten as (
      delete from scan_workers w
       where w.heartbeat_at < now() - make_interval(secs => ${forgetAfterSeconds}::int)
         and not exists (select 1 from scan_items i where i.worker_id = w.id and i.status = 'running')
      returning id)
    select c.claim_id, i.status
      from unnest(${inFlight.map((c) => c.claimId)}::uuid[], ${inFlight.map((c) => c.itemId)}::uuid[]) as c (claim_id, item_id)
      join scan_items i on i.id = c.item_id
     where i.status = 'cancelled' or (i.status = 'running' and i.claim_id <> c.claim_id)`.execute(db);
  return new Map(rows.map((r) => [r.claim_id, r.status === 'cancelled' ? 'cancelled' : 'claimed again']));
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

/**
 * Items this worker holds that it does not know of (`known`: its claims in
 * flight): a claim whose answer was lost with the connection, or a
 * transition that a crash of the server undid. Only the claim loop asks, between its claims.
 */
export async function unknownClaims(db: Kysely<Database>, workerId: string, known: string[]): Promise<Array<{ itemId: string; claimId: string }>> {
  const { rows } = await sql<{ id: string; claim_id: string }>`
    select id, claim_id from scan_items
     where worker_id = ${workerId} and status = 'running' and claim_id <> all(${known}::uuid[])`.execute(db);
  return rows.map((r) => ({ itemId: r.id, claimId: r.claim_id }));
}

/** Whether any scan worker (a `worker` process or `serve`'s thread) has beaten within the last `withinSeconds`. */
export async function anyWorkerBeating(db: Kysely<Database>, withinSeconds: number): Promise<boolean> {
  const { rows } = await sql<{ beating: boolean }>`
    select exists (select 1 from scan_workers where heartbeat_at > now() - make_interval(secs => ${withinSeconds}::int)) as beating`.execute(db);
  return rows[0]?.beating === true;
}

/** The worker stopped: its row says so at once (items it still holds are claimed again at the next claim). */
export async function retireWorker(db: Kysely<Database>, workerId: string): Promise<void> {
  await sql`update scan_workers set heartbeat_at = '-infinity' where id = ${workerId}`.execute(db);
}
