/**
 * People from a form: URLs pasted one per line (optionally followed by
 * name, title, headline, comma-separated) and/or an uploaded CSV file, both
 * read with csv-parse, then by the spreadsheet rules every interface shares
 * (src/domain/people-sheet.ts: the URL column found by its header in any
 * common spelling or chosen by the user, URLs without a scheme accepted,
 * company pages, posts and search pages refused, problems named by the row
 * the spreadsheet shows with the value quoted). The separator is the one the
 * first line uses most, outside quotes: a comma, a semicolon (what Excel
 * writes in locales whose decimal mark is a comma, e.g. German or French) or
 * a tab (a paste from a spreadsheet); a byte order mark is dropped. Empty
 * cells are left out. The people are then validated by the API's own schema
 * and URL rules (body-validation.ts).
 *
 * A header's other columns (department, office, team …) are kept as the
 * person's imported columns, which the report page filters by: at most
 * IMPORTED_COLUMN_LIMITS of them, their names with spaces collapsed and `=`
 * written as `-` (the filter's value is `name=value`); the rest are listed
 * as ignored on the preview.
 *
 * Quoting the user's own values is for the page only: the API's errors never
 * echo submitted values (contract, section 7).
 */
import { parse } from 'csv-parse/sync';
import { readPeopleSheet, type IgnoredColumn, type SheetProblem } from '../domain/people-sheet.js';
import { IMPORTED_COLUMN_LIMITS, type SubmittedProfile } from '../domain/roster-plan.js';

/** People per API import (contract section 8, "Profiles per write"): a longer list is committed as several imports. */
export const PEOPLE_PER_IMPORT = 100;
/** People of one web import or new report: as many as the form's hidden field carries to the commit. */
export const MAX_PEOPLE = 500;

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

/** Every record, blank ones included, so that a record's index + 1 is the spreadsheet's row. */
function recordsOf(text: string): string[][] {
  if (text.trim() === '') return [];
  const records: string[][] = parse(text, {
    bom: true,
    delimiter: detectSeparator(text),
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
    trim: true,
  });
  return records;
}

/** The people of a form, with where each came from ("Row 7", "Line 2 of the pasted list"). */
export interface PeopleInput {
  profiles: SubmittedProfile[];
  origins: string[];
  ignored: IgnoredColumn[];
  /** The file's headers that could hold the profile URLs, when more than one does, and the one used. */
  urlColumns: { candidates: string[]; chosen: string } | null;
  /** The rows left out at the user's request, each with why it could not be imported. */
  leftOut: string[];
}

/**
 * Input the page cannot read; `problems` are every sentence to show.
 * `leavable`: how many rows the user may choose to leave out to import the
 * rest (0 when a problem concerns the whole list, or no one would be left).
 */
export class PeopleInputError extends Error {
  constructor(
    readonly problems: string[],
    readonly leavable = 0,
  ) {
    super(problems.join(' '));
  }
}

const pastedOrigin = (row: number) => `Line ${row} of the pasted list`;
const fileOrigin = (row: number) => `Row ${row}`;

function sentence(origin: (row: number) => string, problem: SheetProblem): string {
  return problem.row === null ? problem.message : `${origin(problem.row)}: ${problem.message}`;
}

/**
 * The pasted lines first, then the file's rows. Throws PeopleInputError for
 * unreadable CSV, too many people or any row the spreadsheet rules refuse
 * (every problem at once). `urlColumn` is the file's URL column the user chose;
 * `leaveOut`: the user chose to import the other rows when every problem is
 * a row's (a real export often has a few rows without a profile URL).
 */
export function parsePeople(pasted: string, file: Buffer | null, options: { urlColumn?: string; leaveOut?: boolean } = {}): PeopleInput {
  const keep = IMPORTED_COLUMN_LIMITS;
  let fromPaste, fromFile;
  try {
    fromPaste = readPeopleSheet(recordsOf(pasted), { keep });
    fromFile = file ? readPeopleSheet(recordsOf(file.toString('utf8')), { keep, urlColumn: options.urlColumn || undefined }) : null;
  } catch {
    throw new PeopleInputError(['The people could not be read as CSV: check the quotes and separators (one person per line).']);
  }
  const sheetProblems = [...fromPaste.problems, ...(fromFile?.problems ?? [])];
  const problems = [...fromPaste.problems.map((p) => sentence(pastedOrigin, p)), ...(fromFile?.problems ?? []).map((p) => sentence(fileOrigin, p))];
  const refused = { paste: new Set(fromPaste.problems.map((p) => p.row)), file: new Set((fromFile?.problems ?? []).map((p) => p.row)) };
  const all = [
    ...fromPaste.people.map((p) => ({ p, origin: pastedOrigin(p.row), refused: refused.paste.has(p.row) })),
    ...(fromFile?.people ?? []).map((p) => ({ p, origin: fileOrigin(p.row), refused: refused.file.has(p.row) })),
  ];
  if (all.length > MAX_PEOPLE) {
    problems.unshift(`At most ${MAX_PEOPLE} people at a time (you sent ${all.length}); add the rest in a second import.`);
  }
  const kept = all.filter((x) => !x.refused);
  const onlyRows = problems.length > 0 && sheetProblems.length === problems.length && sheetProblems.every((p) => p.row !== null);
  const leavable = onlyRows && kept.length > 0 ? refused.paste.size + refused.file.size : 0;
  const leftOut = options.leaveOut && leavable > 0 ? problems : [];
  if (problems.length > 0 && leftOut.length === 0) throw new PeopleInputError(problems, leavable);
  const people = leftOut.length > 0 ? kept : all;
  return {
    profiles: people.map(({ p: { row: _row, ...profile } }) => profile),
    origins: people.map((x) => x.origin),
    ignored: [...fromPaste.ignored, ...(fromFile?.ignored ?? [])],
    urlColumns: fromFile?.urlColumns ?? fromPaste.urlColumns,
    leftOut,
  };
}
