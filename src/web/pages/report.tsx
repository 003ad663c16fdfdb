/**
 * A report's page (its `workspace_url`), in the order a team reads it: the
 * summary, the team's most common gaps (each one click from the people who
 * have it) beside the people with status, score and what each should fix
 * first (sortable, filterable by check outcome), then scores by category
 * (worst first), the scan runs with live progress, and the report's actions.
 */
import { can } from '../../domain/permissions.js';
import { CHECKS } from '../../domain/checks/catalog.js';
import type { AnalysisSummary } from '../../domain/analysis-summary.js';
import type { CommonGap } from '../../domain/fix-first.js';
import { groupValue, type PeopleSelection, type PeopleSort, type ReportPerson } from '../../use-cases/report-people.js';
import { CategoryChart } from '../components/category-chart.js';
import { label, OUTCOME, PERSON_STATUS, pct } from '../components/labels.js';
import { explainReport, STATUS_FILTER_WORDS, type PeopleStates } from '../components/plain-words.js';
import type { GroupFigures } from '../../domain/group-summary.js';
import { GroupScope, TroubleList } from '../components/report-scope.js';
import { ActionButton, Breadcrumbs, CopyField, CsrfField, Layout, Notice, type Viewer, When } from '../components/layout.js';
import { RunList, runFinished, SCANS_UNKNOWN, scansStatusText, type RunView } from '../components/runs.js';
import { paths } from '../paths.js';
import { ImportedColumns } from '../components/people-form.js';
import { fillCompanyPlaceholders } from '../../domain/recommendation-text.js';
import { TEAM_ACTION_SHARE } from '../../domain/fix-first.js';
import type { CsvSeparator } from '../../use-cases/export-preferences.js';
import type { RefreshSchedule } from '../../use-cases/refresh-schedule.js';
import { CADENCE_TEXT, CADENCES } from '../../domain/refresh-schedule.js';
import type { ReportProgress } from '../../use-cases/progress.js';
import { ReportProgressSection } from '../components/progress.js';

/** The table's search, filters and sort (use-cases/report-people.ts) and its page. */
export interface PeopleQuery extends PeopleSelection {
  page: number;
}

export interface ReportPageProps {
  csrf: string;
  viewer: Viewer;
  /** Private links of the report that still open (0 for roles that may not see them). */
  liveLinks: number;
  report: {
    id: string;
    name: string;
    company_name: string;
    supplied_domain: string;
    pronet_company_url: string;
    archived: boolean;
    public_url: string | null;
    created_at: Date;
  };
  summary: AnalysisSummary;
  /** The figures of the group the table is filtered on (the page's figures then count its people only); null without a group filter. */
  groupFigures?: GroupFigures | null;
  gaps: CommonGap[];
  /** Checks most of the team should optimize (domain/fix-first.ts teamActions): listed once here, left out of each person's list. */
  teamActions: CommonGap[];
  /** The company's name in advice (domain/company-name.ts). */
  companyDisplayName: string;
  /** The viewer's CSV separator. */
  csvSeparator: CsvSeparator;
  runs: RunView[];
  people: ReportPerson[];
  /** How many people are in each state (all of them, whatever the filter). */
  states: PeopleStates;
  /** The supplied titles on the report, for the title filter. */
  titles: string[];
  /** The columns a CSV import carried and their values, for the group filter. */
  columns: Array<{ column: string; values: string[] }>;
  totalPeople: number;
  matchingPeople: number;
  query: PeopleQuery;
  pageCount: number;
  live: boolean;
  /** Unfinished runs that nothing works on now (no scan worker beating). */
  waiting: boolean;
  notice?: string;
  /** Why collection is paused (the provider is down), when it is. */
  collectionPaused?: string | null;
  /** The report was shared by the request that led here: its link is shown to copy. */
  sharedNow?: boolean;
  /** Its refresh schedule (use-cases/refresh-schedule.ts). */
  schedule: RefreshSchedule;
  /** What changed since the previous scan (components/progress.tsx). */
  progress?: ReportProgress;
}

export function peopleQueryString(q: Partial<PeopleQuery>, page = q.page ?? 1): string {
  const params = new URLSearchParams();
  if (q.search) params.set('q', q.search);
  if (q.title) params.set('title', q.title);
  if (q.group) params.set('group', q.group);
  if (q.check) params.set('check', q.check);
  if (q.outcome) params.set('outcome', q.outcome);
  if (q.status) params.set('status', q.status);
  if (q.sort && q.sort !== 'name') params.set('sort', q.sort);
  if (q.descending) params.set('dir', 'desc');
  if (page > 1) params.set('page', String(page));
  const text = params.toString();
  return text ? `?${text}` : '';
}

const COLUMNS: { sort: PeopleSort; label: string; numeric: boolean; narrow: boolean }[] = [
  { sort: 'name', label: 'Person', numeric: false, narrow: true },
  { sort: 'status', label: 'Status', numeric: false, narrow: true },
  { sort: 'score', label: 'Weighted score', numeric: true, narrow: true },
  { sort: 'good', label: 'Good', numeric: true, narrow: false },
  { sort: 'optimize', label: 'Optimize', numeric: true, narrow: false },
  { sort: 'unknown', label: 'Unknown', numeric: true, narrow: false },
];

/** A column header that sorts by its column: ascending first, descending when it already sorts ascending. */
function SortHeader(props: { column: (typeof COLUMNS)[number]; query: PeopleQuery; reportId: string }) {
  const { column, query } = props;
  const active = query.sort === column.sort;
  const next = { ...query, sort: column.sort, descending: active && !query.descending };
  const classes = [column.numeric ? 'num' : '', column.narrow ? '' : 'hide-narrow'].filter(Boolean).join(' ');
  return (
    <th scope="col" class={classes || undefined} aria-sort={active ? (query.descending ? 'descending' : 'ascending') : undefined}>
      <a href={`${paths.report(props.reportId)}${peopleQueryString(next, 1)}#people-heading`}>
        {column.label}
        {active ? <span aria-hidden="true">{query.descending ? ' ↓' : ' ↑'}</span> : null}
      </a>
    </th>
  );
}

export function ReportPage(props: ReportPageProps) {
  const { report, summary, query } = props;
  // With a group filter, the figures are the group's (same arithmetic, its people only).
  const o = props.groupFigures ? props.groupFigures.optimization : summary.optimization_summary;
  const coverage = props.groupFigures ? props.groupFigures.coverage : summary.coverage;
  const explained = explainReport(props.states);
  const filtered = query.search !== '' || query.title !== '' || query.group !== '' || query.status !== '' || (query.check !== '' && query.outcome !== '');
  return (
    <Layout title={report.name} viewer={props.viewer} csrf={props.csrf} current="reports" scripts={[...(props.live ? ['live.js'] : []), 'copy.js']}>
      <Breadcrumbs trail={[{ href: paths.reports, label: 'Reports' }]} />
      <div class="toolbar">
        <h1>{report.name}</h1>
        {report.archived ? <span class="badge archived">Archived</span> : null}
        {report.public_url ? <span class="badge public">Shared</span> : null}
      </div>
      <p class="muted">
        {report.company_name} · {report.supplied_domain} ·{' '}
        <a href={report.pronet_company_url} rel="noopener noreferrer">
          company page
        </a>{' '}
        · created <When at={report.created_at} />
      </p>
      {props.notice ? (
        <Notice kind="ok" transient={props.live}>
          {props.notice}
          {props.sharedNow && report.public_url ? <CopyField id="public-link-new" label="The public link" value={report.public_url} /> : null}
        </Notice>
      ) : null}

      <div id="report-content">
        <section aria-labelledby="summary-heading" id="summary" data-live-region>
          <h2 id="summary-heading" class="visually-hidden">
            Summary
          </h2>
          {props.groupFigures ? <GroupScope reportId={report.id} group={query.group} figures={props.groupFigures} totalPeople={props.totalPeople} /> : null}
          <div class="summary">
            <div class="card">
              <p class="stat-label">Score</p>
              <p class="score">
                {pct(o.counts.score_pct)} <small>good of answered checks</small>
              </p>
              <p class="muted">
                {o.counts.good} good · {o.counts.optimize} to optimize · {o.counts.unknown} unknown
              </p>
            </div>
            <div class="card">
              <p class="stat-label">Status</p>
              <p>
                <strong id="work-state">{explained.title}</strong>
              </p>
              <p class="muted">{explained.summary}</p>
            </div>
            <div class="card">
              <p class="stat-label">Data</p>
              {summary.freshness.newest_captured_at ? (
                <>
                  <p>
                    Newest <When at={summary.freshness.newest_captured_at} />
                  </p>
                  {summary.freshness.oldest_captured_at && summary.freshness.oldest_captured_at !== summary.freshness.newest_captured_at ? (
                    <p class="muted">
                      Oldest <When at={summary.freshness.oldest_captured_at} />
                    </p>
                  ) : null}
                </>
              ) : (
                <p class="muted">Nothing observed yet.</p>
              )}
            </div>
            <div class="card">
              <p class="stat-label">Coverage</p>
              <p>
                <strong>
                  {coverage.optimization.analyzed_profiles} of {coverage.person_profiles}
                </strong>{' '}
                profiles analyzed
              </p>
              <p class="muted">
                Posts and activity read for {coverage.activity.observed_person_profiles} of {coverage.person_profiles}
                {props.groupFigures ? '' : `; company page ${coverage.activity.company_page_observed ? 'read' : 'not read yet'}`}
              </p>
            </div>
          </div>
          <TroubleList
            reportId={report.id}
            states={props.states}
            group={query.group}
            heading={explained.advice.length > 0 ? `${explained.summary} What to do:` : 'Good to know:'}
            place="top"
          />
        </section>

        <div class="overview">
          <div class="gaps-column">
            <section aria-labelledby="gaps-heading" class={props.teamActions.length > 0 ? 'gaps has-team' : 'gaps'} id="gaps" data-live-region>
              <h2 id="gaps-heading">Most common gaps</h2>
              {props.gaps.length === 0 ? (
                <p class="muted">{coverage.optimization.analyzed_profiles === 0 ? 'Nobody is analyzed yet.' : 'Nobody has anything to optimize.'}</p>
              ) : (
                <ol class="gap-list">
                  {props.gaps.map((gap) => (
                    <li>
                      <a
                        href={`${paths.report(report.id)}${peopleQueryString({ group: query.group, check: gap.check.key, outcome: 'optimize' })}#people-heading`}
                      >
                        {gap.check.title}
                      </a>
                      <span class="gap-share">
                        {gap.people} of {coverage.optimization.analyzed_profiles} people · {Math.round(gap.share * 100)} %
                      </span>
                      <meter min={0} max={1} value={gap.share} aria-hidden="true" />
                    </li>
                  ))}
                </ol>
              )}
            </section>
            {props.teamActions.length > 0 ? (
              <section aria-labelledby="team-heading" id="team-actions" class="team-actions">
                <h2 id="team-heading">Team actions</h2>
                <p class="hint">
                  At least {Math.round(TEAM_ACTION_SHARE * 100)} % of the analyzed people should fix these: do them together, once. They are left out of each
                  person's own fix-first list.
                </p>
                <ol class="fix-list">
                  {props.teamActions.map((gap) => (
                    <li>
                      <strong>{gap.check.title}</strong>{' '}
                      <span class="gap-share">
                        {gap.people} of {summary.coverage.optimization.analyzed_profiles} people · {Math.round(gap.share * 100)} %
                      </span>
                      <span class="sub">{fillCompanyPlaceholders(gap.check.recommendation, props.companyDisplayName)}</span>
                    </li>
                  ))}
                </ol>
              </section>
            ) : null}
          </div>
          <section aria-labelledby="people-heading">
            <div class="toolbar">
              <h2 id="people-heading">People</h2>
              <span class="spacer" />
              <a class="button secondary no-print" href={`${paths.reportCsv(report.id)}${peopleQueryString(query, 1)}`} download>
                {filtered ? 'Download these people (CSV)' : 'Download CSV'}
              </a>
              <a class="button secondary no-print" href={`${paths.reportXlsx(report.id)}${peopleQueryString(query, 1)}`} download>
                Excel (.xlsx)
              </a>
              {!report.archived && can(props.viewer.role, 'add_people') ? (
                <a class="button secondary" href={paths.reportImport(report.id)}>
                  Add people
                </a>
              ) : null}
            </div>
            <form method="post" action={paths.reportCsvSeparator(report.id)} class="inline-form no-print" aria-label="CSV separator">
              <CsrfField token={props.csrf} />
              <label for="separator">CSV separator</label>{' '}
              <select id="separator" name="separator">
                <option value="comma" selected={props.csvSeparator === 'comma'}>
                  Comma, decimal point (1.5)
                </option>
                <option value="semicolon" selected={props.csvSeparator === 'semicolon'}>
                  Semicolon, decimal comma (1,5)
                </option>
              </select>{' '}
              <button type="submit" class="secondary">
                Save
              </button>
            </form>
            <form method="get" action={`${paths.report(report.id)}#people-heading`} class="filters" aria-label="Search and filter people">
              <div>
                <label for="q">Search</label>
                <input id="q" name="q" type="search" value={query.search} placeholder="Name, title or headline" />
              </div>
              {props.titles.length > 0 ? (
                <div>
                  <label for="title">Title</label>
                  <select id="title" name="title">
                    <option value="">Any title</option>
                    {props.titles.map((t) => (
                      <option value={t} selected={t === query.title}>
                        {t}
                      </option>
                    ))}
                  </select>
                </div>
              ) : null}
              {props.columns.length > 0 ? (
                <div>
                  <label for="group">Group</label>
                  <select id="group" name="group">
                    <option value="">Everyone</option>
                    {props.columns.map(({ column, values }) => (
                      <optgroup label={column}>
                        {values.map((v) => (
                          <option value={groupValue(column, v)} selected={groupValue(column, v) === query.group}>
                            {v}
                          </option>
                        ))}
                      </optgroup>
                    ))}
                  </select>{' '}
                  <a href={paths.reportCompare(report.id)} class="no-print">
                    Compare groups
                  </a>
                </div>
              ) : null}
              <div>
                <label for="status">Status</label>
                <select id="status" name="status">
                  <option value="">Any status</option>
                  {Object.entries(STATUS_FILTER_WORDS).map(([value, words]) => (
                    <option value={value} selected={value === query.status}>
                      {words.label}
                    </option>
                  ))}
                </select>
              </div>
              <div>
                <label for="check">Check</label>
                <select id="check" name="check">
                  <option value="">Any check</option>
                  {CHECKS.map((c) => (
                    <option value={c.key} selected={c.key === query.check}>
                      {c.title}
                    </option>
                  ))}
                </select>
              </div>
              <div>
                <label for="outcome">Outcome</label>
                <select id="outcome" name="outcome">
                  <option value="">Any outcome</option>
                  {(['good', 'optimize', 'unknown'] as const).map((v) => (
                    <option value={v} selected={v === query.outcome}>
                      {OUTCOME[v]}
                    </option>
                  ))}
                </select>
              </div>
              {query.sort !== 'name' ? <input type="hidden" name="sort" value={query.sort} /> : null}
              {query.descending ? <input type="hidden" name="dir" value="desc" /> : null}
              <button type="submit" class="secondary">
                Apply
              </button>
              {filtered ? <a href={`${paths.report(report.id)}#people-heading`}>Clear</a> : null}
            </form>
            <div id="people-list" data-live-region>
              <p class="muted">{filtered ? `${props.matchingPeople} of ${props.totalPeople} people match.` : `${props.totalPeople} people.`}</p>
              {query.status !== '' ? (
                <p class="hint" id="status-explained">
                  {STATUS_FILTER_WORDS[query.status].explanation}
                </p>
              ) : null}
              {props.people.length === 0 ? (
                <p class="card">{props.totalPeople === 0 ? 'Nobody is on this report yet.' : 'Nobody matches this filter.'}</p>
              ) : (
                <div class="table-wrap">
                  <table>
                    <caption class="visually-hidden">People on this report</caption>
                    <thead>
                      <tr>
                        {COLUMNS.map((column) => (
                          <SortHeader column={column} query={query} reportId={report.id} />
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      {props.people.map((p) => (
                        <tr>
                          <td>
                            <a href={paths.person(report.id, p.profile_id)}>{p.display_name}</a>
                            {p.name_source === 'observed' ? <span class="visually-hidden"> (name from the profile)</span> : null}
                            {p.title || p.headline ? <span class="sub">{[p.title, p.headline].filter(Boolean).join(' · ')}</span> : null}
                            <ImportedColumns columns={p.columns} />
                            {p.fix_first.length > 0 ? <span class="sub fix-first">Fix first: {p.fix_first.map((c) => c.title).join(', ')}</span> : null}
                          </td>
                          <td>{label(PERSON_STATUS, p.status)}</td>
                          <td class="num">{pct(p.weighted_score_pct)}</td>
                          <td class="num hide-narrow">{p.good}</td>
                          <td class="num hide-narrow">{p.optimize}</td>
                          <td class="num hide-narrow">{p.unknown}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              {props.pageCount > 1 ? (
                <nav class="pager" aria-label="People pages">
                  {query.page > 1 ? <a href={`${paths.report(report.id)}${peopleQueryString(query, query.page - 1)}`}>Previous</a> : null}
                  <span>
                    Page {query.page} of {props.pageCount}
                  </span>
                  {query.page < props.pageCount ? <a href={`${paths.report(report.id)}${peopleQueryString(query, query.page + 1)}`}>Next</a> : null}
                </nav>
              ) : null}
            </div>
          </section>
        </div>

        <TroubleList
          reportId={report.id}
          states={props.states}
          group={query.group}
          heading={explained.advice.length > 0 ? `${explained.summary} What to do:` : 'Good to know:'}
          place="below"
        />

        {props.progress ? <ReportProgressSection progress={props.progress} reportPath={paths.report(report.id)} /> : null}

        <section aria-labelledby="chart-heading" id="chart" class="no-print" data-live-region>
          <h2 id="chart-heading">Scores by category</h2>
          {o.counts.answered === 0 ? <p class="muted">No answered checks yet.</p> : <CategoryChart id="categories" categories={o.categories} />}
        </section>

        {summary.limitations.length > 0 ? (
          <section aria-labelledby="limits-heading">
            <h2 id="limits-heading">About these results</h2>
            <ul class="notice info">
              {summary.limitations.map((l) => (
                <li>{l.message}</li>
              ))}
            </ul>
          </section>
        ) : null}

        <section
          class="no-print"
          aria-labelledby="runs-heading"
          data-progress-url={props.live ? paths.reportProgress(report.id) : undefined}
          data-finished={props.live ? String(props.runs.reduce((sum, run) => sum + runFinished(run), 0)) : undefined}
          data-unknown-text={props.live ? SCANS_UNKNOWN : undefined}
        >
          <h2 id="runs-heading">Scans</h2>
          {props.collectionPaused && !props.live ? (
            <p class="notice" id="collection-paused" role="status">
              {props.collectionPaused}
            </p>
          ) : null}
          <p id="live-status" role="status" aria-live="polite" class="muted">
            {props.live ? scansStatusText(props.waiting, props.collectionPaused ?? null) : ''}
          </p>
          <RunList runs={props.runs} waiting={props.waiting} paused={props.collectionPaused != null} />
        </section>
      </div>

      {!report.archived && can(props.viewer.role, 'refresh_report') && props.totalPeople > 0 ? (
        <section aria-labelledby="refresh-heading" class="card no-print">
          <h2 id="refresh-heading">Scan again</h2>
          {props.schedule.last_outcome && props.schedule.last_outcome !== 'queued' ? (
            <div class="notice attention" role="note">
              {props.schedule.last_note} (<When at={props.schedule.last_run_at} />)
            </div>
          ) : null}
          <p class="hint">
            After people edited their profiles: every person is scanned again. Each costs one scan of the monthly allowance; the results above stay shown until
            the new scans finish.
          </p>
          <div class="toolbar">
            <ActionButton
              action={paths.reportRefresh(report.id)}
              csrf={props.csrf}
              label="Scan again"
              fields={{ people: 'all' }}
              ariaLabel={`Scan again: all ${props.totalPeople} people`}
            />
            {props.states.failed + props.states.inaccessible > 0 ? (
              <ActionButton
                action={paths.reportRefresh(report.id)}
                csrf={props.csrf}
                label={`Try these again (${props.states.failed + props.states.inaccessible})`}
                fields={{ people: 'unsuccessful' }}
                ariaLabel={`Try these again (${props.states.failed + props.states.inaccessible}): the people who failed or were inaccessible`}
              />
            ) : null}
          </div>
          <form method="post" action={paths.reportRefreshSchedule(report.id)} class="inline-form" aria-label="Refresh schedule">
            <CsrfField token={props.csrf} />
            <label for="cadence">Scan again automatically</label>{' '}
            <select id="cadence" name="cadence">
              {CADENCES.map((c) => (
                <option value={c} selected={props.schedule.cadence === c}>
                  {CADENCE_TEXT[c]}
                </option>
              ))}
            </select>{' '}
            <button type="submit" class="secondary">
              Save
            </button>
          </form>
          {props.schedule.next_due_at ? (
            <p class="hint">
              Next scheduled refresh: <When at={props.schedule.next_due_at} />. Scheduled refreshes run after new reports and imports.
            </p>
          ) : null}
        </section>
      ) : null}

      <section aria-labelledby="actions-heading" class="card">
        <h2 id="actions-heading">Sharing and archive</h2>
        {can(props.viewer.role, 'share_report') ? (
          <form method="post" action={paths.reportCompanyName(report.id)} class="stack" id="company-name-form">
            <CsrfField token={props.csrf} />
            <label for="display_company_name">The company's name in advice</label>
            <input id="display_company_name" name="display_company_name" value={props.companyDisplayName} maxLength={200} />
            <p class="hint">
              The name each person's advice uses, e.g. "Name {props.companyDisplayName} in your headline". Empty: {report.company_name} without its legal form.
            </p>
            <button type="submit" class="secondary">
              Save the name
            </button>
          </form>
        ) : null}
        {can(props.viewer.role, 'share_report') ? (
          <p>
            <a href={paths.reportLinks(report.id)}>Private links for each person</a>: each opens one person's own page (score, what to fix first, evidence)
            without signing in.{props.liveLinks > 0 ? ` ${props.liveLinks} active.` : ''}
          </p>
        ) : null}
        {report.public_url ? (
          <>
            <p>Anyone with this link sees the report's aggregate picture (no names, profiles or findings of a person).</p>
            <CopyField id="public-link" label="Public link" value={report.public_url} />
            <p>
              <a href={report.public_url}>Open the public page</a>
            </p>
          </>
        ) : (
          <p class="muted">Not shared. Sharing creates a link that shows only the aggregate picture: score, categories and counts.</p>
        )}
        <div class="toolbar">
          {can(props.viewer.role, 'share_report') ? (
            <ActionButton
              action={paths.reportShare(report.id)}
              csrf={props.csrf}
              fields={{ public: report.public_url ? '0' : '1' }}
              label={report.public_url ? 'Stop sharing' : 'Share a public link'}
            />
          ) : null}
          {can(props.viewer.role, 'archive_report') ? (
            <ActionButton
              action={paths.reportArchive(report.id)}
              csrf={props.csrf}
              fields={{ archived: report.archived ? '0' : '1' }}
              label={report.archived ? 'Unarchive' : 'Archive'}
              danger={!report.archived}
            />
          ) : null}
        </div>
        {!report.archived && can(props.viewer.role, 'archive_report') ? (
          <p class="hint">Archiving hides the report from the list, cancels unfinished scans and refuses new people; nothing is deleted.</p>
        ) : null}
      </section>
    </Layout>
  );
}
