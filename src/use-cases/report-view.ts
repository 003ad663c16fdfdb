/**
 * The stories behind the web workspace's report pages: the overview (report,
 * analysis summary, scan runs), one person's findings record, activity and
 * evidence images (page reads of report-people-repository.ts, records built
 * by the same domain functions as the API's), live progress, and the public
 * share page's aggregate picture. The people list is report-people.ts. Reads
 * only; each is scoped by workspace, so another workspace's report is "not
 * found".
 */
import { BREAKER_FRESH_MS, readPausedProviders, type PausedProvider } from '../store/brightdata-repository.js';
import type { Clock } from '../clock.js';
import type { ActivityRecord, FindingsRecord } from '../domain/analysis-records.js';
import type { AnalysisSummary } from '../domain/analysis-summary.js';
import type { CursorCodec } from '../domain/cursor.js';
import { notFound } from '../domain/errors.js';
import type { Db } from '../store/database.js';
import { evidenceDetails, type EvidenceDetails } from '../store/evidence-repository.js';
import { readPersonActivity, readReportPeople as readPeopleRows, readReportPerson } from '../store/report-people-repository.js';
import { activityRecord, findingsRecord } from '../domain/analysis-records.js';
import { orderedColumns, personName, reportTeamActions } from './report-people.js';
import { reportCompanyDisplayName } from '../domain/company-name.js';
import type { CommonGap } from '../domain/fix-first.js';
import { weightedScorePct } from '../domain/fix-first.js';
import { isActiveAttachment } from '../store/analysis-read-repository.js';
import { findReport, type ReportRow } from '../store/report-repository.js';
import { listReportRuns, type ScanRunRow } from '../store/scan-repository.js';
import { anyWorkerBeating } from '../queue/heartbeat.js';
import { WORKER_DEAD_SECONDS } from '../scanning/worker.js';
import { readSummary, type AnalysisContext } from './read-analysis.js';
import { requireReport } from './require-report.js';

export interface ViewContext {
  db: Db;
  clock: Clock;
  cursors: CursorCodec;
  workspaceId: string;
  /** The service's public address, which the report's links start with (present.ts reportLinks). */
  publicBaseUrl: string;
  /** Where the pages show an evidence image (the web's own, session-checked address). */
  imageUrl(reportId: string, imageId: string, variant?: 'preview'): string;
}

export type { ReportRow, ScanRunRow, AnalysisSummary, FindingsRecord, ActivityRecord, EvidenceDetails };

const RUNS_SHOWN = 10;

function analysisContext(ctx: ViewContext): AnalysisContext {
  return {
    db: ctx.db,
    clock: ctx.clock,
    cursors: ctx.cursors,
    workspaceId: ctx.workspaceId,
    publicBaseUrl: ctx.publicBaseUrl,
    imageUrl: ctx.imageUrl,
    // The pages show evidence at the web's own addresses, not after a base URL: records are built from their findings.
    evidenceBase: null,
  };
}

/** The person is on the report (an active attachment) in this workspace; else 404, like the person's page. */
export async function readAttachment(ctx: Pick<ViewContext, 'db' | 'workspaceId'>, reportId: string, profileId: string): Promise<void> {
  await requireReport(ctx.db, ctx.workspaceId, reportId);
  if (!(await isActiveAttachment(ctx.db, reportId, profileId))) throw notFound('person');
}

export interface ReportOverview {
  report: ReportRow;
  summary: AnalysisSummary;
  runs: ScanRunRow[];
  /** Why collection is paused (a provider's circuit breaker is open), or null while it runs. */
  collectionPaused: string | null;
  /** Unfinished runs that nothing works on now (`scansWaiting`). */
  waiting: boolean;
}

function unfinished(runs: ScanRunRow[]): boolean {
  return runs.some((r) => r.status === 'queued' || r.status === 'running');
}

/**
 * Whether the unfinished scans among `runs` wait rather than run: no scan
 * worker has beaten for as long as it takes to be taken for dead
 * (scanning/worker.ts). A worker beats every few seconds while it can reach
 * the database; one that waits for the database (a restart, a failover, a
 * network cut on its side), a hung one, or none at all, does not. A run's
 * stored status says `running` from its first claim to its last item: the
 * pages show it as waiting then, so that they never claim scans run when
 * nothing works on them.
 */
async function scansWaiting(db: Db, runs: ScanRunRow[]): Promise<boolean> {
  return unfinished(runs) && !(await anyWorkerBeating(db, WORKER_DEAD_SECONDS));
}

export async function readReportOverview(ctx: ViewContext, reportId: string): Promise<ReportOverview> {
  const report = await requireReport(ctx.db, ctx.workspaceId, reportId);
  const [summary, runs, paused] = await Promise.all([
    readSummary(analysisContext(ctx), reportId),
    listReportRuns(ctx.db, ctx.workspaceId, reportId, RUNS_SHOWN),
    readPausedProviders(ctx.db, BREAKER_FRESH_MS),
  ]);
  return { report, summary, runs, collectionPaused: collectionPause(paused), waiting: await scansWaiting(ctx.db, runs) };
}

/** The report page's line about a paused collection: which state, why (fixed texts) and since when. */
export function collectionPause(paused: PausedProvider[]): string | null {
  const first = paused[0];
  if (!first) return null;
  const why = first.reason ? ` (${first.reason})` : '';
  const state = first.state === 'half_open' ? 'testing whether it answers again' : 'waiting before it tries again';
  return `Collection is paused: the data provider is not answering${why} since ${first.since.toISOString().slice(11, 16)} UTC, ${state}. Waiting people lose nothing and resume on their own.`;
}

export interface PersonView {
  report: ReportRow;
  record: FindingsRecord;
  /** The supplied name, else the observed one, else the profile's handle (docs/web.md, "Names"). */
  displayName: string;
  /** The other columns the web's CSV import carried, by header. */
  columns: Readonly<Record<string, string>>;
  activity: ActivityRecord[];
  activityTruncated: boolean;
  /** Each evidence image of the record (where it comes from, its section and sizes), by its address in the record (its `url`). */
  evidence: Record<string, EvidenceDetails>;
  /** The company's name in advice (domain/company-name.ts). */
  companyDisplayName: string;
  /** The report's team actions: left out of this person's own fix-first list. */
  teamActions: CommonGap[];
  /** The web's score by impact weight (domain/fix-first.ts); null without an analysis. */
  weightedScorePct: number | null;
  /** Whether their latest activity scan read their activity ('observed', even when empty), could not ('gap'), or none has ended ('not_yet'). */
  activityRead: 'observed' | 'gap' | 'not_yet';
}

const ACTIVITY_SHOWN = 200;

/**
 * One person's page: their findings record (built from the stored analysis
 * by the same findingsRecord() the API's fallback uses, with the page's own
 * image addresses), their newest activity and their evidence images. A page
 * read: no cursor, no response budget.
 */
export async function readPerson(ctx: ViewContext, reportId: string, profileId: string): Promise<PersonView> {
  const report = await requireReport(ctx.db, ctx.workspaceId, reportId);
  const person = await readReportPerson(ctx.db, ctx.workspaceId, reportId, profileId);
  if (!person) throw notFound('person');
  const record = findingsRecord(
    {
      profileId,
      person: { pronet_url: person.pronet_url, name: person.name, title: person.title, headline: person.headline },
      analysis: person.analysis,
      full: person.full,
    },
    (imageId, variant) => ctx.imageUrl(reportId, imageId, variant),
  );
  const events = await readPersonActivity(ctx.db, reportId, profileId, ACTIVITY_SHOWN + 1);
  const activity = events.slice(0, ACTIVITY_SHOWN).map((e) => activityRecord({ ...e, occurred_at: e.occurred_at ? e.occurred_at.toISOString() : null }));
  // Not in the record: the contract shows no field of an evidence image but its url (2.x "evidence.images[]").
  const evidence = Object.fromEntries((await evidenceDetails(ctx.db, reportId, profileId)).map((image) => [ctx.imageUrl(reportId, image.id), image]));
  const [displayName] = personName(person);
  const everyone = (await readPeopleRows(ctx.db, ctx.workspaceId, reportId)) ?? [];
  const outcomes = (person.analysis?.findings ?? []).map((f) => ({ key: f.check_key, outcome: f.outcome }));
  return {
    report,
    record,
    displayName,
    columns: orderedColumns(person.imported_columns),
    activity,
    activityTruncated: events.length > ACTIVITY_SHOWN,
    evidence,
    companyDisplayName: reportCompanyDisplayName(report),
    teamActions: reportTeamActions(everyone.map((r) => r.analysis?.outcomes ?? null)),
    weightedScorePct: person.analysis ? weightedScorePct(outcomes) : null,
    activityRead: activityRead(everyone.find((r) => r.profile_id === profileId)?.contribution ?? null),
  };
}

function activityRead(contribution: { activity_observed: number; activity_gap?: string } | null): PersonView['activityRead'] {
  if (contribution?.activity_observed === 1) return 'observed';
  return contribution?.activity_gap ? 'gap' : 'not_yet';
}

export interface Progress {
  runs: ScanRunRow[];
  done: boolean;
  /** Unfinished runs that nothing works on now (`scansWaiting`). */
  waiting: boolean;
  /** Why collection is paused, or null while it runs (as the overview's). */
  collectionPaused: string | null;
}

export async function readProgress(ctx: ViewContext, reportId: string): Promise<Progress> {
  await requireReport(ctx.db, ctx.workspaceId, reportId);
  const [runs, paused] = await Promise.all([listReportRuns(ctx.db, ctx.workspaceId, reportId, RUNS_SHOWN), readPausedProviders(ctx.db, BREAKER_FRESH_MS)]);
  return { runs, done: !unfinished(runs), waiting: await scansWaiting(ctx.db, runs), collectionPaused: collectionPause(paused) };
}

/**
 * The public share page (contract 2.4 `public_url`, 5.5): the aggregate
 * picture only. What it returns holds no person, profile URL, finding of a
 * person, evidence or id: only report and company names, counts, score,
 * per-category scores and freshness.
 */
export interface PublicReportView {
  name: string;
  companyName: string;
  personCount: number;
  analyzedCount: number;
  scorePct: number | null;
  counts: { good: number; optimize: number; unknown: number; answered: number };
  categories: { key: string; good: number; optimize: number; answered: number; score_pct: number | null }[];
  freshness: AnalysisSummary['freshness'];
  /** Scans of the report are still queued or running. */
  scanning: boolean;
}

export async function readPublicReport(ctx: Omit<ViewContext, 'workspaceId' | 'imageUrl'>, token: string): Promise<PublicReportView> {
  const report = await findReport(ctx.db, { publicToken: token });
  if (!report || report.archived || report.visibility !== 'public') throw notFound('report');
  const summary = await readSummary(analysisContext({ ...ctx, workspaceId: report.workspace_id, imageUrl: () => '' }), report.id);
  const o = summary.optimization_summary;
  return {
    name: report.name,
    companyName: report.company_name,
    personCount: summary.coverage.person_profiles,
    analyzedCount: summary.coverage.optimization.analyzed_profiles,
    scorePct: o.counts.score_pct,
    counts: { good: o.counts.good, optimize: o.counts.optimize, unknown: o.counts.unknown, answered: o.counts.answered },
    categories: o.categories.map((c) => ({ key: c.key, good: c.good, optimize: c.optimize, answered: c.answered, score_pct: c.score_pct })),
    freshness: summary.freshness,
    scanning: !summary.work.all_requested_work_terminal,
  };
}
