/**
 * Reads of stored analysis (2.9, 4.10-4.11a). Only SELECTs: reading never
 * changes a row. Every query is bounded by a page or by an index (freshness
 * bounds use the partial `visible` indexes), so the cost of a read does not
 * grow with the size of the report.
 */
import { sql, type Kysely } from 'kysely';
import type { LatestItem } from '../domain/analysis-aggregate.js';
import type { StoredAnalysis, StoredFinding } from '../domain/analysis-records.js';
import type { Database } from './schema.js';

export async function readCompanyContext(db: Kysely<Database>, reportId: string) {
  return db
    .selectFrom('company_context')
    .select(['name', 'tagline', 'industry', 'follower_count', 'website', 'captured_at'])
    .where('report_id', '=', reportId)
    .executeTakeFirst();
}

export async function readRuns(db: Kysely<Database>, reportId: string) {
  return db.selectFrom('scan_runs').select(['id', 'status']).where('report_id', '=', reportId).orderBy('created_at').orderBy('id').execute();
}

/** Oldest and newest observation shown: visible analyses, visible activity coverage and the company page. */
export async function readCaptureBounds(db: Kysely<Database>, reportId: string): Promise<{ oldest: Date | null; newest: Date | null }> {
  const { rows } = await sql<{ oldest: Date | null; newest: Date | null }>`
    select least(
             (select min(captured_at) from profile_analyses where report_id = ${reportId} and visible),
             (select min(captured_at) from activity_coverage where report_id = ${reportId} and visible),
             (select captured_at from company_context where report_id = ${reportId})) as oldest,
           greatest(
             (select max(captured_at) from profile_analyses where report_id = ${reportId} and visible),
             (select max(captured_at) from activity_coverage where report_id = ${reportId} and visible),
             (select captured_at from company_context where report_id = ${reportId})) as newest`.execute(db);
  return rows[0] ?? { oldest: null, newest: null };
}

export interface FindingsRow {
  id: string;
  pronet_url: string;
  name: string | null;
  title: string | null;
  headline: string | null;
  analysis: StoredAnalysis | null;
  full: LatestItem | null;
}

/** Active attachments in id order after `afterId`, with their stored analysis and latest full_profile item. */
export async function findingsPage(
  db: Kysely<Database>,
  input: { reportId: string; afterId: string | null; profileId: string | null; limit: number },
): Promise<FindingsRow[]> {
  let query = db
    .selectFrom('report_profiles as p')
    .leftJoin('profile_analyses as a', 'a.profile_id', 'p.id')
    .select([
      'p.id',
      'p.pronet_url',
      'p.name',
      'p.title',
      'p.headline',
      'a.revision',
      'a.catalog_version',
      'a.findings',
      'a.captured_at',
      'a.available_at',
    ])
    .where('p.report_id', '=', input.reportId)
    .where('p.status', '=', 'active');
  if (input.afterId) query = query.where('p.id', '>', input.afterId);
  if (input.profileId) query = query.where('p.id', '=', input.profileId);
  const rows = await query.orderBy('p.id').limit(input.limit).execute();
  if (rows.length === 0) return [];
  const latest = await sql<{ profile_id: string; status: LatestItem['status']; warning: boolean }>`
    select distinct on (i.profile_id) i.profile_id, i.status, i.warning
    from scan_items i join scan_runs r on r.id = i.run_id
    where i.report_id = ${input.reportId} and r.mode = 'full_profile' and i.profile_id = any(${rows.map((r) => r.id)}::uuid[])
    order by i.profile_id, r.created_at desc, i.created_at desc`.execute(db);
  const fullOf = new Map(latest.rows.map((r) => [r.profile_id, { status: r.status, warning: r.warning }]));
  return rows.map((r) => ({
    id: r.id,
    pronet_url: r.pronet_url,
    name: r.name,
    title: r.title,
    headline: r.headline,
    analysis:
      r.revision === null
        ? null
        : {
            revision: r.revision,
            catalog_version: r.catalog_version!,
            findings: r.findings as StoredFinding[],
            captured_at: r.captured_at!,
            available_at: r.available_at!,
          },
    full: fullOf.get(r.id) ?? null,
  }));
}

export interface ActivityFilter {
  reportId: string;
  afterId: string | null;
  profileId: string | null;
  eventType: string | null;
  from: Date | null;
  to: Date | null;
  limit: number;
}

/** Visible events (company page, or an active attachment's) in id order after `afterId`. */
export async function activityPage(db: Kysely<Database>, filter: ActivityFilter) {
  let query = db
    .selectFrom('activity_events as e')
    .leftJoin('report_profiles as p', 'p.id', 'e.profile_id')
    .select([
      'e.id',
      'e.profile_id',
      'e.event_type',
      'e.actor',
      'e.source_url',
      'e.text',
      'e.occurred_at',
      'e.counts',
      'e.provenance',
      'e.captured_at',
      'e.available_at',
      'e.updated_at',
      'e.revision',
    ])
    .where('e.report_id', '=', filter.reportId)
    .where((eb) => eb.or([eb('e.profile_id', 'is', null), eb('p.status', '=', 'active')]));
  if (filter.afterId) query = query.where('e.id', '>', filter.afterId);
  if (filter.profileId) query = query.where('e.profile_id', '=', filter.profileId);
  if (filter.eventType) query = query.where('e.event_type', '=', filter.eventType as never);
  // 4.11a: events with unknown dates are excluded only when a date filter is used.
  if (filter.from) query = query.where('e.occurred_at', '>=', filter.from);
  if (filter.to) query = query.where('e.occurred_at', '<', filter.to);
  return query.orderBy('e.id').limit(filter.limit).execute();
}

export async function isActiveAttachment(db: Kysely<Database>, reportId: string, profileId: string): Promise<boolean> {
  const row = await db
    .selectFrom('report_profiles')
    .select('id')
    .where('report_id', '=', reportId)
    .where('id', '=', profileId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return row !== undefined;
}
