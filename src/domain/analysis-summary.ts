/**
 * The analysis summary (2.9) from a report's maintained totals: availability,
 * usability, coverage, work, freshness, limitations, the optimization summary
 * and the revisions (decisions "Analysis"). Pure: totals in, summary out; the
 * caller supplies the few stored facts totals do not hold (company context,
 * run statuses, capture bounds, read time).
 */
import { CATEGORIES, CHECKS } from './checks/catalog.js';
import { activityGaps, collectionRevision, type Totals, type WorkCounts } from './analysis-aggregate.js';
import type { ActivityGap } from './collected.js';
import { scorePct } from './analysis-records.js';
import { revisionOf } from './revision.js';
import type { Static } from '@sinclair/typebox';
import type { AnalysisSummaryResponse } from './schemas/analysis.js';

export type WorkState = 'not_requested' | 'queued' | 'processing' | 'completed' | 'completed_with_issues' | 'failed' | 'unknown';

export function workState(work: WorkCounts): WorkState {
  const finished = work.succeeded + work.failed + work.inaccessible + work.cancelled;
  const values = Object.values(work);
  if (values.some((v) => v < 0) || work.queued + work.processing + finished !== work.requested || work.warnings > work.succeeded) return 'unknown';
  if (work.requested === 0) return 'not_requested';
  if (work.processing > 0) return 'processing';
  if (work.queued > 0) return 'queued';
  if (work.succeeded === work.requested) return 'completed';
  return work.succeeded > 0 ? 'completed_with_issues' : 'failed';
}

export interface SummaryInput {
  report: { id: string; name: string; archived: boolean; company: { name: string; domain: string; pronet_url: string } };
  links: { workspace_url: string; public_url: string | null };
  totals: Totals;
  /** The company context as the response schema states it (section 2.9 rule 5). */
  observedContext: Static<typeof AnalysisSummaryResponse>['data']['report']['company']['observed_context'];
  runs: { id: string; status: string }[];
  captured: { oldest: Date | null; newest: Date | null };
  now: Date;
}

/** The limitation that says why the latest activity collection of some people observed nothing, per gap (domain/activity-observation.ts). */
const ACTIVITY_GAP_LIMITATIONS: Record<ActivityGap, string> = {
  not_delivered: 'activity_not_delivered',
  unattributable: 'activity_unattributable',
  failed: 'activity_collection_failed',
};

/**
 * Each limitation's message, in the plain words of the pages (docs/web.md,
 * "Glossary"): the API and the web say the same, and the pages show it as is.
 */
export const LIMITATION_MESSAGES: Readonly<Record<string, string>> = {
  incomplete_profile_coverage: 'Some people have no analysis yet: the score and the gaps count the analyzed people only.',
  incomplete_activity_coverage: 'The posts and activity of some people have not been read (yet): their activity checks are unknown, not failures.',
  latest_attempt_failed: 'The latest scan of some people could not read their profile or failed: older results are shown for them where there are any.',
  refresh_in_progress: 'Scans are still queued or running: the figures may change.',
  company_page_not_observed: 'The company page has not been read yet: no company context is shown.',
  activity_not_delivered:
    'The data provider returned no activity for some people. Their activity checks are unknown, or based on an earlier scan: missing data is never read as inactivity.',
  activity_unattributable:
    'The data provider returned posts that could not be matched to some people. Their activity checks are unknown, or based on an earlier scan: missing data is never read as inactivity.',
  activity_collection_failed:
    'Collecting the activity of some people failed. Their activity checks are unknown, or based on an earlier scan: missing data is never read as inactivity.',
  provider_restricted_fields:
    'Some profile fields cannot be observed on public profiles (the network withholds experience and education from public view, and the data provider does not collect skills or featured items); checks on them are unknown, not failures.',
};

/** Good and to-optimize answers over the catalog's checks, and their score: the summary's optimization score (and the report list's). */
export function totalsScore(t: Pick<Totals, 'checks'>): { good: number; optimize: number; score_pct: number | null } {
  let good = 0;
  let optimize = 0;
  for (const check of CHECKS) {
    good += t.checks[check.id]?.good ?? 0;
    optimize += t.checks[check.id]?.optimize ?? 0;
  }
  return { good, optimize, score_pct: scorePct(good, good + optimize) };
}

/**
 * The optimization summary's figures (2.9 `optimization_summary`) of any
 * totals: the report's, or a group's (domain/group-summary.ts). `stamp`
 * adds what a record carries besides its figures (the summary's revisions).
 */
export function optimizationOf<Extra extends object>(t: Totals, stamp: (body: OptimizationFigures) => OptimizationFigures & Extra) {
  const checks = CHECKS.map((check) => {
    const c = t.checks[check.id] ?? { good: 0, optimize: 0, unknown: 0 };
    const answered = c.good + c.optimize;
    return stamp({ id: check.id, key: check.key, good: c.good, optimize: c.optimize, answered, score_pct: scorePct(c.good, answered) });
  });
  const categories = CATEGORIES.map((category) => {
    const own = CHECKS.filter((c) => c.category === category.key).map((c) => t.checks[c.id] ?? { good: 0, optimize: 0, unknown: 0 });
    const good = own.reduce((s, c) => s + c.good, 0);
    const optimize = own.reduce((s, c) => s + c.optimize, 0);
    return stamp({ id: category.id, key: category.key, good, optimize, answered: good + optimize, score_pct: scorePct(good, good + optimize) });
  });
  const { good, optimize } = totalsScore(t);
  const unknown = Object.values(t.checks).reduce((s, c) => s + c.unknown, 0);
  return {
    method: 'existing_profile_check_aggregation' as const,
    cohort_profile_count: t.analyzed,
    counts: { good, optimize, answered: good + optimize, unknown, score_pct: scorePct(good, good + optimize) },
    categories,
    checks,
  };
}

/** One check's or category's figures in the optimization summary. */
export interface OptimizationFigures {
  id: string;
  key: string;
  good: number;
  optimize: number;
  answered: number;
  score_pct: number | null;
}

/** The summary's coverage (2.9 `coverage`) of any totals. */
export function coverageOf(t: Totals, unknownChecks: number) {
  const { good, optimize } = totalsScore(t);
  return {
    person_profiles: t.persons,
    optimization: {
      analyzed_profiles: t.analyzed,
      answered_checks: good + optimize,
      unknown_checks: unknownChecks,
      profiles_without_usable_analysis: t.persons - t.answered_persons,
    },
    activity: {
      observed_person_profiles: t.activity_observed,
      company_page_observed: t.company_observed > 0,
      incomplete_person_profiles: t.persons - t.activity_observed,
    },
  };
}

export function summarize(input: SummaryInput): Static<typeof AnalysisSummaryResponse>['data'] {
  const t = input.totals;
  const work = t.work;
  const state = workState(work);
  const terminal = work.queued + work.processing === 0;
  const hasUsable = t.usable_persons > 0;

  const optimizationSummary = optimizationOf(t, (body) => ({ ...body, revision: revisionOf(body) }));
  const { unknown } = optimizationSummary.counts;

  const reasons: string[] = [];
  if (t.answered_persons < t.persons) reasons.push('incomplete_profile_coverage');
  if (t.activity_observed < t.persons) reasons.push('incomplete_activity_coverage');
  if (work.failed + work.inaccessible > 0) reasons.push('latest_attempt_failed');
  if (!terminal) reasons.push('refresh_in_progress');
  // The latest activity attempt of some people observed nothing: what is shown of their activity is not current.
  for (const [gap, people] of Object.entries(activityGaps(t))) if (people > 0) reasons.push(ACTIVITY_GAP_LIMITATIONS[gap as ActivityGap]);
  const freshnessState = !hasUsable ? 'unknown' : t.fresh === t.persons && reasons.length === 0 ? 'current' : 'stale';
  const limitations = [
    ...reasons,
    ...(t.company_observed === 0 && work.requested > 0 ? ['company_page_not_observed'] : []),
    ...((t.restricted_persons ?? 0) > 0 ? ['provider_restricted_fields'] : []),
  ].map((code) => ({
    code,
    message: LIMITATION_MESSAGES[code],
  }));

  const profilesRevision = collectionRevision(t.profiles);
  const activityRevision = collectionRevision(t.activity);
  const workCounts = { ...work };
  return {
    report: { ...input.report, company: { ...input.report.company, observed_context: input.observedContext } },
    links: input.links,
    availability: !hasUsable ? 'none' : t.answered_persons === t.persons && terminal ? 'available' : 'partial',
    has_usable_results: hasUsable,
    coverage: coverageOf(t, unknown),
    work: {
      state,
      all_requested_work_terminal: terminal,
      all_requested_work_succeeded: work.requested > 0 && work.succeeded === work.requested,
      counts: workCounts,
      scan_run_ids: input.runs.map((r) => r.id),
    },
    freshness: {
      state: freshnessState,
      reasons: hasUsable ? reasons : [],
      oldest_captured_at: input.captured.oldest?.toISOString() ?? null,
      newest_captured_at: input.captured.newest?.toISOString() ?? null,
    },
    evaluated_at: input.now.toISOString(),
    results_revision: revisionOf({
      profiles: profilesRevision,
      activity: activityRevision,
      company: input.observedContext,
      optimization: optimizationSummary,
    }),
    work_revision: revisionOf({ counts: workCounts, runs: input.runs.map((r) => [r.id, r.status]) }),
    collections: { profiles_revision: profilesRevision, activity_revision: activityRevision },
    optimization_summary: optimizationSummary,
    limitations,
  };
}

export type AnalysisSummary = ReturnType<typeof summarize>;
