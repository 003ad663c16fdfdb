/**
 * Reads of stored analysis (2.9, 4.10-4.11a). Only SELECTs: reading never
 * changes a row. Every query is bounded by a page or by an index (freshness
 * bounds use the partial `visible` indexes), so the cost of a read does not
 * grow with the size of the report.
 */
import type { Kysely } from 'kysely';
import { REASON_BY_FULL_STATUS } from '../domain/findings-text.js';
import type { ItemStatus } from '../domain/scan-status.js';
import type { StoredFinding } from '../domain/analysis-records.js';
import { addCollection, withPendingDeltas, type Totals } from '../domain/analysis-aggregate.js';
import type { Db } from './database.js';
import { defineFusedRead, fusedCall, readFused, type FusedCall, type Prefetched } from './fused-read.js';
import { prepared, runPrepared } from './prepared-statements.js';
import { reportFromJson, reportJsonSql } from './report-repository.js';
import type { ReportRow } from './report-repository.js';
import { latestFullItemJoin } from './latest-item.js';
import { UNFLATTENED_TEXT } from './plan-fence.js';
import { begunCompanySql, begunPeopleSql, type BegunCompany, type PersonFactsRow } from './person-facts.js';
import { profilesWithBegunPeople, withBegun } from './rollup-repository.js';
import type { Database } from './schema.js';

/**
 * Everything the analysis summary shows, read by one statement (so from one
 * snapshot, without a transaction): the report row, its maintained totals,
 * the observed company context, its scan runs and the freshness bounds, as
 * one JSON text (the use-case keys its memo of the derived summary by it).
 * A fused read (fused-read.ts): run by the authorization statement, or alone.
 */
const SUMMARY_READ = defineFusedRead({
  name: 'summary_v1',
  params: ['reportId'],
  select: ({ workspaceId, param }) => `select json_build_object(
      'report', ${reportJsonSql('r')},
      'totals', (select a.totals from report_aggregates a where a.report_id = r.id),
      'pending', (select json_agg(d.totals) from rollup_deltas d where d.report_id = r.id and d.totals is not null),
      'begun', ${begunPeopleSql('r.id')},
      'begun_company', ${begunCompanySql('r.id')},
      'company', (select json_build_object('name', c.name, 'tagline', c.tagline, 'industry', c.industry,
                                           'follower_count', c.follower_count, 'website', c.website, 'captured_at', c.captured_at)
                    from company_context c where c.report_id = r.id),
      'runs', (select coalesce(json_agg(json_build_object('id', s.id, 'status', s.status) order by s.created_at, s.id), '[]'::json)
                 from scan_runs s where s.report_id = r.id),
      'oldest', least((select min(pa.captured_at) from profile_analyses pa where pa.report_id = r.id and pa.visible),
                      (select min(ac.captured_at) from activity_coverage ac where ac.report_id = r.id and ac.visible),
                      (select cc.captured_at from company_context cc where cc.report_id = r.id)),
      'newest', greatest((select max(pa.captured_at) from profile_analyses pa where pa.report_id = r.id and pa.visible),
                         (select max(ac.captured_at) from activity_coverage ac where ac.report_id = r.id and ac.visible),
                         (select cc.captured_at from company_context cc where cc.report_id = r.id))
    )::text as fused
    from reports r where r.workspace_id = ${workspaceId} and r.id = ${param.reportId}::uuid`,
  decode: (value) => value as string | null,
});

/** The summary read for a route's `access.fused`. */
export function summaryFusedCall(reportId: string): FusedCall {
  return fusedCall(SUMMARY_READ, { reportId });
}

export interface SummaryData {
  report: ReportRow;
  /** null before the report's first roll-up. */
  totals: Totals | null;
  company: {
    name: string | null;
    tagline: string | null;
    industry: string | null;
    follower_count: number | null;
    website: string | null;
    captured_at: Date;
  } | null;
  runs: { id: string; status: string }[];
  captured: { oldest: Date | null; newest: Date | null };
}

const dateOrNull = (value: string | null): Date | null => (value === null ? null : new Date(value));

/** The summary read's JSON text, parsed. */
export function summaryFromText(text: string): SummaryData {
  const v = JSON.parse(text) as {
    report: Parameters<typeof reportFromJson>[0];
    totals: Totals | null;
    company: (Omit<NonNullable<SummaryData['company']>, 'captured_at'> & { captured_at: string }) | null;
    runs: SummaryData['runs'];
    oldest: string | null;
    newest: string | null;
    pending: Totals[] | null;
    begun: PersonFactsRow[] | null;
    begun_company: BegunCompany | null;
  };
  return {
    report: reportFromJson(v.report),
    // Plus the deltas not folded yet, from the same snapshot (rollup-repository.ts).
    totals: withBegun(withPendingDeltas(v.totals, v.pending), v.begun, v.begun_company),
    company: v.company ? { ...v.company, captured_at: new Date(v.company.captured_at) } : null,
    runs: v.runs,
    captured: { oldest: dateOrNull(v.oldest), newest: dateOrNull(v.newest) },
  };
}

/** The summary's JSON text (from the authorization statement when it ran this read); null when the workspace has no such report. */
export async function readSummaryText(db: Db, workspaceId: string, reportId: string, prefetched?: Prefetched): Promise<string | null> {
  return readFused(db, SUMMARY_READ, workspaceId, { reportId }, prefetched);
}

/** The nil UUID: every UUID sorts after it (the first page's position). */
const BEFORE_ALL = '00000000-0000-0000-0000-000000000000';

export interface FindingsPageRow {
  id: string;
  /**
   * The findings record's JSON around its `analysis` member (UTF-8), when the
   * statement assembled it: null when the person has an analysis but no
   * usable stored text (then `stored` has the parts to build it from).
   */
  head: Buffer | null;
  /** The stored `analysis` template (UTF-8), when the person has an analysis with a usable text. */
  analysis: Buffer | null;
  tail: Buffer | null;
  pronet_url: string;
  name: string | null;
  title: string | null;
  headline: string | null;
  /** Null when the person has no stored analysis. */
  analysis_revision: string | null;
  /** The latest full_profile item (null: none). */
  full_status: ItemStatus | null;
  full_warning: boolean | null;
  stored: { findings: StoredFinding[]; catalog_version: string; captured_at: string; available_at: string } | null;
}

export interface FindingsPageRead {
  /** The report exists in the workspace. */
  found: boolean;
  /** With a profile filter: that person is an active attachment of the report. */
  active: boolean;
  /** totals.profiles of the report's aggregates (null before its first roll-up). */
  profiles: Totals['profiles'] | null;
  rows: FindingsPageRow[];
}

const jsonText = (sql: string) => `coalesce(to_json(${sql})::text, 'null')`;
const reasonSql = (status: string) =>
  `case ${status} ${REASON_BY_FULL_STATUS.byStatus.map(([s, reason]) => `when '${s}' then '${JSON.stringify(reason)}'`).join(' ')} ` +
  `else '${JSON.stringify(REASON_BY_FULL_STATUS.none)}' end`;

// One statement (one snapshot, no transaction): the report's existence, the
// collection's revision source and the page. Each record comes in the pieces
// recordText() (src/domain/findings-text.ts) puts around the `analysis`
// member: its head (the attachment's fields as JSON strings, as PostgreSQL
// escapes text exactly as JSON.stringify does, and the record revision:
// revisionOf() is SHA-256 of the RFC 8785 form, keys sorted, base64url, 32
// characters) and its tail (the reason); and the stored analysis template,
// which the reader fills in (fillAnalysisInto).
// The template is ASCII (non-ASCII bytes are placeholders), so pg decodes it
// into a one-byte string whose bytes are the template's. (Filling the
// template in SQL with replace() cost PostgreSQL more than the page's whole read.)
// $1 workspace, $2 report, $3 position (last id of the previous page), $4 rows,
// $5 the usable template format, [$6 profile filter].
const findingsPageSql = (filtered: boolean) => `
  with rep as (select r.id from reports r where r.workspace_id = $1 and r.id = $2),
  head as (
    select exists (select 1 from rep) as found,
           ${filtered ? `exists (select 1 from report_profiles p where p.report_id = $2 and p.id = $6 and p.status = 'active')` : 'true'} as active,
           (select a.totals -> 'profiles' from report_aggregates a join rep on rep.id = a.report_id) as profiles,
           (select json_agg(d.totals -> 'profiles') from rollup_deltas d where d.report_id = $2 and d.totals is not null) as pending,
           ${begunPeopleSql('$2::uuid')} as begun
  ),
  page as (
    select p.id, p.pronet_url, p.name, p.title, p.headline, a.revision as analysis_revision,
           a.profile_id is not null as analyzed, coalesce(a.analysis_format = $5::text, false) as usable, a.analysis_json,
           case when a.profile_id is not null and not coalesce(a.analysis_format = $5::text, false) then
             json_build_object('findings', a.findings, 'catalog_version', a.catalog_version,
                               'captured_at', a.captured_at, 'available_at', a.available_at) end as stored,
           li.status as full_status, li.warning as full_warning
      from report_profiles p
      -- One primary-key lookup per row of the page (the fence keeps it a nested loop in every plan; a
      -- merge join would walk profile_analyses from its first row on every page: plan-fence.ts).
      left join lateral (select * from profile_analyses a where a.profile_id = p.id ${UNFLATTENED_TEXT}) a on true
      ${latestFullItemJoin('p')}
     -- report_id = $2 itself (not through rep): the (report_id, id) index of active attachments, in any plan.
     where p.report_id = $2 and p.status = 'active' and p.id > $3::uuid ${filtered ? 'and p.id = $6::uuid' : ''}
       and exists (select 1 from rep)
     order by p.id
     limit $4),
  parts as (
    select page.*, to_json(page.pronet_url)::text as j_url, ${jsonText('page.name')} as j_name,
           ${jsonText('page.title')} as j_title, ${jsonText('page.headline')} as j_headline,
           case when page.analyzed then 'null' else ${reasonSql('page.full_status')} end as j_reason
      from page)
  select head.found, head.active, head.profiles, head.pending, head.begun,
         parts.id, parts.pronet_url, parts.name, parts.title, parts.headline, parts.analysis_revision,
         parts.full_status, parts.full_warning, parts.stored,
         case when not parts.analyzed or parts.usable then
           '{"profile_id":"' || parts.id || '","pronet_url":' || parts.j_url || ',"name":' || parts.j_name ||
           ',"title":' || parts.j_title || ',"headline":' || parts.j_headline || ',"revision":"' ||
           left(translate(encode(sha256(convert_to(
             '{"analysis":' || ${jsonText('parts.analysis_revision')} || ',"headline":' || parts.j_headline ||
             ',"name":' || parts.j_name || ',"profile_id":"' || parts.id || '","pronet_url":' || parts.j_url ||
             ',"reason":' || parts.j_reason || ',"title":' || parts.j_title || '}', 'UTF8')), 'base64'), '+/', '-_'), 32) ||
           '","analysis":'
         end as record_head,
         case when parts.analyzed and parts.usable then parts.analysis_json end as analysis_template,
         case when not parts.analyzed or parts.usable then ',"reason":' || parts.j_reason || '}' end as record_tail
    from head left join parts on true
   order by parts.id`;

const FINDINGS_PAGE = prepared('findings_page_v1', findingsPageSql(false));
const FINDINGS_PAGE_OF_PROFILE = prepared('findings_page_profile_v1', findingsPageSql(true));

/**
 * Active attachments in id order after `afterId`, each with its record's JSON
 * around the stored template when that is usable (of `format`), else with the
 * parts to build the record from.
 */
export async function readFindingsPage(
  db: Db,
  input: { workspaceId: string; reportId: string; afterId: string | null; profileId: string | null; limit: number; format: string },
): Promise<FindingsPageRead> {
  const values: unknown[] = [input.workspaceId, input.reportId, input.afterId ?? BEFORE_ALL, input.limit, input.format];
  type Row = Omit<FindingsPageRow, 'head' | 'analysis' | 'tail'> & {
    record_head: string | null;
    analysis_template: string | null;
    record_tail: string | null;
    found: boolean;
    active: boolean;
    profiles: Totals['profiles'] | null;
    pending: Totals['profiles'][] | null;
    begun: PersonFactsRow[] | null;
  };
  const rows = await runPrepared<Row>(
    db,
    input.profileId === null ? FINDINGS_PAGE : FINDINGS_PAGE_OF_PROFILE,
    input.profileId === null ? values : [...values, input.profileId],
  );
  const head = rows[0];
  const bytes = (text: string | null) => (text === null ? null : Buffer.from(text, 'utf8'));
  return {
    found: head.found,
    active: head.active,
    // Plus the deltas not folded yet and the begun people as they stand: the revision of exactly what this statement's snapshot holds.
    profiles: head.profiles && profilesWithBegunPeople(head.pending ? head.pending.reduce(addCollection, head.profiles) : head.profiles, head.begun),
    rows: rows
      .filter((r) => r.id !== null)
      .map(({ found: _f, active: _a, profiles: _p, pending: _d, begun: _b, record_head, analysis_template, record_tail, ...row }) => ({
        ...row,
        head: bytes(record_head),
        // ASCII by construction (findings-text.ts): one byte per character.
        analysis: analysis_template === null ? null : Buffer.from(analysis_template, 'latin1'),
        tail: bytes(record_tail),
      })),
  };
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
    .where((eb) => eb.or([eb('e.profile_id', 'is', null), eb('p.status', '=', 'active')]));
  // One person's events are found by the person (activity_events_person), whose attachment is in the
  // report; naming the report's column as well would let a plan scan the whole report (migration 0034).
  query = filter.profileId
    ? query.where('e.profile_id', '=', filter.profileId).where('p.report_id', '=', filter.reportId)
    : query.where('e.report_id', '=', filter.reportId);
  if (filter.afterId) query = query.where('e.id', '>', filter.afterId);
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
