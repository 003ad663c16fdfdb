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
 */
import { parse } from 'csv-parse/sync';
import type { SubmittedProfile } from '../domain/roster-plan.js';

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

function toProfiles(rows: string[][]): SubmittedProfile[] {
  if (rows.length === 0) return [];
  let columns: Array<(typeof FIELDS)[number] | null> = [...FIELDS];
  const first = rows[0].map((c) => c.trim().toLowerCase());
  if (first.some((c) => URL_HEADERS.has(c))) {
    columns = first.map((c) => (URL_HEADERS.has(c) ? 'pronet_url' : (FIELDS as readonly string[]).includes(c) ? (c as (typeof FIELDS)[number]) : null));
    rows = rows.slice(1);
  }
  return rows
    .filter((row) => row.some((cell) => cell.trim() !== ''))
    .map((row) => {
      const profile: Record<string, string> = {};
      row.forEach((cell, i) => {
        const name = columns[i];
        if (name && cell.trim() !== '' && profile[name] === undefined) profile[name] = cell.trim();
      });
      return { pronet_url: profile.pronet_url ?? '', ...profile };
    });
}

export class PeopleInputError extends Error {}

/** The pasted lines first, then the file's rows. Throws PeopleInputError for unreadable CSV or too many people. */
export function parsePeople(pasted: string, file: Buffer | null): SubmittedProfile[] {
  let profiles: SubmittedProfile[];
  try {
    profiles = [...toProfiles(rowsOf(pasted)), ...(file ? toProfiles(rowsOf(file.toString('utf8'))) : [])];
  } catch {
    throw new PeopleInputError('The people could not be read as CSV: check the quotes and separators (one person per line).');
  }
  if (profiles.length > MAX_PEOPLE) {
    throw new PeopleInputError(`At most ${MAX_PEOPLE} people per batch (you sent ${profiles.length}); split them, then add the rest to the report.`);
  }
  return profiles;
}
