/** Adding people to a report: the form, then the API's import preview (validation_only), then the commit. */
import type { IgnoredColumn } from '../../domain/people-sheet.js';
import type { SubmittedProfile } from '../../domain/roster-plan.js';
import { Breadcrumbs, CsrfField, Layout, type Viewer } from '../components/layout.js';
import { DataSourceFields, PeopleFields, PreviewTable, ProblemList, SheetNotes, type LeaveOut } from '../components/people-form.js';
import { paths } from '../paths.js';
import type { AllowanceStatus } from '../../domain/scan-allowance.js';
import { ScanAllowancePreview } from '../components/scan-allowance.js';

export interface ImportPreviewView {
  counts: {
    submitted: number;
    would_add: number;
    would_restore: number;
    already_present: number;
    duplicate_in_input: number;
    would_queue_profiles: number;
  };
  rows: { row_number: number; status: string; duplicate_of_row?: number; notes?: { code: string; message: string }[] }[];
}

export function ImportPage(props: {
  csrf: string;
  viewer: Viewer;
  report: { id: string; name: string };
  pasted: string;
  problems: string[];
  mode: 'test' | 'live';
  liveConfigured: boolean;
  /** The offer to leave out the rows that cannot be imported. */
  leaveOut?: LeaveOut | null;
}) {
  return (
    <Layout title={`Add people · ${props.report.name}`} viewer={props.viewer} csrf={props.csrf} current="reports">
      <Breadcrumbs
        trail={[
          { href: paths.reports, label: 'Reports' },
          { href: paths.report(props.report.id), label: props.report.name },
        ]}
      />
      <h1>Add people</h1>
      <ProblemList
        problems={props.problems}
        leaveOut={props.leaveOut ? { offer: props.leaveOut, csrf: props.csrf, action: paths.reportImport(props.report.id) } : null}
      />
      <form method="post" action={paths.reportImport(props.report.id)} enctype="multipart/form-data" class="stack">
        <CsrfField token={props.csrf} />
        <input type="hidden" name="step" value="preview" />
        <PeopleFields pasted={props.pasted} />
        <DataSourceFields mode={props.mode} liveConfigured={props.liveConfigured} />
        <button type="submit">Preview</button>
      </form>
    </Layout>
  );
}

export function ImportPreviewPage(props: {
  csrf: string;
  viewer: Viewer;
  report: { id: string; name: string };
  profiles: SubmittedProfile[];
  /** Where each person came from ("Row 7"), as the spreadsheet shows it. */
  origins: string[];
  ignored: IgnoredColumn[];
  /** The rows left out at the user's request, each with why. */
  leftOut: string[];
  urlColumns: { candidates: string[]; chosen: string; sheet: string } | null;
  preview: ImportPreviewView;
  allowance: AllowanceStatus;
  payload: string;
  /** Imports the people are committed as (PEOPLE_PER_IMPORT each). */
  imports: number;
  mode: 'test' | 'live';
}) {
  const c = props.preview.counts;
  return (
    <Layout title={`Check and add · ${props.report.name}`} viewer={props.viewer} csrf={props.csrf} current="reports">
      <Breadcrumbs
        trail={[
          { href: paths.reports, label: 'Reports' },
          { href: paths.report(props.report.id), label: props.report.name },
        ]}
      />
      <h1>Check and add people</h1>
      <dl class="facts">
        <dt>Submitted</dt>
        <dd>{c.submitted}</dd>
        <dt>Will be added</dt>
        <dd>{c.would_add}</dd>
        <dt>Will be restored</dt>
        <dd>{c.would_restore}</dd>
        <dt>Already on the report</dt>
        <dd>{c.already_present}</dd>
        <dt>Duplicates (skipped)</dt>
        <dd>{c.duplicate_in_input}</dd>
        <dt>Will be scanned</dt>
        <dd>{c.would_queue_profiles}</dd>
        <dt>Data source</dt>
        <dd>{props.mode === 'live' ? 'Live' : 'Test (simulator)'}</dd>
      </dl>
      <ScanAllowancePreview allowance={props.allowance} wouldUse={c.would_queue_profiles} />
      <p class="hint">The preview can be outdated when you confirm: adding rechecks the report as it is then.</p>
      <SheetNotes
        csrf={props.csrf}
        action={paths.reportImport(props.report.id)}
        urlColumns={props.urlColumns}
        resend={{ mode: props.mode }}
        ignored={props.ignored}
        leftOut={props.leftOut}
        people={c.submitted}
        imports={props.imports}
        resumable
      />
      <PreviewTable rows={props.preview.rows} profiles={props.profiles} origins={props.origins} />
      <form method="post" action={paths.reportImport(props.report.id)} enctype="multipart/form-data" class="toolbar sticky-actions">
        <CsrfField token={props.csrf} />
        <input type="hidden" name="payload" value={props.payload} />
        <button type="submit" name="step" value="commit">
          Add {c.would_queue_profiles === 1 ? '1 person' : `${c.would_queue_profiles} people`}
        </button>
        <button type="submit" name="step" value="edit" class="secondary">
          Edit
        </button>
      </form>
    </Layout>
  );
}
