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
 * (lock order report → run → item → attachment), so concurrent writers apply
 * their differences one after the other.
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

/** Recomputes the contributions of `scope`'s attachments and of the company page, and applies the differences. */
export async function refreshReportRollup(db: Kysely<Database>, reportId: string, scope: RollupScope, now: Date): Promise<Totals> {
  await sql`select 1 from reports where id = ${reportId} for update`.execute(db);
  const stored = await db.selectFrom('report_aggregates').select(['totals', 'company']).where('report_id', '=', reportId).executeTakeFirst();
  // Without a stored aggregate (a new report), everything is summed from scratch.
  const rebuild = !stored;
  const ids = rebuild || scope === 'all' ? null : [...new Set(scope.profileIds.filter((id): id is string => id !== null))];

  let totals: Totals = rebuild ? emptyTotals() : (stored.totals as Totals);
  const changed: { id: string; contribution: Contribution }[] = [];
  if (ids === null || ids.length > 0) {
    for (const facts of await personFacts(db, reportId, ids)) {
      const after = personContribution(facts.facts);
      const before = rebuild ? null : facts.stored;
      if (before && revisionOf(before) === revisionOf(after)) continue;
      totals = applyContribution(totals, before, after);
      changed.push({ id: facts.facts.profileId, contribution: after });
    }
  }
  const company = companyContribution(await companyFacts(db, reportId));
  const companyBefore = rebuild ? null : ((stored.company as Contribution | null) ?? null);
  if (!companyBefore || revisionOf(companyBefore) !== revisionOf(company)) totals = applyContribution(totals, companyBefore, company);

  if (changed.length > 0) {
    await sql`
      update report_profiles p set contribution = v.c
      from unnest(${changed.map((c) => c.id)}::uuid[], ${changed.map((c) => JSON.stringify(c.contribution))}::jsonb[]) as v(id, c)
      where p.id = v.id`.execute(db);
    const changedIds = changed.map((c) => c.id);
    // Freshness bounds read these through partial indexes.
    for (const table of ['profile_analyses', 'activity_coverage'] as const) {
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
  await updateReportRow(db, reportId, totals);
  return totals;
}

/** Report.profile_count, analyzed_profile_count and analysis_state (decisions "Report.analysis_state"). */
async function updateReportRow(db: Kysely<Database>, reportId: string, totals: Totals): Promise<void> {
  await sql`
    with runs as (
      select count(*) as total,
             count(*) filter (where status = 'running') as running,
             count(*) filter (where status = 'queued') as queued
      from scan_runs where report_id = ${reportId}
    )
    update reports set
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
  const only = <T>(column: string, list: string[] | null) => (list === null ? sql<T>`true` : sql<T>`${sql.ref(column)} = any(${list}::uuid[])`);
  const profiles = await sql<{
    id: string;
    status: 'active' | 'removed';
    pronet_url: string;
    name: string | null;
    title: string | null;
    headline: string | null;
    contribution: Contribution | null;
  }>`select id, status, pronet_url, name, title, headline, contribution from report_profiles
     where report_id = ${reportId} and ${only('id', ids)}`.execute(db);
  if (profiles.rows.length === 0) return [];

  const latest = await sql<{ profile_id: string; mode: 'full_profile' | 'activity'; status: LatestItem['status']; warning: boolean }>`
    select distinct on (i.profile_id, r.mode) i.profile_id, r.mode, i.status, i.warning
    from scan_items i join scan_runs r on r.id = i.run_id
    where i.report_id = ${reportId} and i.kind = 'person' and ${only('i.profile_id', ids)}
    order by i.profile_id, r.mode, r.created_at desc, i.created_at desc`.execute(db);
  const analyses = await sql<{ profile_id: string; revision: string; outcomes: Record<string, Outcome> | null }>`
    select profile_id, revision,
           (select jsonb_object_agg(f->>'check_id', f->>'outcome') from jsonb_array_elements(findings) f) as outcomes
    from profile_analyses where report_id = ${reportId} and ${only('profile_id', ids)}`.execute(db);
  const coverage = await sql<{ profile_id: string }>`
    select profile_id from activity_coverage where report_id = ${reportId} and ${only('profile_id', ids)}`.execute(db);
  const events = await sql<{ profile_id: string; id: string; revision: string }>`
    select profile_id, id, revision from activity_events
    where report_id = ${reportId} and profile_id is not null and ${only('profile_id', ids)}`.execute(db);

  const items = new Map<string, { full: LatestItem | null; activity: LatestItem | null }>();
  for (const row of latest.rows) {
    const entry = items.get(row.profile_id) ?? { full: null, activity: null };
    entry[row.mode === 'full_profile' ? 'full' : 'activity'] = { status: row.status, warning: row.warning };
    items.set(row.profile_id, entry);
  }
  const analysisOf = new Map(analyses.rows.map((a) => [a.profile_id, { revision: a.revision, outcomes: a.outcomes ?? {} }]));
  const observed = new Set(coverage.rows.map((c) => c.profile_id));
  const eventsOf = new Map<string, Record<string, string>>();
  for (const e of events.rows) {
    const map = eventsOf.get(e.profile_id) ?? {};
    map[e.id] = e.revision;
    eventsOf.set(e.profile_id, map);
  }
  return profiles.rows.map((p) => ({
    stored: p.contribution,
    facts: {
      profileId: p.id,
      active: p.status === 'active',
      person: { pronet_url: p.pronet_url, name: p.name, title: p.title, headline: p.headline },
      analysis: analysisOf.get(p.id) ?? null,
      full: items.get(p.id)?.full ?? null,
      activity: items.get(p.id)?.activity ?? null,
      activityObserved: observed.has(p.id),
      events: eventsOf.get(p.id) ?? {},
    },
  }));
}

async function companyFacts(db: Kysely<Database>, reportId: string) {
  const item = await sql<LatestItem>`
    select i.status, i.warning from scan_items i join scan_runs r on r.id = i.run_id
    where i.report_id = ${reportId} and i.kind = 'company_page'
    order by r.created_at desc, i.created_at desc limit 1`.execute(db);
  const context = await db.selectFrom('company_context').select('report_id').where('report_id', '=', reportId).executeTakeFirst();
  const events = await db.selectFrom('activity_events').select(['id', 'revision']).where('report_id', '=', reportId).where('profile_id', 'is', null).execute();
  return {
    item: item.rows[0] ? { status: item.rows[0].status, warning: item.rows[0].warning } : null,
    observed: context !== undefined,
    events: Object.fromEntries(events.map((e) => [e.id, e.revision])),
  };
}
