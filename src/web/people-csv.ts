/**
 * The people of a report as CSV and as an Excel workbook, exactly the report
 * page's table (its search, filters and order, every page), one row per
 * person for a mail merge: who they are, status, scores, counts, each
 * check's outcome (one column per catalog check), their three first fixes
 * (each a title, what was observed in words and one line of advice, the
 * company's display name filled in), the private link when the export is made with the links just created,
 * then the columns the web's CSV import carried (department, office …:
 * `imported:<name>` in the machine variant), then the progress since the
 * previous scan (its state, the previous weighted score, the change in
 * points, the gaps fixed and the new ones).
 *
 * Two header variants (docs/web.md, "CSV and Excel export"): `human` (the default, for
 * spreadsheets: titles and labels as the page shows them) and `machine`
 * (`?columns=machine`, for tools: stable snake_case names, check keys and raw
 * values). The CSV starts with a UTF-8 byte order mark, which Excel needs to
 * read UTF-8, ends lines with CRLF (RFC 4180) and is separated by commas with
 * decimal points or by semicolons with decimal commas (what Excel expects
 * where the decimal mark is a comma). Text that a spreadsheet would run as a
 * formula (= + - @, tab, CR) is prefixed with a quote in the CSV (OWASP "CSV
 * injection") and stored as a text cell in the workbook, where numbers are
 * numbers and dates are dates whatever the reader's locale.
 */
import { stringify } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import { CHECKS } from '../domain/checks/catalog.js';
import { fillCompanyPlaceholders } from '../domain/recommendation-text.js';
import { observedValueText } from '../domain/observed-value.js';
import { importedColumnsOf, type ReportPerson } from '../use-cases/report-people.js';
import type { CsvSeparator } from '../use-cases/export-preferences.js';
import { label, OUTCOME, PERSON_STATUS } from './components/labels.js';
import { PROGRESS_LABEL } from './components/progress.js';
import type { PersonProgress } from '../domain/progress.js';

const checkTitle = new Map(CHECKS.map((c) => [c.key, c.title]));

export type CsvColumns = 'human' | 'machine';

/** Fixes per person in the export, each its own pair of columns (title, advice). */
export const EXPORT_FIXES = 3;

const BOM = '\uFEFF';

type Cell = string | number | Date | null;

interface Column {
  human: string;
  machine: string;
  /** How a spreadsheet should read the values: text is never read as a number or a formula. */
  kind: 'text' | 'number' | 'pct' | 'date';
  value(p: ReportPerson, human: boolean): Cell;
}

const NAME_SOURCE: Record<ReportPerson['name_source'], string> = { supplied: 'Import', observed: 'Profile', url: 'Profile URL' };

function columnsOf(
  people: readonly ReportPerson[],
  companyName: string,
  links: ReadonlyMap<string, string>,
  progress: ReadonlyMap<string, PersonProgress>,
): Column[] {
  const analyzed = (p: ReportPerson, n: number) => (p.outcomes ? n : null);
  const fixes = Array.from({ length: EXPORT_FIXES }, (_, i): Column[] => [
    {
      human: `Fix ${i + 1}`,
      machine: `fix_${i + 1}`,
      kind: 'text',
      value: (p, human) => (human ? p.fix_first[i]?.title : p.fix_first[i]?.key) ?? null,
    },
    {
      human: `Now ${i + 1}`,
      machine: `observed_${i + 1}`,
      kind: 'text',
      value: (p) => (p.fix_first[i] ? observedValueText(p.fix_first[i].key, p.observed[p.fix_first[i].key]) : null),
    },
    {
      human: `Advice ${i + 1}`,
      machine: `advice_${i + 1}`,
      kind: 'text',
      value: (p) => (p.fix_first[i] ? fillCompanyPlaceholders(p.fix_first[i].recommendation, companyName) : null),
    },
  ]).flat();
  return [
    { human: 'Name', machine: 'name', kind: 'text', value: (p) => p.display_name },
    { human: 'Name from', machine: 'name_source', kind: 'text', value: (p, human) => (human ? NAME_SOURCE[p.name_source] : p.name_source) },
    { human: 'Title', machine: 'title', kind: 'text', value: (p) => p.title },
    { human: 'Headline', machine: 'headline', kind: 'text', value: (p) => p.headline },
    { human: 'Profile URL', machine: 'pronet_url', kind: 'text', value: (p) => p.pronet_url },
    { human: 'Status', machine: 'status', kind: 'text', value: (p, human) => (human ? label(PERSON_STATUS, p.status) : p.status) },
    { human: 'Weighted score (%)', machine: 'weighted_score_pct', kind: 'pct', value: (p) => p.weighted_score_pct },
    { human: 'Good of answered (%)', machine: 'score_pct', kind: 'pct', value: (p) => p.score_pct },
    { human: 'Good', machine: 'good', kind: 'number', value: (p) => analyzed(p, p.good) },
    { human: 'To optimize', machine: 'optimize', kind: 'number', value: (p) => analyzed(p, p.optimize) },
    { human: 'Unknown', machine: 'unknown', kind: 'number', value: (p) => analyzed(p, p.unknown) },
    { human: 'Captured', machine: 'captured_at', kind: 'date', value: (p) => p.captured_at },
    ...CHECKS.map((c): Column => ({
      human: c.title,
      machine: c.key,
      kind: 'text',
      value: (p, human) => {
        const outcome = p.outcomes?.[c.key];
        return outcome === undefined ? null : human ? OUTCOME[outcome] : outcome;
      },
    })),
    ...fixes,
    { human: 'Private link', machine: 'private_link', kind: 'text', value: (p) => links.get(p.profile_id) ?? null },
    ...importedColumnsOf(people).map(({ column }): Column => ({
      human: column,
      machine: `imported:${column}`,
      kind: 'text',
      value: (p) => p.columns[column] ?? null,
    })),
    // Last, so that the columns before keep their places: the progress since the previous scan (domain/progress.ts).
    ...progressColumns(progress),
  ];
}

/** The progress columns: the state, the weighted score at the previous scan, the change, and the gaps fixed and new (check keys or titles). */
function progressColumns(progress: ReadonlyMap<string, PersonProgress>): Column[] {
  const of = (p: ReportPerson) => progress.get(p.profile_id);
  const checks = (keys: readonly string[] | undefined, human: boolean) =>
    keys && keys.length > 0 ? keys.map((key) => (human ? (checkTitle.get(key) ?? key) : key)).join(human ? '; ' : ' ') : null;
  return [
    {
      human: 'Since previous scan',
      machine: 'progress',
      kind: 'text',
      value: (p, human) => {
        const state = of(p)?.state;
        return state === undefined ? null : human ? PROGRESS_LABEL[state] : state;
      },
    },
    { human: 'Previous weighted score (%)', machine: 'previous_weighted_score_pct', kind: 'pct', value: (p) => of(p)?.previousScorePct ?? null },
    { human: 'Change (points)', machine: 'weighted_score_change', kind: 'pct', value: (p) => of(p)?.changePct ?? null },
    { human: 'Fixed since previous scan', machine: 'fixed_since_previous', kind: 'text', value: (p, human) => checks(of(p)?.fixed, human) },
    { human: 'New gaps since previous scan', machine: 'new_since_previous', kind: 'text', value: (p, human) => checks(of(p)?.opened, human) },
  ];
}

/** A text cell a spreadsheet would run as a formula gets a leading quote. */
function neutralized(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

function csvCell(value: Cell, kind: Column['kind'], separator: CsvSeparator): string {
  if (value === null) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'number') {
    const text = kind === 'pct' ? value.toFixed(1) : String(value);
    return separator === 'semicolon' ? text.replace('.', ',') : text;
  }
  return neutralized(value);
}

export interface PeopleExport {
  people: readonly ReportPerson[];
  /** The report's company display name, for the advice. */
  companyName: string;
  columns: CsvColumns;
  /** Private link addresses by profile id: known only right after they are made (only hashes are stored). */
  links?: ReadonlyMap<string, string>;
  /** Each person's progress since their previous scan, by profile id (use-cases/progress.ts); absent: the columns stay empty. */
  progress?: ReadonlyMap<string, PersonProgress>;
}

/** Rows of typed cells as this module writes every CSV: byte order mark, CRLF, the separator's decimal mark, formulas neutralized. */
export function csvOf(header: readonly string[], rows: readonly (readonly { value: Cell; kind: Column['kind'] }[])[], separator: CsvSeparator): string {
  const cells = rows.map((row) => row.map((c) => csvCell(c.value, c.kind, separator)));
  return BOM + stringify([header, ...cells], { record_delimiter: 'windows', delimiter: separator === 'semicolon' ? ';' : ',' });
}

export function peopleCsv(input: PeopleExport, separator: CsvSeparator = 'comma'): string {
  const human = input.columns === 'human';
  const columns = columnsOf(input.people, input.companyName, input.links ?? new Map(), input.progress ?? new Map());
  const header = columns.map((c) => (human ? c.human : c.machine));
  return csvOf(
    header,
    input.people.map((p) => columns.map((c) => ({ value: c.value(p, human), kind: c.kind }))),
    separator,
  );
}

const NUMBER_FORMAT: Partial<Record<Column['kind'], string>> = { pct: '0.0', number: '0', date: 'yyyy-mm-dd' };

/** The same rows as an .xlsx workbook: typed cells, a frozen, bold header row and a filter on every column. */
export async function peopleXlsx(input: PeopleExport): Promise<Buffer> {
  const human = input.columns === 'human';
  const columns = columnsOf(input.people, input.companyName, input.links ?? new Map(), input.progress ?? new Map());
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'profile-scan';
  const sheet = workbook.addWorksheet('People', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = columns.map((c) => ({
    header: human ? c.human : c.machine,
    key: c.machine,
    width: c.kind === 'text' ? 24 : 12,
    style: NUMBER_FORMAT[c.kind] ? { numFmt: NUMBER_FORMAT[c.kind] } : {},
  }));
  sheet.getRow(1).font = { bold: true };
  for (const p of input.people) {
    // A string is written as a text cell, never a formula (exceljs makes formulas only from { formula }).
    sheet.addRow(columns.map((c) => c.value(p, human)));
  }
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: columns.length } };
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
