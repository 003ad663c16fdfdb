/**
 * Erasure of people and workspaces in the database (use-cases/personal-data.ts
 * orchestrates; docs/privacy.md): the rows go by the foreign keys' cascades
 * (migration 0041), what the contract keeps is tombstoned here, and the media
 * blobs left without rows are queued in `blob_deletions` in the same
 * transaction (migration 0048), then deleted by `processBlobDeletions` (maintenance-repository.ts) only
 * when no evidence refers to them any more.
 */
import { sql, type Kysely } from 'kysely';
import { redactErased } from '../domain/erasure.js';
import { normalizeProfileUrl } from '../domain/profile-url.js';
import type { Database } from './schema.js';
import { refreshReportRollup } from './rollup-repository.js';
import { refreshRun } from './scan-repository.js';

export interface ErasedPerson {
  id: string;
  report_id: string;
  pronet_url: string;
}

/** The attachments of a workspace to erase: one of a report, or every one with this normalized URL. */
export async function findPeopleToErase(
  db: Kysely<Database>,
  workspaceId: string,
  target: { reportId: string; profileId: string } | { url: string },
): Promise<ErasedPerson[]> {
  let query = db.selectFrom('report_profiles').select(['id', 'report_id', 'pronet_url']).where('workspace_id', '=', workspaceId);
  query = 'url' in target ? query.where('pronet_url', '=', target.url) : query.where('report_id', '=', target.reportId).where('id', '=', target.profileId);
  return query.orderBy('report_id').orderBy('id').execute();
}

/**
 * Erases the given people of one report, in the caller's transaction: their
 * unfinished items are cancelled and their runs' counts settled first (a
 * run keeps its counts), the report's roll-ups drop what they contributed,
 * the stored responses of the workspace that name them are tombstoned, the
 * provider's snapshot identities of their URLs go, their blobs are queued
 * for deletion, and then their attachments are deleted, which removes every
 * row of theirs (events, evidence, analyses, coverage, contributions,
 * history, items, private links) by the keys' cascades. Returns how many
 * blobs were queued.
 */
export async function erasePeopleOfReport(db: Kysely<Database>, workspaceId: string, reportId: string, people: ErasedPerson[], now: Date): Promise<number> {
  await sql`select 1 from reports where id = ${reportId} for no key update`.execute(db);
  const ids = people.map((p) => p.id);
  // Still here (a concurrent erasure may have taken them).
  const present = await db.selectFrom('report_profiles').select(['id', 'pronet_url']).where('report_id', '=', reportId).where('id', 'in', ids).execute();
  if (present.length === 0) return 0;
  const presentIds = present.map((p) => p.id);
  await db
    .updateTable('report_profiles')
    .set({ status: 'removed', removed_at: now, updated_at: now })
    .where('id', 'in', presentIds)
    .where('status', '=', 'active')
    .execute();
  await refreshReportRollup(db, reportId, { profileIds: presentIds }, now, { touch: true });
  const cancelled = await db
    .updateTable('scan_items')
    .set({ status: 'cancelled', finished_at: now, reason: 'person erased', claim_id: null, lease_expires_at: null })
    .where('report_id', '=', reportId)
    .where('profile_id', 'in', presentIds)
    .where('status', 'in', ['pending', 'running'])
    .returning('run_id')
    .execute();
  for (const runId of [...new Set(cancelled.map((r) => r.run_id))].sort()) await refreshRun(db, runId, now);

  await tombstoneResponses(db, workspaceId, { profileIds: new Set(presentIds), urls: new Set(present.map((p) => p.pronet_url)) });
  if (
    (await deleteCompanyEventsBy(
      db,
      reportId,
      present.map((p) => p.pronet_url),
    )) > 0
  ) {
    // The company page's events feed every person's activity checks: they are folded again without the erased ones.
    await refreshReportRollup(db, reportId, 'all', now, { touch: true });
  }
  await sql`
    update brightdata_snapshots set url_keys = array(select k from unnest(url_keys) k where k <> all(${present.map((p) => p.pronet_url)}::text[]))
     where url_keys && ${present.map((p) => p.pronet_url)}::text[]`.execute(db);
  const queued = await queueBlobsOf(db, sql`select original_sha256, preview_sha256 from evidence_images where profile_id = any(${presentIds}::uuid[])`, now);
  // The run counts were settled above: refreshRun would count the deleted items out of them.
  await db.deleteFrom('report_profiles').where('id', 'in', presentIds).execute();
  return queued;
}

/**
 * Deletes the report's company-page events whose actor is one of the erased
 * people (a post of theirs the company page shows, a comment of theirs):
 * the event is about them, with their name, URL and words. Actors are
 * compared by profile identity (domain/profile-url.ts), whatever variant of
 * the URL the provider gave. Returns how many were deleted.
 */
async function deleteCompanyEventsBy(db: Kysely<Database>, reportId: string, urls: string[]): Promise<number> {
  const erased = new Set(urls.map(profileIdentity));
  const events = await db
    .selectFrom('activity_events')
    .select(['id', sql<string | null>`actor->>'url'`.as('actor_url')])
    .where('report_id', '=', reportId)
    .where('profile_id', 'is', null)
    .where(sql<boolean>`actor->>'url' is not null`)
    .execute();
  const ids = events.filter((e) => e.actor_url !== null && erased.has(profileIdentity(e.actor_url))).map((e) => e.id);
  if (ids.length === 0) return 0;
  await db.deleteFrom('activity_events').where('id', 'in', ids).execute();
  return ids.length;
}

function profileIdentity(url: string): string {
  const normalized = normalizeProfileUrl(url);
  return normalized.ok ? normalized.url : url.trim().toLowerCase();
}

/** Replaces the erased people's values in the workspace's stored responses (idempotency records). */
async function tombstoneResponses(db: Kysely<Database>, workspaceId: string, erased: { profileIds: Set<string>; urls: Set<string> }): Promise<void> {
  const needles = [...erased.urls, ...erased.profileIds];
  const { rows } = await sql<{ operation: string; scope: string; key: string; response: unknown }>`
    select operation, scope, key, response from idempotency_records
     where workspace_id = ${workspaceId} and exists (select 1 from unnest(${needles}::text[]) n where strpos(response::text, n) > 0)
     for update`.execute(db);
  for (const row of rows) {
    const { value, changed } = redactErased(row.response, erased);
    if (!changed) continue;
    await sql`update idempotency_records set response = ${JSON.stringify(value)}::jsonb
               where workspace_id = ${workspaceId} and operation = ${row.operation} and scope = ${row.scope} and key = ${row.key}`.execute(db);
  }
}

/** Queues every hash the query returns (two columns of hashes) for deletion; returns how many were new. */
async function queueBlobsOf(db: Kysely<Database>, hashes: ReturnType<typeof sql>, now: Date): Promise<number> {
  const { numAffectedRows } = await sql`
    insert into blob_deletions (sha256, enqueued_at, next_attempt_at)
    select distinct h, ${now}::timestamptz, ${now}::timestamptz
      from (${hashes}) e(a, b), lateral (values (e.a), (e.b)) v(h)
    on conflict (sha256) do nothing`.execute(db);
  return Number(numAffectedRows ?? 0);
}

/** Queues blobs a worker stored for an item whose person was erased before it finished. */
export async function queueBlobDeletions(db: Kysely<Database>, hashes: string[], now: Date): Promise<void> {
  if (hashes.length === 0) return;
  await sql`
    insert into blob_deletions (sha256, enqueued_at, next_attempt_at)
    select distinct h, ${now}::timestamptz, ${now}::timestamptz from unnest(${hashes}::text[]) h
    on conflict (sha256) do nothing`.execute(db);
}

/** Whether the scan item is still stored (an erased person's items are not). */
export async function itemExists(db: Kysely<Database>, itemId: string): Promise<boolean> {
  return (await db.selectFrom('scan_items').select('id').where('id', '=', itemId).executeTakeFirst()) !== undefined;
}

/**
 * Deletes a workspace and everything of it, in the caller's transaction: its
 * blobs are queued first, then the workspace row goes and the keys cascade
 * to every row of it. Returns the number of blobs queued, or null when there
 * is no such workspace.
 */
export async function deleteWorkspaceRows(db: Kysely<Database>, workspaceId: string, now: Date): Promise<number | null> {
  const found = await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().executeTakeFirst();
  if (!found) return null;
  const urls = await db.selectFrom('report_profiles').select('pronet_url').distinct().where('workspace_id', '=', workspaceId).execute();
  if (urls.length > 0) {
    const list = urls.map((u) => u.pronet_url);
    // Another workspace may have the same person: its own snapshots' identities stay only with it.
    await sql`
      update brightdata_snapshots set url_keys = array(select k from unnest(url_keys) k where k <> all(${list}::text[])
                                                        or exists (select 1 from report_profiles p where p.pronet_url = k and p.workspace_id <> ${workspaceId}))
       where url_keys && ${list}::text[]`.execute(db);
  }
  await sql`delete from brightdata_company_pages where workspace_id = ${workspaceId}`.execute(db);
  // Rate-limit windows name the workspace, its keys or its members in their bucket (no key: a bucket is text).
  await sql`
    delete from rate_counters c
     where exists (select 1 from (select ${workspaceId}::text as n
                                  union all select id::text from api_keys where workspace_id = ${workspaceId}
                                  union all select id::text from users where workspace_id = ${workspaceId}
                                  union all select lower(a.email) from users u join accounts a on a.id = u.account_id
                                             where u.workspace_id = ${workspaceId} and a.email is not null) names
                    where strpos(lower(c.bucket), names.n) > 0)`.execute(db);
  const queued = await queueBlobsOf(
    db,
    sql`select e.original_sha256, e.preview_sha256 from evidence_images e join reports r on r.id = e.report_id where r.workspace_id = ${workspaceId}`,
    now,
  );
  const members = await db.selectFrom('users').select('account_id').distinct().where('workspace_id', '=', workspaceId).execute();
  await db.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
  // An account left with no workspace is only an email and a password hash that nothing can use: it goes too.
  if (members.length > 0) {
    await sql`
      delete from accounts a
       where a.id = any(${members.map((m) => m.account_id)}::uuid[])
         and not exists (select 1 from users u where u.account_id = a.id)`.execute(db);
  }
  return queued;
}

/**
 * Up to `limit` attachments retention erases: removed before `removedBefore`
 * (null: none), or on a report archived before `archivedBefore` (null: none).
 */
export async function findExpiredPeople(
  db: Kysely<Database>,
  cutoffs: { removedBefore: Date | null; archivedBefore: Date | null },
  limit: number,
): Promise<(ErasedPerson & { workspace_id: string; why: 'removed' | 'archived' })[]> {
  const found: (ErasedPerson & { workspace_id: string; why: 'removed' | 'archived' })[] = [];
  if (cutoffs.removedBefore) {
    const rows = await db
      .selectFrom('report_profiles')
      .select(['id', 'report_id', 'pronet_url', 'workspace_id'])
      .where('status', '=', 'removed')
      .where('removed_at', '<', cutoffs.removedBefore)
      .orderBy('removed_at')
      .limit(limit)
      .execute();
    found.push(...rows.map((r) => ({ ...r, why: 'removed' as const })));
  }
  if (cutoffs.archivedBefore && found.length < limit) {
    const rows = await db
      .selectFrom('report_profiles as p')
      .innerJoin('reports as r', 'r.id', 'p.report_id')
      .select(['p.id', 'p.report_id', 'p.pronet_url', 'p.workspace_id'])
      .where('r.archived', '=', true)
      .where('r.archived_at', '<', cutoffs.archivedBefore)
      .orderBy('r.archived_at')
      .limit(limit - found.length)
      .execute();
    found.push(...rows.filter((r) => !found.some((f) => f.id === r.id)).map((r) => ({ ...r, why: 'archived' as const })));
  }
  return found;
}
