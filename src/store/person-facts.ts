/**
 * A person's facts (what their roll-up contribution is made from) and the
 * company page's, as SQL read by the roll-up's writers (the API's refresh,
 * a worker's delta, the fold) and by its readers (begun people counted as
 * they stand: `begunPeopleSql`, `begunCompanySql`).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { CompanyFacts, Contribution, LatestItem, Outcome } from '../domain/analysis-aggregate.js';
import type { ActivityGap } from '../domain/collected.js';
import type { GatheredPerson } from '../domain/finish-facts.js';
import type { GapMoves } from '../domain/progress-state.js';
import { NIL_SUBJECT, type Database } from './schema.js';
import { UNFLATTENED } from './plan-fence.js';

/** A person's facts as `PERSON_FACTS_COLUMNS` (or `BEGUN_PERSON_FACTS_COLUMNS`) reads them. */
export interface PersonFactsRow {
  id: string;
  status: 'active' | 'removed';
  pronet_url: string;
  name: string | null;
  title: string | null;
  headline: string | null;
  contribution: Contribution | null;
  latest: { id: string; mode: 'full_profile' | 'activity'; status: LatestItem['status']; warning: boolean; activity_gap: ActivityGap | null }[] | null;
  analysis: { revision: string; outcomes: Record<string, Outcome> | null; restricted: boolean } | null;
  observed: boolean;
  events: Record<string, string> | null;
  /** Their newest history row's gap moves since the scan before it (`since` null: none or not compared yet); null without a history row. */
  latest_scan: { since: GapMoves | null } | null;
  /** The attachment's version (migration 0035, locks.ts). */
  facts_version: string;
}

/**
 * The columns of a person's facts over an attachment row `p`: its latest
 * item per mode, analysis outcomes, activity coverage, event revisions, newest
 * history row and stored contribution (correlated subqueries on indexed keys, naming only
 * `p`), every one JSON-safe, so that a statement can carry people's rows as
 * JSON (`personFactsJson`, `begunPeopleSql`). `outcomes`: the SQL of the
 * analysis' outcomes over `a` (its row) and `p`.
 */
const personFactsColumns = (outcomes: string) => `
    p.id, p.status, p.pronet_url, p.name, p.title, p.headline, p.facts_version,
      (select pc.contribution from profile_contributions pc where pc.profile_id = p.id) as contribution,
      (select json_agg(x) from (
         select distinct on (i.run_mode) i.id, i.run_mode as mode, i.status, i.warning, i.activity_gap
         from scan_items i
         where i.report_id = p.report_id and i.profile_id = p.id and i.kind = 'person'
         order by i.run_mode, i.run_created_at desc, i.created_at desc) x) as latest,
      (select json_build_object('revision', a.revision,
                                'outcomes', ${outcomes},
                                'restricted', coalesce(jsonb_array_length(a.profile_data -> 'restricted'), 0) > 0)
         from profile_analyses a where a.profile_id = p.id) as analysis,
      exists (select 1 from activity_coverage c where c.profile_id = p.id) as observed,
      (select json_object_agg(e.id, e.revision) from activity_events e where e.profile_id = p.id) as events,
      (select json_build_object('since', case when h.since_previous is null then null
                                              else json_build_object('fixed', h.since_previous -> 'fixed', 'opened', h.since_previous -> 'opened') end)
         from person_scan_history h where h.profile_id = p.id order by h.seq desc limit 1) as latest_scan`;

/** The outcomes of the analysis `a`, expanded from its findings: the definition. */
const OUTCOMES_FROM_FINDINGS = `(select jsonb_object_agg(f->>'check_id', f->>'outcome') from jsonb_array_elements(a.findings) f)`;

/** A person's facts, everything read from the rows that define it (rebuilds, the API's writes, a finish's read). */
const PERSON_FACTS_COLUMNS = personFactsColumns(OUTCOMES_FROM_FINDINGS);

/**
 * A begun person's facts (the fold's read, `unheldPersonFacts`, the readers'
 * `begunPeopleSql`): the same, but the outcomes are taken from the stored
 * contribution when it was made from the same analysis (its `analysis`, the
 * revision, which identifies the findings), and expanded from the findings
 * otherwise. What it trades: expanding the findings was most of what reading
 * a person's facts cost, and a begun person is
 * read by a fold and by every summary read until that fold; in exchange a
 * stored contribution is trusted for its outcomes, which the rebuild
 * comparison checks (test/support/rollups.ts: a rebuild reads
 * `PERSON_FACTS_COLUMNS`).
 */
export const BEGUN_PERSON_FACTS_COLUMNS = personFactsColumns(`coalesce(
          (select pc.contribution->'checks' from profile_contributions pc where pc.profile_id = p.id and pc.contribution->>'analysis' = a.revision),
          ${OUTCOMES_FROM_FINDINGS})`);

/**
 * Each attachment of `ids` (null: all of the report's) with its facts, in one
 * query. One id is compared as a value, not an array: the statement is
 * prepared (prepared-statements.ts), and a plan made for any array cannot
 * know it holds one id (it walked the report's people). Several ids are
 * found by the primary key inside a plan fence (plan-fence.ts), the report
 * compared outside it.
 */
function personFactsSelect(reportId: string, ids: readonly string[] | null, columns: string = PERSON_FACTS_COLUMNS) {
  const people =
    ids === null || ids.length === 1 ? sql`report_profiles p` : sql`(select * from report_profiles where id = any(${[...ids]}::uuid[]) ${UNFLATTENED}) p`;
  const which = ids !== null && ids.length === 1 ? sql` and p.id = ${ids[0]}::uuid` : sql``;
  return sql<PersonFactsRow>`
    select ${sql.raw(columns)}
    from ${people}
    where p.report_id = ${reportId}${which}`;
}

/**
 * SQL text of a JSON array (null for none) of the facts of the people whom
 * pending deltas of the report `reportExpr` (an SQL expression naming no
 * parameter) ask to recompute: begun items' people, whose stored
 * contributions are not yet what their rows say. Readers count them as
 * they stand (`withBegun`).
 */
export function begunPeopleSql(reportExpr: string): string {
  return `(select json_agg(to_jsonb(pf)) from (
      select ${BEGUN_PERSON_FACTS_COLUMNS}
        from report_profiles p
       where p.report_id = ${reportExpr}
         and p.id in (select d.recompute_profile_id from rollup_deltas d where d.report_id = ${reportExpr} and d.recompute_profile_id is not null)) pf)`;
}

export function gathered(p: PersonFactsRow): GatheredPerson {
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
      analysis: p.analysis ? { revision: p.analysis.revision, outcomes: p.analysis.outcomes ?? {}, restricted: p.analysis.restricted } : null,
      full: item('full_profile'),
      activity: item('activity'),
      activityObserved: p.observed,
      activityGap: p.latest?.find((l) => l.mode === 'activity')?.activity_gap ?? null,
      events: p.events ?? {},
      latestScan: p.latest_scan,
    },
  };
}

/** The facts of `ids` (null: all of the report's); `begun`: as a begun person's (`BEGUN_PERSON_FACTS_COLUMNS`). */
export async function personFacts(db: Kysely<Database>, reportId: string, ids: string[] | null, options: { begun?: boolean } = {}): Promise<GatheredPerson[]> {
  const { rows } = await personFactsSelect(reportId, ids, options.begun ? BEGUN_PERSON_FACTS_COLUMNS : PERSON_FACTS_COLUMNS).execute(db);
  return rows.map(gathered);
}

/**
 * One person's facts (`recordPersonDelta`'s `given`) as a JSON column of the
 * caller's statement, read with what else that statement reads; null when
 * the attachment is gone. Read it with `personFromJson`.
 */
export function personFactsJson(reportId: string, profileId: string): RawBuilder<PersonFactsRow | null> {
  return sql<PersonFactsRow | null>`(select to_jsonb(pf) from (${personFactsSelect(reportId, [profileId])}) pf)`;
}

export function personFromJson(row: PersonFactsRow | null): GatheredPerson | null {
  return row === null ? null : gathered(row);
}

/**
 * SQL text of the company page's facts of the report `reportExpr` (an SQL
 * expression naming no parameter and none of the aliases `ci`, `cc`,
 * `ce`) as one JSON object: its latest item, whether
 * its context was observed, and its events' revisions (`CompanyFacts`, its
 * `events` null when there are none: read it with `companyFromJson`).
 */
export function companyFactsSql(reportExpr: string): string {
  return `json_build_object(
      'item', (select json_build_object('status', ci.status, 'warning', ci.warning)
                 from scan_items ci
                where ci.report_id = ${reportExpr} and ci.profile_id is null and ci.kind = 'company_page' and ci.run_mode = 'activity'
                order by ci.run_created_at desc, ci.created_at desc limit 1),
      'observed', exists (select 1 from company_context cc where cc.report_id = ${reportExpr}),
      'events', (select json_object_agg(ce.id, ce.revision) from activity_events ce
                  where ce.report_id = ${reportExpr} and ce.subject = '${NIL_SUBJECT}'))`;
}

export type CompanyFactsJson = Omit<CompanyFacts, 'events'> & { events: Record<string, string> | null };

export function companyFromJson(row: CompanyFactsJson): CompanyFacts {
  return { item: row.item, observed: row.observed, events: row.events ?? {} };
}

export async function companyFacts(db: Kysely<Database>, reportId: string): Promise<CompanyFacts> {
  const { rows } = await sql<{ facts: CompanyFactsJson }>`select ${sql.raw(companyFactsSql('x.id'))} as facts from (select ${reportId}::uuid as id) x`.execute(
    db,
  );
  return companyFromJson(rows[0].facts);
}

/** The company page as `begunCompanySql` reads it: its stored contribution and its facts as they stand. */
export interface BegunCompany {
  stored: Contribution | null;
  facts: CompanyFactsJson;
}

/**
 * SQL text of the company page's stored contribution and facts as they stand
 * (`BegunCompany`) when a pending delta of the report `reportExpr` (an SQL
 * expression naming no parameter) asks to recompute it (its item begun or
 * ended: queue/finish.ts), else null. Readers count it as it stands
 * (`withBegun`).
 */
export function begunCompanySql(reportExpr: string): string {
  return `(select json_build_object('stored', a.company, 'facts', ${companyFactsSql(reportExpr)})
      from report_aggregates a
     where a.report_id = ${reportExpr}
       and exists (select 1 from rollup_deltas d where d.report_id = ${reportExpr} and d.recompute_company))`;
}
