/**
 * People from a form: URLs pasted one per line (optionally followed by
 * name, title, headline, comma-separated) and/or an uploaded CSV file, both
 * read with csv-parse. The separator is the one the first line uses most,
 * outside quotes: a comma, a semicolon (what Excel writes in locales whose
 * decimal mark is a comma, e.g. German or French) or a tab (a paste from a
 * spreadsheet); a byte order mark is dropped. A CSV may start with a header naming its columns
 * (`pronet_url` or `url`, `name`, `title`, `headline`); without one, the
 * columns are taken in that order. Empty cells are left out. The rows are
 * then validated by the API's own schema and URL rules (body-validation.ts).
 *
 * A header's other columns (department, office, team …) are kept as the
 * person's imported columns, which the report page filters by: at most
 * IMPORTED_COLUMN_LIMITS of them, their names with spaces collapsed and `=`
 * written as `-` (the filter's value is `name=value`). Every problem with
 * them is reported at once.
 */
import { parse } from 'csv-parse/sync';
import { IMPORTED_COLUMN_LIMITS, type SubmittedProfile } from '../domain/roster-plan.js';

export const MAX_PEOPLE = 100;

const URL_HEADERS = new Set(['pronet_url', 'url', 'profile_url', 'profile', 'profile url', 'linkedin', 'link']);
const FIELDS = ['pronet_url', 'name', 'title', 'headline'] as const;

const SEPARATORS = [',', ';', '\t'] as const;

/** The separator the first non-empty line uses most outside quotes; a comma when it uses none. */
export function detectSeparator(text: string): (typeof SEPARATORS)[number] {
  const line =
    text
      .replace(/^\uFEFF/u, '')
      .split(/\r?\n/u)
      .find((l) => l.trim() !== '') ?? '';
  const counts = new Map<string, number>(SEPARATORS.map((s) => [s, 0]));
  let quoted = false;
  for (const char of line) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  return SEPARATORS.reduce((best, s) => (counts.get(s)! > counts.get(best)! ? s : best), ',');
}

function rowsOf(text: string): string[][] {
  if (text.trim() === '') return [];
  const records: string[][] = parse(text, {
    bom: true,
    delimiter: detectSeparator(text),
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    trim: true,
  });
  return records;
}

/** A header's name as the report page shows it: spaces collapsed, `=` (the filter's separator) written as `-`. */
function columnName(header: string): string {
  return header.trim().replace(/\s+/gu, ' ').replaceAll('=', '-');
}

/** What each column of the rows is: one of the four fields, an imported column (by name), or nothing. */
type Column = { field: (typeof FIELDS)[number] } | { imported: string } | null;

function headerColumns(header: string[], problems: string[]): Column[] {
  const seen = new Set<string>();
  const columns = header.map((cell): Column => {
    const lower = cell.trim().toLowerCase();
    if (URL_HEADERS.has(lower)) return { field: 'pronet_url' };
    if ((FIELDS as readonly string[]).includes(lower)) return { field: lower as (typeof FIELDS)[number] };
    const name = columnName(cell);
    if (name === '') return null;
    if (Array.from(name).length > IMPORTED_COLUMN_LIMITS.name)
      problems.push(`The column name “${Array.from(name).slice(0, 20).join('')}…” is longer than ${IMPORTED_COLUMN_LIMITS.name} characters.`);
    else if (seen.has(name.toLowerCase())) problems.push(`The column “${name}” appears twice in the header.`);
    seen.add(name.toLowerCase());
    return { imported: name };
  });
  const imported = columns.filter((c) => c !== null && 'imported' in c).length;
  if (imported > IMPORTED_COLUMN_LIMITS.columns)
    problems.push(
      `The header has ${imported} columns besides the profile URL, name, title and headline; at most ${IMPORTED_COLUMN_LIMITS.columns} are kept. Remove the ones the report does not need.`,
    );
  return columns;
}

/** The rows as people; problems with imported columns are added to `problems`, numbered from `firstPerson`. */
function toProfiles(rows: string[][], firstPerson: number, problems: string[]): SubmittedProfile[] {
  if (rows.length === 0) return [];
  let columns: Column[] = FIELDS.map((field) => ({ field }));
  const first = rows[0].map((c) => c.trim().toLowerCase());
  if (first.some((c) => URL_HEADERS.has(c))) {
    columns = headerColumns(rows[0], problems);
    rows = rows.slice(1);
  }
  return rows
    .filter((row) => row.some((cell) => cell.trim() !== ''))
    .map((row, index) => {
      const profile: Record<string, string> = {};
      const imported: Record<string, string> = {};
      row.forEach((raw, i) => {
        const column = columns[i];
        const cell = raw.trim();
        if (!column || cell === '') return;
        if ('field' in column) {
          if (profile[column.field] === undefined) profile[column.field] = cell;
        } else if (Array.from(cell).length > IMPORTED_COLUMN_LIMITS.value) {
          problems.push(`Person ${firstPerson + index}: the column “${column.imported}” is longer than ${IMPORTED_COLUMN_LIMITS.value} characters.`);
        } else imported[column.imported] = cell;
      });
      return {
        pronet_url: profile.pronet_url ?? '',
        ...profile,
        ...(Object.keys(imported).length > 0 ? { columns: imported } : {}),
      };
    });
}

/** Input the page cannot read; `problems` are every sentence to show (never a submitted value but column names). */
export class PeopleInputError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join(' '));
  }
}

/** The pasted lines first, then the file's rows. Throws PeopleInputError for unreadable CSV, too many people or bad imported columns. */
export function parsePeople(pasted: string, file: Buffer | null): SubmittedProfile[] {
  const problems: string[] = [];
  let profiles: SubmittedProfile[];
  try {
    const fromPaste = toProfiles(rowsOf(pasted), 1, problems);
    profiles = [...fromPaste, ...(file ? toProfiles(rowsOf(file.toString('utf8')), fromPaste.length + 1, problems) : [])];
  } catch {
    throw new PeopleInputError(['The people could not be read as CSV: check the quotes and separators (one person per line).']);
  }
  if (profiles.length > MAX_PEOPLE) {
    throw new PeopleInputError([`At most ${MAX_PEOPLE} people per batch (you sent ${profiles.length}); split them, then add the rest to the report.`]);
  }
  if (problems.length > 0) throw new PeopleInputError(problems);
  return profiles;
}
