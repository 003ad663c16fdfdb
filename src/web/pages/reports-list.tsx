/** The report list: newest first, filter by company domain, archived on request, paginated. */
import { can } from '../../domain/permissions.js';
import { Layout, Notice, When, type Viewer } from '../components/layout.js';
import { ANALYSIS_STATE, label, pct } from '../components/labels.js';
import { paths } from '../paths.js';

export interface ReportListItem {
  id: string;
  name: string;
  company_name: string;
  supplied_domain: string;
  root_domain: string | null;
  archived: boolean;
  visibility: 'private' | 'public';
  analysis_state: string;
  profile_count: number;
  analyzed_profile_count: number;
  created_at: Date;
}

export interface ReportListProps {
  csrf: string;
  viewer: Viewer;
  reports: ReportListItem[];
  /** Each report's score (null before any answer), by id. */
  scores: ReadonlyMap<string, number | null>;
  domain: string;
  includeArchived: boolean;
  nextUrl: string | null;
  isFirstPage: boolean;
  error?: string;
}

export function ReportsListPage(props: ReportListProps) {
  const filtered = props.domain !== '' || props.includeArchived;
  return (
    <Layout title="Reports" viewer={props.viewer} csrf={props.csrf} current="reports">
      <div class="toolbar">
        <h1>Reports</h1>
        <span class="spacer" />
        {can(props.viewer.role, 'add_people') ? (
          <a class="button" href={paths.newReport}>
            New report
          </a>
        ) : null}
      </div>
      <form method="get" action={paths.reports} class="filters" role="search" aria-label="Filter reports">
        <div>
          <label for="domain">Company domain</label>
          <input id="domain" name="domain" type="search" maxLength={2048} placeholder="acme.com" value={props.domain} />
        </div>
        <label class="check">
          <input type="checkbox" name="archived" value="1" checked={props.includeArchived} /> Include archived
        </label>
        <button type="submit" class="secondary">
          Filter
        </button>
        {filtered ? <a href={paths.reports}>Clear filters</a> : null}
      </form>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      {props.reports.length === 0 ? (
        <p class="card">
          {filtered ? 'No report matches these filters.' : 'No reports yet. '}
          {filtered || !can(props.viewer.role, 'add_people') ? null : <a href={paths.newReport}>Create the first one</a>}
        </p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Reports, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Report</th>
                <th scope="col">Company</th>
                <th scope="col" class="num">
                  Score
                </th>
                <th scope="col" class="num">
                  People
                </th>
                <th scope="col">State</th>
                <th scope="col" class="hide-narrow">
                  Created
                </th>
              </tr>
            </thead>
            <tbody>
              {props.reports.map((r) => (
                <tr>
                  <td>
                    <a href={paths.report(r.id)}>{r.name}</a> {r.archived ? <span class="badge archived">Archived</span> : null}{' '}
                    {r.visibility === 'public' ? <span class="badge public">Shared</span> : null}
                  </td>
                  <td>
                    {r.company_name}
                    <span class="sub">{r.root_domain ?? r.supplied_domain}</span>
                  </td>
                  <td class="num">{pct(props.scores.get(r.id))}</td>
                  <td class="num">
                    {r.analyzed_profile_count} / {r.profile_count}
                    <span class="sub">analyzed</span>
                  </td>
                  <td>{label(ANALYSIS_STATE, r.analysis_state)}</td>
                  <td class="hide-narrow">
                    <When at={r.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        {!props.isFirstPage ? <a href={firstPageUrl(props)}>First page</a> : null}
        {props.nextUrl ? <a href={props.nextUrl}>Next page</a> : null}
      </nav>
    </Layout>
  );
}

function firstPageUrl(props: ReportListProps): string {
  const query = new URLSearchParams();
  if (props.domain) query.set('domain', props.domain);
  if (props.includeArchived) query.set('archived', '1');
  const text = query.toString();
  return text ? `${paths.reports}?${text}` : paths.reports;
}
