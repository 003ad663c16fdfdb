/**
 * What the Bright Data collector keeps in PostgreSQL (migrations 0042, 0043):
 * the snapshots it triggered (never abandoned: a restart resumes them), the
 * company pages it bought (reused for BRIGHTDATA_COMPANY_MAX_AGE), and its
 * circuit breaker's state (shown on the report page and in /metrics).
 */
import { sql } from 'kysely';
import type { Db } from './database.js';
import { releaseProviderRecords } from './provider-usage-repository.js';

export type SnapshotGroup = 'profiles' | 'posts' | 'companies';

export interface StoredSnapshot {
  snapshotId: string;
  urlKeys: string[];
  delivered: boolean;
  /** The workspaces it was bought for: only their items join it; null for a snapshot stored before they were recorded (anyone's). */
  workspaceIds: string[] | null;
}

/** Stores a triggered snapshot with the inputs waiting on it and the budget reservation it holds. */
export async function recordSnapshot(
  db: Db,
  input: {
    snapshotId: string;
    provider: string;
    datasetId: string;
    group: SnapshotGroup;
    urlKeys: string[];
    workspaceIds: string[];
    reservedDay: string | null;
    reserved: number;
  },
): Promise<void> {
  // One statement: the snapshot and the workspaces it was bought for are stored together (the key is checked at its end).
  await sql`
    with stored as (
      insert into brightdata_snapshots (snapshot_id, provider, dataset_id, grp, url_keys, reserved_day, reserved)
      values (${input.snapshotId}, ${input.provider}, ${input.datasetId}, ${input.group}, ${input.urlKeys}::text[], ${input.reservedDay}, ${input.reserved})
      on conflict (snapshot_id) do nothing)
    insert into brightdata_snapshot_workspaces (snapshot_id, workspace_id)
    select ${input.snapshotId}, w from unnest(${[...new Set(input.workspaceIds)]}::uuid[]) w
    on conflict do nothing`.execute(db);
}

/**
 * The snapshots that answer any of `urlKeys`: pending ones younger than
 * `keepMs` (the provider still keeps them), delivered ones younger than
 * `redeliverMs` (an item whose result was not stored yet downloads again, free).
 */
export async function findSnapshots(
  db: Db,
  input: { provider: string; group: SnapshotGroup; urlKeys: string[]; keepMs: number; redeliverMs: number },
): Promise<StoredSnapshot[]> {
  if (input.urlKeys.length === 0) return [];
  const { rows } = await sql<{ snapshot_id: string; url_keys: string[]; delivered: boolean; workspace_ids: string[] | null }>`
    select snapshot_id, url_keys, delivered_at is not null as delivered,
           (select array_agg(w.workspace_id::text) from brightdata_snapshot_workspaces w where w.snapshot_id = s.snapshot_id) as workspace_ids
      from brightdata_snapshots s
     where provider = ${input.provider} and grp = ${input.group} and url_keys && ${input.urlKeys}::text[]
       and created_at > now() - make_interval(secs => ${input.keepMs / 1000})
       and (delivered_at is null or delivered_at > now() - make_interval(secs => ${input.redeliverMs / 1000}))
     order by delivered_at is null, created_at desc`.execute(db);
  return rows.map((r) => ({ snapshotId: r.snapshot_id, urlKeys: r.url_keys, delivered: r.delivered, workspaceIds: r.workspace_ids }));
}

/**
 * Marks a snapshot delivered with the records it billed and settles its
 * budget reservation; true for the first delivery (whose items count the
 * billed records), false when another process or an earlier try delivered it.
 */
export async function settleSnapshot(db: Db, provider: string, snapshotId: string, billed: number): Promise<boolean> {
  const { rows } = await sql<{ reserved_day: string | null; reserved: number }>`
    update brightdata_snapshots s set delivered_at = now(), billed = ${billed}::int, reserved = 0
      from (select snapshot_id, to_char(reserved_day, 'YYYY-MM-DD') as reserved_day, reserved
              from brightdata_snapshots where snapshot_id = ${snapshotId} and delivered_at is null for update) old
     where s.snapshot_id = old.snapshot_id
    returning old.reserved_day, old.reserved`.execute(db);
  const first = rows[0];
  if (!first) return false;
  if (first.reserved_day !== null) await releaseProviderRecords(db, provider, first.reserved_day, first.reserved - billed, first.reserved);
  return true;
}

/**
 * Forgets a snapshot the provider failed or no longer keeps; true when this
 * call forgot it undelivered (another process or an earlier try had not).
 * Its reservation is given back, unless the provider `built` it (its
 * progress said ready): then it was billed, and the reservation stays spent.
 */
export async function dropSnapshot(db: Db, provider: string, snapshotId: string, options: { built: boolean }): Promise<boolean> {
  const { rows } = await sql<{ reserved_day: string | null; reserved: number; delivered: boolean }>`
    delete from brightdata_snapshots where snapshot_id = ${snapshotId}
    returning to_char(reserved_day, 'YYYY-MM-DD') as reserved_day, reserved, delivered_at is not null as delivered`.execute(db);
  const row = rows[0];
  if (!row || row.delivered) return false;
  if (row.reserved_day !== null) await releaseProviderRecords(db, provider, row.reserved_day, options.built ? 0 : row.reserved, row.reserved);
  return true;
}

/** Deletes snapshots older than `keepMs` (the provider no longer keeps them). */
export async function pruneSnapshots(db: Db, provider: string, keepMs: number): Promise<number> {
  const { numAffectedRows } = await sql`
    delete from brightdata_snapshots where provider = ${provider} and created_at < now() - make_interval(secs => ${keepMs / 1000})`.execute(db);
  return Number(numAffectedRows ?? 0);
}

/** The last company-page record bought for the workspace, when captured less than `maxAgeMs` ago. */
export async function readCompanyPage(
  db: Db,
  input: { workspaceId: string; urlKey: string; maxAgeMs: number },
): Promise<{ record: Record<string, unknown>; capturedAt: Date } | null> {
  const row = await db
    .selectFrom('brightdata_company_pages')
    .select(['record', 'captured_at'])
    .where('workspace_id', '=', input.workspaceId)
    .where('url_key', '=', input.urlKey)
    .where(sql<boolean>`captured_at > now() - make_interval(secs => ${input.maxAgeMs / 1000})`)
    .executeTakeFirst();
  return row ? { record: row.record, capturedAt: row.captured_at } : null;
}

/** Keeps a bought company-page record for reuse (the newest capture wins). */
export async function storeCompanyPage(
  db: Db,
  input: { workspaceId: string; urlKey: string; record: Record<string, unknown>; capturedAt: string },
): Promise<void> {
  await sql`
    insert into brightdata_company_pages as p (workspace_id, url_key, record, captured_at)
    values (${input.workspaceId}, ${input.urlKey}, ${JSON.stringify(input.record)}::jsonb, ${input.capturedAt}::timestamptz)
    on conflict (workspace_id, url_key) do update set record = excluded.record, captured_at = excluded.captured_at
     where p.captured_at < excluded.captured_at`.execute(db);
}

export type BreakerState = 'closed' | 'open' | 'half_open';

/** Writes a provider's breaker state (`since` moves only when the state changes). */
export async function writeBreakerState(db: Db, provider: string, state: BreakerState, reason: string | null): Promise<void> {
  await sql`
    insert into provider_breakers as b (provider, state, reason) values (${provider}, ${state}, ${reason})
    on conflict (provider) do update
       set since = case when b.state = excluded.state or (b.state <> 'closed' and excluded.state <> 'closed') then b.since else now() end,
           state = excluded.state, reason = coalesce(excluded.reason, b.reason), updated_at = now()`.execute(db);
}

export interface PausedProvider {
  provider: string;
  state: 'open' | 'half_open';
  reason: string | null;
  since: Date;
}

/** A paused breaker's row not refreshed for this long belongs to a process that is gone (the collector refreshes it more often): it no longer counts as paused. */
export const BREAKER_FRESH_MS = 2 * 60_000;

/** Every provider's breaker as stored by all processes: a paused row older than `freshMs` counts as closed (see BREAKER_FRESH_MS). */
export async function readBreakerStates(db: Db, freshMs: number): Promise<Array<{ provider: string; state: BreakerState }>> {
  const { rows } = await sql<{ provider: string; state: BreakerState }>`
    select provider,
           case when state <> 'closed' and updated_at > now() - make_interval(secs => ${freshMs / 1000}) then state else 'closed' end as state
      from provider_breakers
     order by provider`.execute(db);
  return rows;
}

/** Providers whose breaker holds collection paused, refreshed within `freshMs` (older rows belong to a process that is gone). */
export async function readPausedProviders(db: Db, freshMs: number): Promise<PausedProvider[]> {
  const { rows } = await sql<{ provider: string; state: 'open' | 'half_open'; reason: string | null; since: Date }>`
    select provider, state, reason, since from provider_breakers
     where state <> 'closed' and updated_at > now() - make_interval(secs => ${freshMs / 1000})
     order by provider`.execute(db);
  return rows;
}
