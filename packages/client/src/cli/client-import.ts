/**
 * `profile-scan client import REPORT_ID FILE.csv`: people from a CSV file
 * into a report, in three steps.
 *
 * 1. Read: csv-parse, then the spreadsheet rules the web shares
 *    (../people-sheet.ts): the URL column found by its header in any common
 *    spelling (or named with --url-column when several fit), URLs without a
 *    scheme accepted, company pages, posts and search pages refused; `name`,
 *    `title` and `headline` are optional (empty cells are omitted), other
 *    columns are ignored with a notice. Every problem names the spreadsheet
 *    row (the header is row 1) and quotes the value: it is the user's own
 *    file. Any problem stops everything; a malformed file is a usage error.
 * 2. Preview: the rows are split into contract-sized imports (at most 100
 *    people each, 4.8) and every one is previewed with `validation_only=true`
 *    (no change, no key). Any invalid row anywhere stops everything: the
 *    per-row errors name the spreadsheet row, field and code, and nothing is
 *    committed.
 * 3. Commit, after confirmation (a prompt on a terminal, or --yes): each
 *    import with its own Idempotency-Key `<prefix>-<n>-of-<total>`. The
 *    prefix is derived from the report and the file's people unless
 *    --idempotency-prefix is given, so re-running the command with the same
 *    file replays the imports already committed and commits the rest.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { parse } from 'csv-parse/sync';
import { ValidationError, type CreateProfile, type ImportReceipt } from '../index.js';
import { batchesOf, batchKey, quoted, readPeopleSheet, type SheetProblem } from '../people-sheet.js';
import type { CommandContext } from './client-context.js';
import { uuidArg } from './client-commands.js';
import { EXIT, UsageError, table } from './client-output.js';

/** Profiles per import request (contract 2.7, 8: "Profiles per write: 100"). */
export const ROWS_PER_IMPORT = 100;

export interface CsvRow {
  /** The row as the spreadsheet shows it (1 = the header). */
  line: number;
  profile: CreateProfile;
}

export interface ProfilesCsv {
  rows: CsvRow[];
  ignored: string[];
  problems: SheetProblem[];
  /** The headers that could hold the profile URLs, when more than one does, and the one used. */
  urlColumns: { candidates: string[]; chosen: string } | null;
}

export async function readProfilesCsv(file: string, urlColumn?: string): Promise<ProfilesCsv> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let records: string[][];
  try {
    // Blank lines are kept so that a record's index + 1 is the row a spreadsheet shows.
    const parsed: string[][] = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: false, trim: true });
    records = parsed;
  } catch (error) {
    throw new UsageError(`${file} is not a valid CSV file: ${(error as Error).message}`);
  }
  const sheet = readPeopleSheet(records, { urlColumn });
  const rows = sheet.people.map(({ row, columns: _columns, ...profile }) => ({ line: row, profile }) satisfies CsvRow);
  return { rows, ignored: sheet.ignored.map((c) => c.column), problems: sheet.problems, urlColumns: sheet.urlColumns };
}

/** The import's key prefix when none is given: the same report and people give the same prefix, so a re-run resumes. */
function derivedPrefix(reportId: string, rows: CsvRow[]): string {
  return `import-${createHash('sha256')
    .update(JSON.stringify([reportId, rows.map((r) => r.profile)]))
    .digest('hex')
    .slice(0, 40)}`;
}

async function confirm(ctx: CommandContext, question: string): Promise<boolean> {
  if (ctx.values.yes) return true;
  if (!ctx.io.stdin.isTTY || ctx.out.json) return false;
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

const PREVIEW_COUNTS = ['submitted', 'would_add', 'would_restore', 'already_present', 'duplicate_in_input', 'would_queue_profiles'] as const;
const RECEIPT_COUNTS = ['submitted', 'added', 'restored', 'already_present', 'duplicate_in_input', 'profiles_queued'] as const;

export async function runImport(ctx: CommandContext): Promise<number> {
  const reportId = uuidArg(ctx.args[0], 'REPORT_ID');
  const file = ctx.args[1];
  if (!file) throw new UsageError('import takes REPORT_ID FILE.csv');
  if (ctx.args.length > 2) throw new UsageError(`unexpected argument "${ctx.args[2]}"`);
  const given = ctx.values['idempotency-prefix'];
  if (given !== undefined && !/^[A-Za-z0-9._:-]{1,100}$/.test(given))
    throw new UsageError('--idempotency-prefix takes 1-100 characters from letters, digits, ".", "_", ":" and "-"');

  const { rows, ignored, problems: sheetProblems, urlColumns } = await readProfilesCsv(file, ctx.values['url-column']);
  if (sheetProblems.length > 0) {
    const lines = sheetProblems.map((p) => (p.row === null ? p.message : `row ${p.row}: ${p.message}`));
    if (ctx.out.json)
      ctx.out.result({
        error: {
          name: 'UsageError',
          code: 'invalid_file',
          message: `${file}: ${sheetProblems.length} problem${sheetProblems.length === 1 ? '' : 's'}; nothing was imported`,
          retryable: false,
          exit_code: EXIT.usage,
          rows: sheetProblems,
        },
      });
    else ctx.out.note(`profile-scan client: ${file}: nothing was imported:\n${lines.map((l) => `  ${l}`).join('\n')}`);
    return EXIT.usage;
  }
  if (rows.length === 0) throw new UsageError(`${file} has a header but no rows`);
  if (urlColumns && ctx.values['url-column'] === undefined)
    ctx.out.note(`several columns could hold the profile URLs (${urlColumns.candidates.join(', ')}); using "${urlColumns.chosen}" (choose with --url-column)`);
  if (ignored.length > 0) ctx.out.note(`ignoring columns: ${ignored.join(', ')}`);
  const prefix = given ?? derivedPrefix(reportId, rows);
  const report = await ctx.client.reports.get(reportId);
  const chunks = batchesOf(rows, ROWS_PER_IMPORT);

  // 2. Preview every import before committing any.
  const preview = Object.fromEntries(PREVIEW_COUNTS.map((k) => [k, 0])) as Record<(typeof PREVIEW_COUNTS)[number], number>;
  const problems: { line: number | null; row: number; field: string; code: string; value: string | null }[] = [];
  for (const [index, chunk] of chunks.entries()) {
    try {
      const result = await ctx.client.imports.validate(
        reportId,
        chunk.map((r) => r.profile),
      );
      for (const k of PREVIEW_COUNTS) preview[k] += result.counts[k];
    } catch (error) {
      if (!(error instanceof ValidationError) || error.code !== 'import_validation_failed') throw error;
      for (const d of error.details) {
        const row = d.row_number !== undefined ? chunk[d.row_number - 1] : undefined;
        // The API never echoes a submitted value; the file is the user's own, so the CLI quotes it.
        const value = row ? (row.profile as unknown as Record<string, unknown>)[d.field] : undefined;
        problems.push({
          line: row?.line ?? null,
          row: index * ROWS_PER_IMPORT + (d.row_number ?? 0),
          field: d.field,
          code: d.code,
          value: typeof value === 'string' ? value : null,
        });
      }
    }
  }
  if (problems.length > 0) {
    const message = `${new Set(problems.map((p) => p.row)).size} of ${rows.length} rows are invalid; nothing was imported`;
    if (ctx.out.json) {
      ctx.out.result({
        error: {
          name: 'ValidationError',
          code: 'import_validation_failed',
          message,
          retryable: false,
          exit_code: EXIT.api,
          rows: problems,
        },
      });
    } else {
      ctx.out.note(`profile-scan client: ${message}:`);
      ctx.out.note(
        table(
          ['row', 'field', 'problem', 'value'],
          problems.map((p) => [p.line, p.field, p.code, p.value === null ? '' : quoted(p.value)]),
        ),
      );
    }
    return EXIT.api;
  }

  const plan = { report_id: reportId, file, rows: rows.length, imports: chunks.length, preview };
  if (!ctx.out.json) {
    ctx.out.say(
      `Preview of ${rows.length} rows into "${report.name}" (${chunks.length} import${chunks.length === 1 ? '' : 's'} of at most ${ROWS_PER_IMPORT}):`,
    );
    ctx.out.say(
      table(
        ['would_add', 'would_restore', 'already_present', 'duplicate_in_input', 'would_queue'],
        [[preview.would_add, preview.would_restore, preview.already_present, preview.duplicate_in_input, preview.would_queue_profiles]],
      ),
    );
  }
  if (!(await confirm(ctx, `Import ${rows.length} row${rows.length === 1 ? '' : 's'} into "${report.name}"?`))) {
    if (ctx.out.json)
      ctx.out.result({
        ...plan,
        committed: false,
        error: { code: 'not_confirmed', message: 'not confirmed: pass --yes to commit', exit_code: EXIT.notConfirmed },
      });
    else ctx.out.note(ctx.io.stdin.isTTY ? 'Not imported.' : 'Not imported: confirm with --yes when not at a terminal.');
    return EXIT.notConfirmed;
  }

  // 3. Commit, one key per import.
  const imports: {
    import: number;
    lines: string;
    idempotency_key: string;
    receipt_id: string;
    replayed: boolean;
    counts: ImportReceipt['counts'];
  }[] = [];
  const totals = Object.fromEntries(RECEIPT_COUNTS.map((k) => [k, 0])) as Record<(typeof RECEIPT_COUNTS)[number], number>;
  const scanRunIds = new Set<string>();
  for (const [index, chunk] of chunks.entries()) {
    const key = batchKey(prefix, index, chunks.length);
    try {
      const res = await ctx.client.imports.commit(
        reportId,
        chunk.map((r) => r.profile),
        { idempotencyKey: key },
      );
      for (const k of RECEIPT_COUNTS) totals[k] += res.data.counts[k];
      for (const s of res.data.scan_requests) scanRunIds.add(s.scan_run_id);
      imports.push({
        import: index + 1,
        lines: `${chunk[0].line}-${chunk.at(-1)!.line}`,
        idempotency_key: key,
        receipt_id: res.data.id,
        replayed: res.replayed,
        counts: res.data.counts,
      });
      if (!ctx.out.json && chunks.length > 1)
        ctx.out.note(
          `import ${index + 1}/${chunks.length}: ${res.data.counts.added} added, ` +
            `${res.data.counts.restored} restored, ${res.data.counts.already_present} already present${res.replayed ? ' (replayed)' : ''}`,
        );
    } catch (error) {
      ctx.out.note(
        `import ${index + 1}/${chunks.length} failed after ${index} committed; re-run the same command` +
          `${given === undefined ? '' : ` with --idempotency-prefix ${prefix}`} to resume (committed imports replay, the rest are committed)`,
      );
      throw error;
    }
  }
  ctx.out.result({ ...plan, committed: true, idempotency_prefix: prefix, totals, imports, scan_run_ids: [...scanRunIds] });
  ctx.out.say(
    table(
      ['added', 'restored', 'already_present', 'duplicate_in_input', 'profiles_queued'],
      [[totals.added, totals.restored, totals.already_present, totals.duplicate_in_input, totals.profiles_queued]],
    ),
  );
  ctx.out.say(`Imported in ${chunks.length} import${chunks.length === 1 ? '' : 's'}. Follow the scans: profile-scan client watch ${reportId}`);
  return EXIT.ok;
}
