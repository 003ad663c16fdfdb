/**
 * Provider records (migrations 0024, 0043): the daily budget shared by every worker
 * process, and the records billed per workspace.
 *
 * The budget is a reservation counter per UTC day (the database's clock) and
 * provider: a call reserves what it may be billed before it is sent, as much
 * as fits, under the day's row lock, and gives back what was not billed
 * afterwards; `in_flight` counts what is reserved and not settled yet. A
 * process that dies between the two leaves its reservation taken until the
 * day ends: the budget can be under-used, never exceeded.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Db } from './database.js';

export interface BudgetGrant {
  /** The UTC day reserved on ('YYYY-MM-DD'). */
  day: string;
  /** Records reserved now (0 when none were free). */
  granted: number;
  /** Records other calls had reserved and not settled when this one asked. */
  inFlightBefore: number;
}

/**
 * Reserves, of today's budget, `perInput` records for as many of `inputs`
 * as fit (when fewer than `perInput` are left and `partial` is set: what is
 * left, for one input), in one statement under the day's row lock: two
 * processes can never both take the last records.
 */
export async function reserveProviderRecordsUpTo(
  db: Db,
  provider: string,
  input: { budget: number; perInput: number; inputs: number; partial: boolean },
): Promise<BudgetGrant> {
  await sql`
    insert into provider_record_budget (day, provider, reserved) values ((now() at time zone 'utc')::date, ${provider}, 0)
    on conflict (day, provider) do nothing`.execute(db);
  const { rows } = await sql<BudgetGrant>`
    update provider_record_budget b
       set reserved = b.reserved + g.granted, in_flight = b.in_flight + g.granted
      from (select day, provider, in_flight,
                   case when greatest(0, ${input.budget}::int - reserved) >= ${input.perInput}::int
                        then least(${input.inputs}::int, (greatest(0, ${input.budget}::int - reserved) / ${input.perInput}::int)) * ${input.perInput}::int
                        when ${input.partial}::boolean then greatest(0, ${input.budget}::int - reserved)
                        else 0 end as granted
              from provider_record_budget
             where day = (now() at time zone 'utc')::date and provider = ${provider}
               for update) g
     where b.day = g.day and b.provider = g.provider
    returning to_char(b.day, 'YYYY-MM-DD') as day, g.granted::int as granted, g.in_flight::int as "inFlightBefore"`.execute(db);
  return rows[0];
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
  if (input.records > 0) await providerUsageWrite(input, sql<boolean>`true`).execute(db);
}

/**
 * `recordProviderUsage` as one statement for the caller's statement (a finishing item's: scanning/finish-item.ts),
 * which adds the records only if `when` holds (store/one-statement.ts, gateHolds); `records` > 0.
 */
export function providerUsageWrite(input: { workspaceId: string; provider: string; records: number }, when: RawBuilder<boolean>): RawBuilder<unknown> {
  return sql`
    insert into provider_usage as u (workspace_id, day, provider, records)
    select ${input.workspaceId}, (now() at time zone 'utc')::date, ${input.provider}, ${input.records}::int
     where ${when}
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
