/**
 * The people of a report as CSV, exactly the report page's table (its search,
 * filters and order, every page): who they are, status, score, counts, each
 * check's outcome (one column per catalog check), what to fix first and the
 * advice for every check to optimize, then the columns the web's CSV import
 * carried (department, office …: `imported:<name>` in the machine variant).
 *
 * Two header variants (docs/web.md, "CSV export"): `human` (the default, for
 * spreadsheets: titles and labels as the page shows them) and `machine`
 * (`?columns=machine`, for tools: stable snake_case names, check keys and raw
 * values). Both start with a UTF-8 byte order mark, which Excel needs to read
 * UTF-8, and end lines with CRLF (RFC 4180). Values from scanned profiles that
 * a spreadsheet would run as a formula (= + - @, tab, CR) are prefixed with a
 * quote (OWASP "CSV injection").
 */
import { stringify } from 'csv-stringify/sync';
import { CHECKS } from '../domain/checks/catalog.js';
import { fillCompanyPlaceholders } from '../domain/recommendation-text.js';
import { importedColumnsOf, type ReportPerson } from '../use-cases/report-people.js';
import { label, OUTCOME, PERSON_STATUS } from './components/labels.js';

export type CsvColumns = 'human' | 'machine';

const BOM = '\uFEFF';

function cell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return typeof value === 'string' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

const HEADERS: Record<CsvColumns, string[]> = {
  machine: [
    'name',
    'name_source',
    'title',
    'headline',
    'pronet_url',
    'status',
    'score_pct',
    'good',
    'optimize',
    'unknown',
    ...CHECKS.map((c) => c.key),
    'fix_first',
    'recommendations',
  ],
  human: [
    'Name',
    'Name from',
    'Title',
    'Headline',
    'Profile URL',
    'Status',
    'Score (%)',
    'Good',
    'To optimize',
    'Unknown',
    ...CHECKS.map((c) => c.title),
    'Fix first',
    'Advice',
  ],
};

const NAME_SOURCE: Record<ReportPerson['name_source'], string> = { supplied: 'Import', observed: 'Profile', url: 'Profile URL' };

export function peopleCsv(people: readonly ReportPerson[], companyName: string, columns: CsvColumns): string {
  const human = columns === 'human';
  const imported = importedColumnsOf(people).map((c) => c.column);
  const rows = people.map((p) => {
    const toFix = p.fix_first;
    const advice = toFix.map((c) => `${c.title}: ${fillCompanyPlaceholders(c.recommendation, companyName)}`).join(' | ');
    return [
      cell(p.display_name),
      human ? NAME_SOURCE[p.name_source] : p.name_source,
      cell(p.title),
      cell(p.headline),
      cell(p.pronet_url),
      human ? label(PERSON_STATUS, p.status) : p.status,
      cell(p.score_pct),
      cell(p.outcomes ? p.good : null),
      cell(p.outcomes ? p.optimize : null),
      cell(p.outcomes ? p.unknown : null),
      ...CHECKS.map((c) => {
        const outcome = p.outcomes?.[c.key];
        return outcome === undefined ? '' : human ? OUTCOME[outcome] : outcome;
      }),
      (human ? toFix.map((c) => c.title) : toFix.map((c) => c.key)).join(human ? ', ' : ' '),
      cell(advice),
      ...imported.map((column) => cell(p.columns[column])),
    ];
  });
  const header = [...HEADERS[columns], ...imported.map((column) => (human ? column : `imported:${column}`))];
  return BOM + stringify([header, ...rows], { record_delimiter: 'windows' });
}
