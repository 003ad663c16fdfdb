/** The people part of the create and add-people forms, and the preview table shared by both. */
import type { IgnoredColumn } from '../../domain/people-sheet.js';
import { IMPORTED_COLUMN_LIMITS, type SubmittedProfile } from '../../domain/roster-plan.js';
import { MAX_PEOPLE, PEOPLE_PER_IMPORT } from '../people-input.js';
import { CsrfField } from './layout.js';

const EXAMPLE_LINE = 'https://pronet.example/in/jane-doe, Jane Doe';

export function PeopleFields(props: { pasted: string; required?: boolean }) {
  return (
    <fieldset>
      <legend>People</legend>
      <label for="people">Profile URLs, one per line</label>
      <p id="people-hint" class="hint">
        Optionally followed by name, title and headline, separated by commas: <code>{EXAMPLE_LINE}</code>. A URL may leave out <code>https://</code>. At most{' '}
        {MAX_PEOPLE} people at a time.
      </p>
      <textarea id="people" name="people" rows={8} aria-describedby="people-hint" spellcheck={false}>
        {props.pasted}
      </textarea>
      <label for="csv">…or a CSV file</label>
      <p id="csv-hint" class="hint">
        The profile URLs are found by their column's header: “LinkedIn URL”, “Profile URL”, “URL”, “LinkedIn-Profil”, “URL du profil”, “URL de LinkedIn” and
        similar; <code>name</code>, <code>title</code> and <code>headline</code> are optional. Without a header, the columns are taken in that order. Up to{' '}
        {IMPORTED_COLUMN_LIMITS.columns} other columns (department, office …) are kept to filter the report by.
      </p>
      <input id="csv" name="csv" type="file" accept=".csv,text/csv" aria-describedby="csv-hint" />
    </fieldset>
  );
}

/** A person's imported columns on one line under their name ("Department: Sales · Office: Berlin"); nothing when none. */
export function ImportedColumns(props: { columns: Readonly<Record<string, string>> | undefined }) {
  const entries = Object.entries(props.columns ?? {});
  if (entries.length === 0) return null;
  return <span class="sub">{entries.map(([column, value]) => `${column}: ${value}`).join(' · ')}</span>;
}

export interface PreviewRow {
  row_number: number;
  status: string;
  duplicate_of_row?: number;
  notes?: { code: string; message: string }[];
}

const STATUS: Record<string, string> = {
  would_add: 'Will be added',
  would_restore: 'Will be restored',
  already_present: 'Already on the report',
  duplicate_in_input: 'Duplicate',
};

/**
 * Above a preview: how the people were read. When several columns could
 * hold the profile URLs, a choice of the column (the people are read again
 * from the same text); the columns that are not kept; and how many imports
 * a list longer than one import is committed as.
 */
export function SheetNotes(props: {
  csrf: string;
  action: string;
  urlColumns: { candidates: string[]; chosen: string; sheet: string } | null;
  /** Fields the form re-sends with the chosen column (the new report's name, company, data source). */
  resend: Record<string, string>;
  ignored: IgnoredColumn[];
  /** The rows left out at the user's request, each with why. */
  leftOut?: string[];
  people: number;
  imports: number;
  /** Whether sending the same list again resumes (an import into a report; a new report would be created again). */
  resumable?: boolean;
}) {
  return (
    <>
      {props.urlColumns ? (
        <form method="post" action={props.action} enctype="multipart/form-data" class="card stack">
          <CsrfField token={props.csrf} />
          <input type="hidden" name="step" value="preview" />
          <input type="hidden" name="sheet" value={props.urlColumns.sheet} />
          {props.leftOut && props.leftOut.length > 0 ? <input type="hidden" name="leave_out" value="yes" /> : null}
          {Object.entries(props.resend).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <label for="url_column">Several columns could hold the profile URLs. Profile URLs from the column</label>
          <div class="toolbar">
            <select id="url_column" name="url_column">
              {props.urlColumns.candidates.map((c) => (
                <option value={c} selected={c === props.urlColumns!.chosen}>
                  {c}
                </option>
              ))}
            </select>
            <button type="submit" class="secondary">
              Use this column
            </button>
          </div>
        </form>
      ) : null}
      {props.ignored.length > 0 ? (
        <div class="notice info">
          <p>
            <strong>Columns not imported:</strong>
          </p>
          <ul>
            {props.ignored.map((c) => (
              <li>
                “{c.column}”: {c.reason}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {props.leftOut && props.leftOut.length > 0 ? (
        <div class="notice info">
          <p>
            <strong>
              {props.leftOut.length === 1 ? '1 row is' : `${props.leftOut.length} rows are`} left out, as you chose; fix them in the file and add them later:
            </strong>
          </p>
          <ul>
            {props.leftOut.slice(0, 20).map((p) => (
              <li>{p}</li>
            ))}
          </ul>
          {props.leftOut.length > 20 ? <p>…and {props.leftOut.length - 20} more.</p> : null}
        </div>
      ) : null}
      {props.imports > 1 ? (
        <p class="hint">
          The {props.people} people are added as {props.imports} imports of at most {PEOPLE_PER_IMPORT}, one after the other.
          {props.resumable ? ' If the page is closed while they are added, send the same list again: the imports already done are not repeated.' : ''}
        </p>
      ) : null}
    </>
  );
}

export function PreviewTable(props: { rows: PreviewRow[]; profiles: SubmittedProfile[]; origins?: string[] }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">What happens to each person</caption>
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Person</th>
            <th scope="col">Outcome</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => {
            const profile = props.profiles[row.row_number - 1];
            return (
              <tr>
                <td>{props.origins?.[row.row_number - 1] ?? row.row_number}</td>
                <td>
                  {profile?.name ?? profile?.pronet_url}
                  {profile?.name ? <span class="sub">{profile.pronet_url}</span> : null}
                  <ImportedColumns columns={profile?.columns} />
                </td>
                <td>
                  {STATUS[row.status] ?? row.status}
                  {row.duplicate_of_row
                    ? ` of ${(props.origins?.[row.duplicate_of_row - 1] ?? `row ${row.duplicate_of_row}`).replace(/^Row/u, 'row').replace(/^Line/u, 'line')}`
                    : ''}
                  {(row.notes ?? []).map((n) => (
                    <span class="sub">{n.message}</span>
                  ))}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The offer to leave out the rows that cannot be imported (web/routes/intake-routes.ts): how many, the list's text, the fields sent again. */
export interface LeaveOut {
  rows: number;
  sheet: string;
  resend: Record<string, string>;
}

export function ProblemList(props: { problems: string[]; leaveOut?: { offer: LeaveOut; csrf: string; action: string } | null }) {
  if (props.problems.length === 0) return null;
  const offer = props.leaveOut?.offer;
  return (
    <div class="notice error" role="alert">
      <p>
        <strong>Nothing was saved. Please fix:</strong>
      </p>
      <ul>
        {props.problems.slice(0, 20).map((p) => (
          <li>{p}</li>
        ))}
      </ul>
      {props.problems.length > 20 ? <p>…and {props.problems.length - 20} more.</p> : null}
      {offer ? (
        <form method="post" action={props.leaveOut!.action} enctype="multipart/form-data">
          <CsrfField token={props.leaveOut!.csrf} />
          <input type="hidden" name="step" value="preview" />
          <input type="hidden" name="sheet" value={offer.sheet} />
          <input type="hidden" name="leave_out" value="yes" />
          {Object.entries(offer.resend).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <p>Or import everyone else and fix {offer.rows === 1 ? 'this row' : 'these rows'} later:</p>
          <button type="submit" class="secondary">
            Leave out {offer.rows === 1 ? 'this row' : `these ${offer.rows} rows`} and preview the rest
          </button>
        </form>
      ) : null}
    </div>
  );
}

export function DataSourceFields(props: { mode: 'test' | 'live'; liveConfigured: boolean }) {
  return (
    <fieldset>
      <legend>Data source</legend>
      <label class="check">
        <input type="radio" name="mode" value="test" checked={props.mode === 'test'} /> Test: the built-in simulator (deterministic sample data)
      </label>
      <label class="check">
        <input type="radio" name="mode" value="live" checked={props.mode === 'live'} /> Live:{' '}
        {props.liveConfigured ? 'the configured data provider' : 'no provider is configured, so the simulator is used'}
      </label>
    </fieldset>
  );
}
