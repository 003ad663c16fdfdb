/**
 * Provider quota state in PostgreSQL (migration 0010), shared by every worker
 * process: leased concurrency slots and the schedule of call starts. One
 * statement per function, none holds a lock beyond its own statement, so no
 * connection is pinned while a provider call runs. The waiting and polling
 * live in scanning/collectors/provider-quota.ts.
 */
import { sql } from 'kysely';
import type { Db } from './database.js';

export interface SlotRef {
  /** The provider's endpoint URL. */
  provider: string;
  slot: number;
  /** Random token of the call holding the slot. */
  holder: string;
}

const ms = (value: number) => sql`(${value}::float8 * interval '1 millisecond')`;

/** Makes sure slot rows 0 .. count-1 exist for the provider (idempotent). */
export async function ensureProviderSlots(db: Db, provider: string, count: number): Promise<void> {
  await sql`
    insert into provider_call_slots (provider, slot)
    select ${provider}, g from generate_series(0, ${count}::int - 1) g
    on conflict do nothing`.execute(db);
}

/**
 * Leases the lowest free slot below `maxSlots` (free: no holder, or its lease
 * has expired) until now + leaseMs. Null when every slot is taken.
 * SKIP LOCKED lets concurrent claimers pass each other instead of queueing.
 */
export async function claimProviderSlot(db: Db, input: { provider: string; maxSlots: number; holder: string; leaseMs: number }): Promise<number | null> {
  const { rows } = await sql<{ slot: number }>`
    update provider_call_slots s
       set holder = ${input.holder}::uuid, expires_at = clock_timestamp() + ${ms(input.leaseMs)}
      from (select slot from provider_call_slots
             where provider = ${input.provider} and slot < ${input.maxSlots}::int
               and (holder is null or expires_at <= clock_timestamp())
             order by slot
             limit 1
             for update skip locked) free
     where s.provider = ${input.provider} and s.slot = free.slot
    returning s.slot`.execute(db);
  return rows[0]?.slot ?? null;
}

/**
 * Reserves the next call start (the later of the schedule and now; the
 * schedule then moves on by intervalMs) and, in the same statement, extends
 * the caller's slot lease to that start + leaseMs. `waitMs` is how long the
 * caller must wait before starting; `held` is false when the slot was lost
 * (its lease expired and another call took it).
 */
export async function reserveProviderStart(db: Db, input: SlotRef & { intervalMs: number; leaseMs: number }): Promise<{ waitMs: number; held: boolean }> {
  const { rows } = await sql<{ wait_ms: number; held: boolean }>`
    with reserved as (
      insert into provider_call_schedule as c (provider, next_start_at)
      values (${input.provider}, clock_timestamp() + ${ms(input.intervalMs)})
      on conflict (provider) do update
        set next_start_at = greatest(c.next_start_at, clock_timestamp()) + ${ms(input.intervalMs)}
      returning next_start_at - ${ms(input.intervalMs)} as start_at
    ), held as (
      update provider_call_slots
         set expires_at = (select start_at from reserved) + ${ms(input.leaseMs)}
       where provider = ${input.provider} and slot = ${input.slot}::int and holder = ${input.holder}::uuid
      returning slot
    )
    select greatest(0, extract(epoch from (start_at - clock_timestamp())) * 1000)::float8 as wait_ms,
           exists (select 1 from held) as held
      from reserved`.execute(db);
  const row = rows[0];
  return { waitMs: Number(row.wait_ms), held: row.held };
}

/** Frees the slot if this holder still has it. */
export async function releaseProviderSlot(db: Db, ref: SlotRef): Promise<void> {
  await sql`
    update provider_call_slots set holder = null, expires_at = null
     where provider = ${ref.provider} and slot = ${ref.slot}::int and holder = ${ref.holder}::uuid`.execute(db);
}
