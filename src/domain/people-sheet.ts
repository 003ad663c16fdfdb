/**
 * The rules of a people spreadsheet, shared by the web's form, the CLI's CSV
 * import and the client package: which column holds the profile URLs (by its
 * header in English, German, French or Spanish, case- and
 * accent-insensitive), what a cell of that column is (a person's profile, a
 * company page, a post, a search page, no URL), which columns are the name
 * (or a first and a last name, joined), title and headline, which are kept as imported columns and which are
 * ignored, and each problem with the spreadsheet row the user sees (the
 * header is row 1) and the value quoted.
 *
 * The rows come in already parsed (csv-parse, by the caller), one array of
 * cells per record, blank records included so that row numbers match the
 * spreadsheet's. A URL without a scheme (`www.linkedin.com/in/x`,
 * `linkedin.com/in/x`) gets `https://`; the profile URL identity
 * (src/domain/profile-url.ts, applied by the API) normalizes the rest.
 *
 * This module imports nothing: the client package cannot import the server,
 * so its packages/client/src/people-sheet.ts is written from this file before
 * the client is compiled (scripts/client-sheet.mjs, run by the build), and
 * test/unit/people-sheet.test.ts fails while the two differ.
 */

/** What a cell of the URL column is. */
export type UrlKind = 'profile' | 'company' | 'post' | 'search' | 'not_profile' | 'not_url' | 'missing';

export type SheetField = 'pronet_url' | 'name' | 'title' | 'headline';

/** A header as compared: accents dropped, lower case, separators (space, `_`, `-`, `.`, `:`, `/`) as one space. */
export function headerKey(header: string): string {
  return header
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s_\-.:/]+/gu, ' ')
    .trim();
}

/** Headers of the profile URL column, as compared (headerKey). */
const URL_HEADERS = new Set(
  [
    // English
    'pronet_url',
    'url',
    'profile',
    'profile url',
    'profile link',
    'linkedin',
    'linkedin url',
    'linkedin link',
    'linkedin profile',
    'linkedin profile url',
    'link',
    // German
    'profil',
    'profil url',
    'profil link',
    'profillink',
    'linkedin profil',
    'linkedin profil url',
    'url des profils',
    'link zum profil',
    // French
    'url du profil',
    'lien',
    'lien du profil',
    'lien linkedin',
    'profil linkedin',
    'url linkedin',
    'url de linkedin',
    // Spanish
    'perfil',
    'url del perfil',
    'url de perfil',
    'enlace',
    'enlace del perfil',
    'perfil de linkedin',
    'linkedin perfil',
    'url de linkedin',
  ].map(headerKey),
);

/** A few of the accepted spellings, for the message when no header fits. */
export const EXPECTED_URL_HEADERS = ['LinkedIn URL', 'Profile URL', 'URL', 'LinkedIn-Profil', 'URL du profil', 'URL de LinkedIn', 'pronet_url'] as const;

const FIELD_HEADERS: Record<Exclude<SheetField, 'pronet_url'>, Set<string>> = {
  name: new Set(
    [
      'name',
      'full name',
      'employee',
      'employee name',
      'vollstandiger name',
      'mitarbeiter',
      'nom',
      'nom complet',
      'employe',
      'nombre',
      'nombre completo',
      'empleado',
    ].map(headerKey),
  ),
  title: new Set(['title', 'job title', 'titel', 'jobtitel', 'berufsbezeichnung', 'titre', 'poste', 'intitule du poste', 'cargo', 'puesto'].map(headerKey)),
  headline: new Set(['headline', 'profile headline', 'schlagzeile', 'titre du profil', 'titular'].map(headerKey)),
};

/** Headers of a first name and of a last name, as compared (headerKey): an HR export often splits the name. */
const FIRST_NAME_HEADERS = new Set(['first name', 'firstname', 'given name', 'forename', 'vorname', 'prenom', 'nombre de pila'].map(headerKey));
const LAST_NAME_HEADERS = new Set(
  ['last name', 'lastname', 'surname', 'family name', 'nachname', 'familienname', 'nom de famille', 'apellido', 'apellidos'].map(headerKey),
);

/** Whether a header names the profile URL column. */
export function isUrlHeader(header: string): boolean {
  return URL_HEADERS.has(headerKey(header));
}

function fieldOfHeader(header: string): Exclude<SheetField, 'pronet_url'> | null {
  const key = headerKey(header);
  for (const field of ['name', 'title', 'headline'] as const) if (FIELD_HEADERS[field].has(key)) return field;
  return null;
}

const HOST_THEN_PATH = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}(?::\d{1,5})?(?:[/?#]|$)/iu;

/**
 * A cell of the URL column: its kind and, for a profile, the URL to submit
 * (with `https://` added when it had no scheme). Paths are read as the
 * professional network writes them: `/in/…` (and `/pub/…`) is a person,
 * `/company/`, `/school/`, `/showcase/` a company page, `/posts/`, `/feed/`,
 * `/pulse/` a post, `/search/` a search page; any other path is left to the
 * API's URL rules.
 */
export function profileUrlOf(value: string): { kind: UrlKind; url: string } {
  const trimmed = value.trim();
  if (trimmed === '') return { kind: 'missing', url: '' };
  let url = trimmed;
  if (!/^[a-z][a-z0-9+.-]*:/iu.test(trimmed)) {
    if (!HOST_THEN_PATH.test(trimmed)) return { kind: 'not_url', url: trimmed };
    url = `https://${trimmed}`;
  } else if (!/^https?:\/\//iu.test(trimmed)) return { kind: 'not_url', url: trimmed };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { kind: 'not_url', url: trimmed };
  }
  const segments = parsed.pathname
    .split('/')
    .filter((s) => s !== '')
    .map((s) => s.toLowerCase());
  const [first] = segments;
  if (first === undefined) return { kind: 'not_profile', url };
  if (first === 'in' || first === 'pub') return { kind: segments.length > 1 ? 'profile' : 'not_profile', url };
  if (first === 'company' || first === 'school' || first === 'showcase') return { kind: 'company', url };
  if (first === 'posts' || first === 'feed' || first === 'pulse') return { kind: 'post', url };
  if (first === 'search') return { kind: 'search', url };
  return { kind: 'profile', url };
}

/** A value as a message quotes it: at most 80 characters. */
export function quoted(value: string): string {
  const chars = Array.from(value.replace(/\s+/gu, ' ').trim());
  return `“${chars.length > 80 ? `${chars.slice(0, 79).join('')}…` : chars.join('')}”`;
}

const KIND_MESSAGES: Record<Exclude<UrlKind, 'profile' | 'missing'>, string> = {
  company: "is a company page, not a person's profile: give the company page as the report's company, and people by their own profile URLs (…/in/name)",
  post: "is a post, not a person's profile: use the profile URL of the person (…/in/name)",
  search: "is a search page, not a person's profile: open the person and copy the URL of their profile (…/in/name)",
  not_profile: "is not a person's profile URL (…/in/name)",
  not_url: 'is not a profile URL (for example https://www.linkedin.com/in/jane-doe)',
};

export interface SheetPerson {
  /** The row as the spreadsheet shows it (the header is row 1). */
  row: number;
  pronet_url: string;
  name?: string;
  title?: string;
  headline?: string;
  columns?: Record<string, string>;
}

/** A problem: `row` null for the header or the file as a whole; `message` names no row (the caller prefixes it). */
export interface SheetProblem {
  row: number | null;
  message: string;
}

export interface IgnoredColumn {
  column: string;
  reason: string;
}

export interface SheetOptions {
  /** The header of the URL column, when the user chose one of several. */
  urlColumn?: string;
  /** Other columns kept as imported columns, within these limits; without it every other column is ignored. */
  keep?: { columns: number; name: number; value: number };
}

export interface Sheet {
  people: SheetPerson[];
  problems: SheetProblem[];
  /** Whether the first row was a header. */
  header: boolean;
  /** Headers that could hold the profile URLs (more than one: the user may choose) and the one used. */
  urlColumns: { candidates: string[]; chosen: string } | null;
  ignored: IgnoredColumn[];
}

/** A header's name as kept: spaces collapsed, `=` (the web's filter separator) written as `-`. */
function columnName(header: string): string {
  return header.trim().replace(/\s+/gu, ' ').replaceAll('=', '-');
}

type Column = { field: SheetField } | { part: 'first' | 'last' } | { imported: string } | null;

function isBlank(record: readonly string[]): boolean {
  return record.every((cell) => cell.trim() === '');
}

/**
 * Reads people from records (the first non-blank one a header when any of its
 * cells names the URL column, or when the first cell is not a URL; without a
 * header the columns are URL, name, title, headline).
 */
export function readPeopleSheet(records: readonly (readonly string[])[], options: SheetOptions = {}): Sheet {
  const problems: SheetProblem[] = [];
  const ignored: IgnoredColumn[] = [];
  const firstIndex = records.findIndex((r) => !isBlank(r));
  if (firstIndex === -1) return { people: [], problems, header: false, urlColumns: null, ignored };
  const first = records[firstIndex];
  const candidates = first.filter((cell) => isUrlHeader(cell)).map((cell) => cell.trim());
  const firstLooksLikeUrl = ['profile', 'company', 'post', 'search', 'not_profile'].includes(profileUrlOf(first[0] ?? '').kind);
  let columns: Column[] = (['pronet_url', 'name', 'title', 'headline'] as const).map((field) => ({ field }));
  let header = false;
  let urlColumns: Sheet['urlColumns'] = null;
  if (candidates.length > 0 || options.urlColumn !== undefined || !firstLooksLikeUrl) {
    header = true;
    const rows = records.slice(firstIndex + 1);
    let urlIndex: number;
    if (options.urlColumn !== undefined) {
      urlIndex = first.findIndex((cell) => headerKey(cell) === headerKey(options.urlColumn!));
      if (urlIndex === -1) {
        problems.push({
          row: firstIndex + 1,
          message: `No column is named ${quoted(options.urlColumn)}; the header has ${first.map(quoted).join(', ')}.`,
        });
        return { people: [], problems, header, urlColumns: null, ignored };
      }
    } else if (candidates.length === 0) {
      problems.push({
        row: firstIndex + 1,
        message:
          `No column of the header holds the profile URLs: name it ${EXPECTED_URL_HEADERS.map((h) => `“${h}”`).join(', ')} or similar ` +
          `(the header has ${
            first
              .filter((c) => c.trim() !== '')
              .map(quoted)
              .join(', ') || 'no names'
          }).`,
      });
      return { people: [], problems, header, urlColumns: null, ignored };
    } else {
      // Of several fitting headers, the one with the most profile URLs (the leftmost on a tie); the user may choose another.
      // A URL with a person's path (/in/…) weighs more than one the API may still accept.
      const weight = (cell: string) => {
        const { kind, url } = profileUrlOf(cell);
        return kind !== 'profile' ? 0 : /^https?:\/\/[^/]+\/(in|pub)\//iu.test(url) ? 2 : 1;
      };
      const profilesIn = (index: number) => rows.reduce((sum, r) => sum + weight(r[index] ?? ''), 0);
      urlIndex = first
        .map((cell, index) => ({ index, fits: isUrlHeader(cell) }))
        .filter((c) => c.fits)
        .reduce((best, c) => (profilesIn(c.index) > profilesIn(best.index) ? c : best)).index;
    }
    if (candidates.length > 1 || (options.urlColumn !== undefined && candidates.length > 0)) urlColumns = { candidates, chosen: first[urlIndex].trim() };
    const seen = new Set<string>();
    const taken = new Set<SheetField>(['pronet_url']);
    let kept = 0;
    // A name split in two ("First name", "Last name"; in French "Prénom" and "Nom") is joined, unless a column holds the whole name.
    const keys = first.map(headerKey);
    const firstIndexOfName = keys.findIndex((k) => FIRST_NAME_HEADERS.has(k));
    const lastIndexOfName = firstIndexOfName === -1 ? -1 : keys.findIndex((k) => LAST_NAME_HEADERS.has(k) || k === 'nom');
    const splitName =
      firstIndexOfName !== -1 && lastIndexOfName !== -1 && !keys.some((k, i) => i !== lastIndexOfName && i !== urlIndex && fieldOfHeader(first[i]) === 'name');
    columns = first.map((cell, index): Column => {
      if (index === urlIndex) return { field: 'pronet_url' };
      if (splitName && index === firstIndexOfName) return { part: 'first' };
      if (splitName && index === lastIndexOfName) return { part: 'last' };
      const field = fieldOfHeader(cell);
      if (field && !taken.has(field)) {
        taken.add(field);
        return { field };
      }
      const name = columnName(cell);
      if (name === '') return null;
      const ignore = (reason: string): Column => {
        ignored.push({ column: name, reason });
        return null;
      };
      if (!options.keep) return ignore('not imported');
      if (seen.has(name.toLowerCase())) return ignore('its name appears twice in the header');
      seen.add(name.toLowerCase());
      if (Array.from(name).length > options.keep.name) return ignore(`its name is longer than ${options.keep.name} characters`);
      if (kept >= options.keep.columns) return ignore(`at most ${options.keep.columns} other columns are kept`);
      kept += 1;
      return { imported: name };
    });
  }
  const people: SheetPerson[] = [];
  records.forEach((record, index) => {
    if (index < firstIndex || (header && index === firstIndex) || isBlank(record)) return;
    const row = index + 1;
    const person: SheetPerson = { row, pronet_url: '' };
    const imported: Record<string, string> = {};
    const parts: { first?: string; last?: string } = {};
    record.forEach((raw, i) => {
      const column = columns[i];
      const cell = raw.trim();
      if (!column || cell === '') return;
      if ('part' in column) parts[column.part] = cell;
      else if ('field' in column) {
        if (column.field === 'pronet_url') person.pronet_url = cell;
        else person[column.field] ??= cell;
      } else if (options.keep && Array.from(cell).length > options.keep.value) {
        problems.push({ row, message: `the ${quoted(column.imported)} value ${quoted(cell)} is longer than ${options.keep.value} characters.` });
      } else imported[column.imported] = cell;
    });
    const joined = [parts.first, parts.last].filter((p) => p !== undefined).join(' ');
    if (joined !== '') person.name ??= joined;
    const { kind, url } = profileUrlOf(person.pronet_url);
    if (kind === 'missing') problems.push({ row, message: 'the profile URL is missing.' });
    else if (kind !== 'profile') problems.push({ row, message: `${quoted(person.pronet_url)} ${KIND_MESSAGES[kind]}.` });
    else person.pronet_url = url;
    if (Object.keys(imported).length > 0) person.columns = imported;
    people.push(person);
  });
  return { people, problems, header, urlColumns, ignored };
}

/** Consecutive batches of at most `size`, in order: how a list larger than one import is committed. */
export function batchesOf<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The idempotency key of one batch of a multi-batch import: the same list gives the same keys, so re-sending it resumes. */
export function batchKey(prefix: string, index: number, count: number): string {
  return `${prefix}-${index + 1}-of-${count}`;
}
