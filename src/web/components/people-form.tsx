/** The people part of the create and add-people forms, and the preview table shared by both. */
import { IMPORTED_COLUMN_LIMITS, type SubmittedProfile } from '../../domain/roster-plan.js';
import { MAX_PEOPLE } from '../people-input.js';

const EXAMPLE_LINE = 'https://pronet.example/in/jane-doe, Jane Doe';

export function PeopleFields(props: { pasted: string; required?: boolean }) {
  return (
    <fieldset>
      <legend>People</legend>
      <label for="people">Profile URLs, one per line</label>
      <p id="people-hint" class="hint">
        Optionally followed by name, title and headline, separated by commas: <code>{EXAMPLE_LINE}</code>. At most {MAX_PEOPLE} people at a time.
      </p>
      <textarea id="people" name="people" rows={8} aria-describedby="people-hint" spellcheck={false}>
        {props.pasted}
      </textarea>
      <label for="csv">…or a CSV file</label>
      <p id="csv-hint" class="hint">
        Columns <code>pronet_url</code> (or <code>url</code>), <code>name</code>, <code>title</code>, <code>headline</code>; with or without a header row. With
        a header, up to {IMPORTED_COLUMN_LIMITS.columns} other columns (department, office …) are kept to filter the report by.
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

export function PreviewTable(props: { rows: PreviewRow[]; profiles: SubmittedProfile[] }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">What happens to each person</caption>
        <thead>
          <tr>
            <th scope="col" class="num">
              #
            </th>
            <th scope="col">Person</th>
            <th scope="col">Outcome</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => {
            const profile = props.profiles[row.row_number - 1];
            return (
              <tr>
                <td class="num">{row.row_number}</td>
                <td>
                  {profile?.name ?? profile?.pronet_url}
                  {profile?.name ? <span class="sub">{profile.pronet_url}</span> : null}
                  <ImportedColumns columns={profile?.columns} />
                </td>
                <td>
                  {STATUS[row.status] ?? row.status}
                  {row.duplicate_of_row ? ` of row ${row.duplicate_of_row}` : ''}
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

export function ProblemList(props: { problems: string[] }) {
  if (props.problems.length === 0) return null;
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
