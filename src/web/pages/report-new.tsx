/**
 * Creating a report: the company fields and the people (pasted or a CSV),
 * then a preview of what will happen to each person (same rule and counts
 * as creation itself) and of the scan allowance it uses, then the commit.
 */
import type { IgnoredColumn } from '../../domain/people-sheet.js';
import type { SubmittedProfile } from '../../domain/roster-plan.js';
import type { AllowanceStatus } from '../../domain/scan-allowance.js';
import type { NewReportPreview } from '../../use-cases/preview-report.js';
import { Breadcrumbs, CsrfField, Layout, type Viewer } from '../components/layout.js';
import { DataSourceFields, PeopleFields, PreviewTable, ProblemList, SheetNotes, type LeaveOut } from '../components/people-form.js';
import { paths } from '../paths.js';
import { ScanAllowancePreview } from '../components/scan-allowance.js';

export interface NewReportValues {
  name: string;
  company_name: string;
  company_domain: string;
  company_page: string;
  mode: 'test' | 'live';
  pasted: string;
}

export function NewReportPage(props: {
  csrf: string;
  viewer: Viewer;
  values: NewReportValues;
  problems: string[];
  liveConfigured: boolean;
  /** The offer to leave out the rows that cannot be imported. */
  leaveOut?: LeaveOut | null;
}) {
  const v = props.values;
  return (
    <Layout title="New report" viewer={props.viewer} csrf={props.csrf} current="reports">
      <Breadcrumbs trail={[{ href: paths.reports, label: 'Reports' }]} />
      <h1>New report</h1>
      <ProblemList problems={props.problems} leaveOut={props.leaveOut ? { offer: props.leaveOut, csrf: props.csrf, action: paths.newReport } : null} />
      <form method="post" action={paths.newReport} enctype="multipart/form-data" class="stack">
        <CsrfField token={props.csrf} />
        <input type="hidden" name="step" value="preview" />
        <label for="name">Report name</label>
        <input id="name" name="name" required maxLength={200} value={v.name} />
        <fieldset>
          <legend>Company</legend>
          <div class="stack">
            <label for="company_name">Name</label>
            <input id="company_name" name="company_name" required maxLength={200} value={v.company_name} autoComplete="organization" />
            <label for="company_domain">Domain</label>
            <input id="company_domain" name="company_domain" required maxLength={2048} value={v.company_domain} placeholder="acme.com" />
            <label for="company_page">Company page URL</label>
            <input
              id="company_page"
              name="company_page"
              type="url"
              required
              maxLength={2048}
              value={v.company_page}
              placeholder="https://pronet.example/company/acme"
            />
          </div>
        </fieldset>
        <PeopleFields pasted={v.pasted} />
        <DataSourceFields mode={v.mode} liveConfigured={props.liveConfigured} />
        <button type="submit">Preview</button>
      </form>
    </Layout>
  );
}

export function NewReportPreviewPage(props: {
  csrf: string;
  viewer: Viewer;
  values: NewReportValues;
  profiles: SubmittedProfile[];
  /** Where each person came from ("Row 7"), as the spreadsheet shows it. */
  origins: string[];
  ignored: IgnoredColumn[];
  /** The rows left out at the user's request, each with why. */
  leftOut: string[];
  urlColumns: { candidates: string[]; chosen: string; sheet: string } | null;
  preview: NewReportPreview;
  allowance: AllowanceStatus;
  payload: string;
  idempotencyKey: string;
  /** Imports the people are committed as: the creation, then imports into the report. */
  imports: number;
}) {
  const { counts } = props.preview;
  return (
    <Layout title="Check and create" viewer={props.viewer} csrf={props.csrf} current="reports">
      <Breadcrumbs trail={[{ href: paths.reports, label: 'Reports' }]} />
      <h1>Check and create “{props.values.name}”</h1>
      <dl class="facts">
        <dt>Company</dt>
        <dd>
          {props.values.company_name} · {props.values.company_domain}
        </dd>
        <dt>People submitted</dt>
        <dd>{counts.submitted}</dd>
        <dt>Will be added and scanned</dt>
        <dd>{counts.would_add}</dd>
        <dt>Duplicates (skipped)</dt>
        <dd>{counts.duplicate_in_input}</dd>
        <dt>Data source</dt>
        <dd>{props.values.mode === 'live' ? 'Live' : 'Test (simulator)'}</dd>
      </dl>
      <ScanAllowancePreview allowance={props.allowance} wouldUse={counts.would_queue_profiles} />
      {props.preview.rows.length > 0 ? (
        <>
          <SheetNotes
            csrf={props.csrf}
            action={paths.newReport}
            urlColumns={props.urlColumns}
            resend={{
              name: props.values.name,
              company_name: props.values.company_name,
              company_domain: props.values.company_domain,
              company_page: props.values.company_page,
              mode: props.values.mode,
            }}
            ignored={props.ignored}
            leftOut={props.leftOut}
            people={counts.submitted}
            imports={props.imports}
          />
          <PreviewTable rows={props.preview.rows} profiles={props.profiles} origins={props.origins} />
        </>
      ) : (
        <p class="card">No people yet: the report is created without scans; add people later.</p>
      )}
      <form method="post" action={paths.newReport} enctype="multipart/form-data" class="toolbar sticky-actions">
        <CsrfField token={props.csrf} />
        <input type="hidden" name="payload" value={props.payload} />
        <input type="hidden" name="idempotency_key" value={props.idempotencyKey} />
        <button type="submit" name="step" value="commit">
          Create report
        </button>
        <button type="submit" name="step" value="edit" class="secondary">
          Edit
        </button>
      </form>
    </Layout>
  );
}
