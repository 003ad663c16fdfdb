/**
 * The people of one report as the web's report page and CSV export need
 * them, in one statement: each active attachment with what was supplied
 * (name, title, headline, imported columns), what the scan observed (name, headline), the
 * stored counts and each check's outcome, the latest full-profile item
 * (the reason a person has no analysis) and their stored contribution to the
 * report's totals (what a group's figures are summed from). A page read, not the API's findings
 * records: no record revision, no template, no cursor; the page filters and
 * sorts the whole roster (use-cases/report-people.ts), which is bounded by the
 * report's size limit.
 */
import { sql } from 'kysely';
import type { Observed, Outcome } from '../domain/checks/check-helpers.js';
import type { Contribution, LatestItem } from '../domain/analysis-aggregate.js';
import type { StoredFinding } from '../domain/analysis-records.js';
import type { Db } from './database.js';
import { latestFullItemJoin } from './latest-item.js';
import { findReport } from './report-repository.js';

export interface ReportPersonRow {
  profile_id: string;
  pronet_url: string;
  /** As supplied by the import (null: not supplied). */
  name: string | null;
  title: string | null;
  headline: string | null;
  /** The other columns of a web CSV import, by header ({} when none). */
  imported_columns: Record<string, string>;
  /** As the latest profile observation shows them (null: not observed, or no analysis). */
  observed_name: string | null;
  observed_headline: string | null;
  /** Null when the person has no stored analysis. */
  analysis: {
    good: number;
    optimize: number;
    unknown: number;
    outcomes: Record<string, Outcome>;
    /** Each check's observed value, by check key. */
    observed: Record<string, Observed>;
    captured_at: Date;
  } | null;
  /** The latest full-profile item (null: none). */
  full: LatestItem | null;
  /**
   * Their stored contribution to the report's totals, without the collection
   * entries (`record`, `events`: revisions, not figures); null before the
   * first roll-up counted them. What a group's figures are summed from.
   */
  contribution: Omit<Contribution, 'record' | 'events'> | null;
}

/** One person's stored analysis, as a findings record is built from it (domain/analysis-records.ts). */
export interface PersonAnalysisRow {
  revision: string;
  catalog_version: string;
  findings: StoredFinding[];
  captured_at: Date;
  available_at: Date;
}

/**
 * One active person of the report for their page: what readReportPeople
 * gives for them, plus their stored analysis. Undefined when the workspace
 * has no such report or the person is not on it.
 */
export async function readReportPerson(
  db: Db,
  workspaceId: string,
  reportId: string,
  profileId: string,
): Promise<(Omit<ReportPersonRow, 'analysis' | 'contribution'> & { analysis: PersonAnalysisRow | null }) | undefined> {
  const row = await db
    .selectFrom('report_profiles as p')
    .innerJoin('reports as r', 'r.id', 'p.report_id')
    .leftJoin('profile_analyses as a', 'a.profile_id', 'p.id')
    .select([
      'p.id',
      'p.pronet_url',
      'p.name',
      'p.title',
      'p.headline',
      'p.imported_columns',
      'a.profile_data',
      'a.revision',
      'a.catalog_version',
      'a.findings',
      'a.captured_at',
      'a.available_at',
    ])
    .where('r.workspace_id', '=', workspaceId)
    .where('p.report_id', '=', reportId)
    .where('p.id', '=', profileId)
    .where('p.status', '=', 'active')
    .executeTakeFirst();
  if (!row) return undefined;
  const { rows } = await sql<LatestItem>`
    select li.status, li.warning from report_profiles p ${sql.raw(latestFullItemJoin('p'))}
     where p.id = ${profileId} and li.status is not null`.execute(db);
  const full = rows[0];
  const blank = (value: string | null | undefined) => (value === null || value === undefined || value.trim() === '' ? null : value.trim());
  return {
    profile_id: row.id,
    pronet_url: row.pronet_url,
    name: row.name,
    title: row.title,
    headline: row.headline,
    imported_columns: row.imported_columns,
    observed_name: blank(row.profile_data?.name),
    observed_headline: blank(row.profile_data?.headline),
    analysis:
      row.revision === null || row.catalog_version === null || row.findings === null || row.captured_at === null || row.available_at === null
        ? null
        : {
            revision: row.revision,
            catalog_version: row.catalog_version,
            findings: row.findings,
            captured_at: row.captured_at,
            available_at: row.available_at,
          },
    full: full ?? null,
  };
}

/**
 * The person's newest activity events (by when they happened, else when they
 * were seen), at most `limit`. Found by the person (activity_events_person),
 * whose attachment is in the report: naming the report's column as well
 * would let a plan scan the whole report (migration 0034).
 */
export async function readPersonActivity(db: Db, reportId: string, profileId: string, limit: number) {
  return db
    .selectFrom('activity_events')
    .select([
      'id',
      'profile_id',
      'event_type',
      'actor',
      'source_url',
      'text',
      'occurred_at',
      'counts',
      'provenance',
      'captured_at',
      'available_at',
      'updated_at',
    ])
    .where('profile_id', '=', profileId)
    .where(sql<boolean>`exists (select 1 from report_profiles p where p.id = ${profileId} and p.report_id = ${reportId})`)
    .orderBy(sql`coalesce(occurred_at, captured_at)`, 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The report's active people in id order; undefined when the workspace has no such report. */
export async function readReportPeople(db: Db, workspaceId: string, reportId: string): Promise<ReportPersonRow[] | undefined> {
  if (!(await findReport(db, { workspaceId, reportId }))) return undefined;
  const { rows } = await sql<{
    profile_id: string;
    pronet_url: string;
    name: string | null;
    title: string | null;
    headline: string | null;
    imported_columns: Record<string, string>;
    observed_name: string | null;
    observed_headline: string | null;
    analyzed: boolean;
    good: number | null;
    optimize: number | null;
    unknown: number | null;
    outcomes: Record<string, Outcome> | null;
    observed: Record<string, Observed> | null;
    captured_at: Date | null;
    full_status: LatestItem['status'] | null;
    full_warning: boolean | null;
    contribution: Omit<Contribution, 'record' | 'events'> | null;
  }>`
    select p.id as profile_id, p.pronet_url, p.name, p.title, p.headline, p.imported_columns,
           nullif(btrim(a.profile_data ->> 'name'), '') as observed_name,
           nullif(btrim(a.profile_data ->> 'headline'), '') as observed_headline,
           a.profile_id is not null as analyzed, a.good, a.optimize, a.unknown, a.captured_at,
           (select jsonb_object_agg(f ->> 'check_key', f ->> 'outcome') from jsonb_array_elements(a.findings) f) as outcomes,
           (select jsonb_object_agg(f ->> 'check_key', f -> 'observed') from jsonb_array_elements(a.findings) f) as observed,
           li.status as full_status, li.warning as full_warning,
           pc.contribution - 'record' - 'events' as contribution
      from report_profiles p
      left join profile_analyses a on a.profile_id = p.id
      left join profile_contributions pc on pc.profile_id = p.id
      ${sql.raw(latestFullItemJoin('p'))}
     where p.report_id = ${reportId} and p.status = 'active'
     order by p.id`.execute(db);
  return rows.map((r) => ({
    profile_id: r.profile_id,
    pronet_url: r.pronet_url,
    name: r.name,
    title: r.title,
    headline: r.headline,
    imported_columns: r.imported_columns,
    observed_name: r.observed_name,
    observed_headline: r.observed_headline,
    analysis: r.analyzed
      ? { good: r.good!, optimize: r.optimize!, unknown: r.unknown!, outcomes: r.outcomes ?? {}, observed: r.observed ?? {}, captured_at: r.captured_at! }
      : null,
    full: r.full_status === null ? null : { status: r.full_status, warning: r.full_warning ?? false },
    contribution: r.contribution,
  }));
}
