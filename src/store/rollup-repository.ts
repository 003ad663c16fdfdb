/**
 * Report roll-ups maintained on write: `report_aggregates.totals` (the
 * summary's counts, check totals, work counts and collection revisions) and
 * the report's `profile_count`, `analyzed_profile_count` and `analysis_state`.
 *
 * Every write that changes what an attachment or the company page shows (an
 * import, a removal, an archive, a worker's item transition) calls
 * `refreshReportRollup` with the attachments it touched, inside its
 * transaction. The contribution of each is recomputed with a fixed number of
 * set-based queries and `totals − old + new` is stored; nothing here scans
 * the whole roster unless asked to (`'all'`). The report row is locked first
 * (src/store/locks.ts), so concurrent writers apply their differences one
 * after the other.
 */
import { sql, type Kysely } from 'kysely';
import {
  applyContribution,
  companyContribution,
  emptyTotals,
  personContribution,
  type Contribution,
  type LatestItem,
  type Outcome,
  type PersonFacts,
  type Totals,
} from '../domain/analysis-aggregate.js';
import { revisionOf } from '../domain/revision.js';
import { lockReport } from './locks.js';
import type { Database } from './schema.js';

export type RollupScope = { profileIds: readonly (string | null)[] } | 'all';

interface AggregateRow {
  totals: Totals;
  company: Contribution | null;
}

export async function readAggregates(db: Kysely<Database>, reportId: string): Promise<AggregateRow | null> {
  const row = await db.selectFrom('report_aggregates').select(['totals', 'company']).where('report_id', '=', reportId).executeTakeFirst();
  return row ? { totals: row.totals as Totals, company: row.company as Contribution | null } : null;
}

/**
 * Recomputes the contributions of `scope`'s attachments and of the company
 * page, and applies the differences. `touch` also sets the report's
 * `updated_at` (a write that changed the roster), in the same statement;
 * `companyUnchanged` (a person item's transition) skips the company page.
 */
export async function refreshReportRollup(
  db: Kysely<Database>,
  reportId: string,
  scope: RollupScope,
  now: Date,
  options: { touch?: boolean; companyUnchanged?: boolean } = {},
): Promise<Totals> {
  await lockReport(db, reportId);
  const stored = await readAggregates(db, reportId);
  // Without a stored aggregate (a new report), everything is summed from scratch.
  const rebuild = !stored;
  const ids = rebuild || scope === 'all' ? null : [...new Set(scope.profileIds.filter((id): id is string => id !== null))];

  let totals: Totals = rebuild ? emptyTotals() : stored.totals;
  const changed: { id: string; contribution: Contribution; activeChanged: boolean }[] = [];
  if (ids === null || ids.length > 0) {
    for (const facts of await personFacts(db, reportId, ids)) {
      const after = personContribution(facts.facts);
      const before = rebuild ? null : facts.stored;
      if (before && revisionOf(before) === revisionOf(after)) continue;
      totals = applyContribution(totals, before, after);
      changed.push({
        id: facts.facts.profileId,
        contribution: after,
        activeChanged: before ? before.persons !== after.persons : after.persons === 0,
      });
    }
  }
  // A person item's transition cannot change the company page's facts (its
  // item, context and events): the worker says so and saves the query.
  const companyBefore = rebuild ? null : stored.company;
  const company = options.companyUnchanged && companyBefore ? companyBefore : companyContribution(await companyFacts(db, reportId));
  if (!companyBefore || revisionOf(companyBefore) !== revisionOf(company)) totals = applyContribution(totals, companyBefore, company);

  if (changed.length > 0) {
    await sql`
      insert into profile_contributions (profile_id, report_id, contribution)
      select v.id, ${reportId}::uuid, v.c
      from unnest(${changed.map((c) => c.id)}::uuid[], ${changed.map((c) => JSON.stringify(c.contribution))}::jsonb[]) as v(id, c)
      on conflict (profile_id) do update set contribution = excluded.contribution`.execute(db);
    const changedIds = changed.filter((c) => c.activeChanged).map((c) => c.id);
    // Freshness bounds read these through partial indexes.
    for (const table of changedIds.length > 0 ? (['profile_analyses', 'activity_coverage'] as const) : []) {
      await sql`
        update ${sql.table(table)} t set visible = (p.status = 'active')
        from report_profiles p
        where p.id = t.profile_id and t.profile_id = any(${changedIds}::uuid[]) and t.visible <> (p.status = 'active')`.execute(db);
    }
  }
  await db
    .insertInto('report_aggregates')
    .values({ report_id: reportId, totals: JSON.stringify(totals), company: JSON.stringify(company), updated_at: now })
    .onConflict((oc) => oc.column('report_id').doUpdateSet({ totals: JSON.stringify(totals), company: JSON.stringify(company), updated_at: now }))
    .execute();
  await updateReportRow(db, reportId, totals, options.touch ? now : null);
  return totals;
}

/** Report.profile_count, analyzed_profile_count and analysis_state (decisions "Report.analysis_state"). */
async function updateReportRow(db: Kysely<Database>, reportId: string, totals: Totals, touchedAt: Date | null): Promise<void> {
  await sql`
    with runs as (
      select count(*) as total,
             count(*) filter (where status = 'running') as running,
             count(*) filter (where status = 'queued') as queued
      from scan_runs where report_id = ${reportId}
    )
    update reports set
      updated_at = coalesce(${touchedAt}::timestamptz, reports.updated_at),
      profile_count = ${totals.persons},
      analyzed_profile_count = ${totals.analyzed},
      analysis_state = case
        when ${totals.usable_persons}::int > 0 then 'available'
        when runs.total = 0 then 'not_requested'
        when runs.running > 0 then 'running'
        when runs.queued > 0 then 'queued'
        else 'failed'
      end
    from runs
    where reports.id = ${reportId}`.execute(db);
}

interface GatheredPerson {
  facts: PersonFacts;
  stored: Contribution | null;
}

async function personFacts(db: Kysely<Database>, reportId: string, ids: string[] | null): Promise<GatheredPerson[]> {
  // One round trip: each attachment with its latest item per mode, analysis
  // outcomes, activity coverage and event revisions (correlated subqueries
  // on indexed keys).
  const { rows } = await sql<{
    id: string;
    status: 'active' | 'removed';
    pronet_url: string;
    name: string | null;
    title: string | null;
    headline: string | null;
    contribution: Contribution | null;
    latest: { mode: 'full_profile' | 'activity'; status: LatestItem['status']; warning: boolean }[] | null;
    analysis: { revision: string; outcomes: Record<string, Outcome> | null } | null;
    observed: boolean;
    events: Record<string, string> | null;
  }>`
    select p.id, p.status, p.pronet_url, p.name, p.title, p.headline,
      (select pc.contribution from profile_contributions pc where pc.profile_id = p.id) as contribution,
      (select json_agg(x) from (
         select distinct on (r.mode) r.mode, i.status, i.warning
         from scan_items i join scan_runs r on r.id = i.run_id
         where i.report_id = p.report_id and i.profile_id = p.id and i.kind = 'person'
         order by r.mode, r.created_at desc, i.created_at desc) x) as latest,
      (select json_build_object('revision', a.revision,
                                'outcomes', (select jsonb_object_agg(f->>'check_id', f->>'outcome') from jsonb_array_elements(a.findings) f))
         from profile_analyses a where a.profile_id = p.id) as analysis,
      exists (select 1 from activity_coverage c where c.profile_id = p.id) as observed,
      (select json_object_agg(e.id, e.revision) from activity_events e
         where e.report_id = p.report_id and e.profile_id = p.id) as events
    from report_profiles p
    where p.report_id = ${reportId} and ${ids === null ? sql`true` : sql`p.id = any(${ids}::uuid[])`}`.execute(db);
  return rows.map((p) => {
    const item = (mode: 'full_profile' | 'activity') => {
      const found = p.latest?.find((l) => l.mode === mode);
      return found ? { status: found.status, warning: found.warning } : null;
    };
    return {
      stored: p.contribution,
      facts: {
        profileId: p.id,
        active: p.status === 'active',
        person: { pronet_url: p.pronet_url, name: p.name, title: p.title, headline: p.headline },
        analysis: p.analysis ? { revision: p.analysis.revision, outcomes: p.analysis.outcomes ?? {} } : null,
        full: item('full_profile'),
        activity: item('activity'),
        activityObserved: p.observed,
        events: p.events ?? {},
      },
    };
  });
}

async function companyFacts(db: Kysely<Database>, reportId: string) {
  const { rows } = await sql<{ item: LatestItem | null; observed: boolean; events: Record<string, string> | null }>`
    select
      (select json_build_object('status', i.status, 'warning', i.warning)
         from scan_items i join scan_runs r on r.id = i.run_id
         where i.report_id = ${reportId} and i.profile_id is null and i.kind = 'company_page'
         order by r.created_at desc, i.created_at desc limit 1) as item,
      exists (select 1 from company_context where report_id = ${reportId}) as observed,
      (select json_object_agg(e.id, e.revision) from activity_events e
         where e.report_id = ${reportId} and e.profile_id is null) as events`.execute(db);
  const row = rows[0];
  return { item: row.item, observed: row.observed, events: row.events ?? {} };
}
