/**
 * Provider records (migrations 0024, 0043): the daily budget shared by every worker
 * process, and the records billed per workspace.
 *
 * The budget is a reservation counter per UTC day (the database's clock) and
 * provider: a call reserves what it may be billed before it is sent, in one
 * conditional upsert, and gives back what was not billed afterwards. A
 * process that dies between the two leaves its reservation taken until the
 * day ends: the budget can be under-used, never exceeded.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Db } from './database.js';

/** Reserves `records` against today's budget; the day reserved ('YYYY-MM-DD'), or null when they do not fit. */
export async function reserveProviderRecords(db: Db, provider: string, records: number, budget: number): Promise<string | null> {
  const { rows } = await sql<{ day: string }>`
    insert into provider_record_budget as b (day, provider, reserved, in_flight)
    select (now() at time zone 'utc')::date, ${provider}, ${records}::int, ${records}::int
     where ${records}::int <= ${budget}::int
    on conflict (day, provider) do update set reserved = b.reserved + excluded.reserved, in_flight = b.in_flight + excluded.in_flight
     where b.reserved + excluded.reserved <= ${budget}::int
    returning to_char(day, 'YYYY-MM-DD') as day`.execute(db);
  return rows[0]?.day ?? null;
}

export interface BudgetGrant {
  /** The UTC day reserved on ('YYYY-MM-DD'). */
  day: string;
  /** Records reserved now (0 when none were free). */
  granted: number;
  /** Records other calls had reserved and not settled when this one asked. */
  inFlightBefore: number;
}

/**
 * Reserves as much of today's budget as `decide` takes of what is left
 * (`decide(remaining)` returns a number between 0 and `remaining`), under the
 * budget row's lock: two processes can never both take the last records.
 */
export async function reserveProviderRecordsUpTo(db: Db, provider: string, budget: number, decide: (remaining: number) => number): Promise<BudgetGrant> {
  return db.transaction().execute(async (trx) => {
    await sql`
      insert into provider_record_budget (day, provider, reserved) values ((now() at time zone 'utc')::date, ${provider}, 0)
      on conflict (day, provider) do nothing`.execute(trx);
    const { rows } = await sql<{ day: string; reserved: number; in_flight: number }>`
      select to_char(day, 'YYYY-MM-DD') as day, reserved, in_flight from provider_record_budget
       where day = (now() at time zone 'utc')::date and provider = ${provider} for update`.execute(trx);
    const row = rows[0];
    const remaining = Math.max(0, budget - row.reserved);
    const granted = Math.max(0, Math.min(remaining, Math.floor(decide(remaining))));
    if (granted > 0) {
      await sql`
        update provider_record_budget set reserved = reserved + ${granted}::int, in_flight = in_flight + ${granted}::int
         where day = ${row.day}::date and provider = ${provider}`.execute(trx);
    }
    return { day: row.day, granted, inFlightBefore: row.in_flight };
  });
}

/** Settles a reservation of `day`: `unbilled` records are given back, `settled` leave the in-flight count. */
export async function releaseProviderRecords(db: Db, provider: string, day: string, unbilled: number, settled = unbilled): Promise<void> {
  if (unbilled <= 0 && settled <= 0) return;
  await sql`
    update provider_record_budget
       set reserved = greatest(0, reserved - ${Math.max(0, unbilled)}::int), in_flight = greatest(0, in_flight - ${Math.max(0, settled)}::int)
     where day = ${day}::date and provider = ${provider}`.execute(db);
}

/** Records reserved today (the database's UTC day). */
export async function reservedToday(db: Db, provider: string): Promise<number> {
  const { rows } = await sql<{ reserved: number }>`
    select reserved from provider_record_budget where day = (now() at time zone 'utc')::date and provider = ${provider}`.execute(db);
  return rows[0]?.reserved ?? 0;
}

/** Adds billed records to the workspace's count of today (in the caller's transaction). */
export async function recordProviderUsage(db: Db, input: { workspaceId: string; provider: string; records: number }): Promise<void> {
  if (input.records > 0) await providerUsageWrite(input).execute(db);
}

/** `recordProviderUsage` as one statement for the caller's statement (a finishing item's last: scanning/finish-item.ts); `records` > 0. */
export function providerUsageWrite(input: { workspaceId: string; provider: string; records: number }): RawBuilder<unknown> {
  return sql`
    insert into provider_usage as u (workspace_id, day, provider, records)
    values (${input.workspaceId}, (now() at time zone 'utc')::date, ${input.provider}, ${input.records}::int)
    on conflict (workspace_id, day, provider) do update set records = u.records + excluded.records`;
}

export interface ProviderUsage {
  provider: string;
  /** Records billed today (UTC). */
  today: number;
  /** Records billed this calendar month (UTC), today included. */
  month: number;
  /** Records billed in the 30 days up to today. */
  last30Days: number;
}

/** The workspace's billed records per provider. */
export async function readProviderUsage(db: Db, workspaceId: string): Promise<ProviderUsage[]> {
  const { rows } = await sql<{ provider: string; today: number; month: number; last30: number }>`
    with t as (select (now() at time zone 'utc')::date as today)
    select u.provider,
           coalesce(sum(u.records) filter (where u.day = t.today), 0)::int as today,
           coalesce(sum(u.records) filter (where u.day >= date_trunc('month', t.today)::date), 0)::int as month,
           coalesce(sum(u.records) filter (where u.day > t.today - 30), 0)::int as last30
      from provider_usage u, t
     where u.workspace_id = ${workspaceId} and u.day > least(t.today - 30, date_trunc('month', t.today)::date - 1)
     group by u.provider
     order by u.provider`.execute(db);
  return rows.map((r) => ({ provider: r.provider, today: r.today, month: r.month, last30Days: r.last30 }));
}
