/**
 * `profile-scan client import REPORT_ID FILE.csv`: people from a CSV file
 * into a report, in three steps.
 *
 * 1. Read: csv-parse with a header row; `pronet_url` is required, `name`,
 *    `title` and `headline` are optional (empty cells are omitted), other
 *    columns are ignored with a notice. A malformed file is a usage error
 *    naming the line.
 * 2. Preview: the rows are split into contract-sized imports (at most 100
 *    people each, 4.8) and every one is previewed with `validation_only=true`
 *    (no change, no key). Any invalid row anywhere stops everything: the
 *    per-row errors name the CSV line, field and code, and nothing is
 *    committed.
 * 3. Commit, after confirmation (a prompt on a terminal, or --yes): each
 *    import with its own Idempotency-Key `<prefix>-<n>-of-<total>`. The
 *    client retries an uncertain commit with the same key; re-running the
 *    command with the same --idempotency-prefix and file replays the imports
 *    already committed and commits the rest.
 */
import fs from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { parse } from 'csv-parse/sync';
import { ValidationError, newIdempotencyKey, type CreateProfile, type ImportReceipt } from '../index.js';
import type { CommandContext } from './client-context.js';
import { uuidArg } from './client-commands.js';
import { EXIT, UsageError, table } from './client-output.js';

/** Profiles per import request (contract 2.7, 8: "Profiles per write: 100"). */
export const ROWS_PER_IMPORT = 100;
const COLUMNS = ['pronet_url', 'name', 'title', 'headline'] as const;

export interface CsvRow {
  /** Line of the CSV file where the row ends (1 = the header). */
  line: number;
  profile: CreateProfile;
}

export async function readProfilesCsv(file: string): Promise<{ rows: CsvRow[]; ignored: string[] }> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let header: string[] = [];
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      columns: (names: string[]) => (header = names.map((n) => n.trim().toLowerCase())),
      info: true,
      skip_empty_lines: true,
      trim: true,
    }) as never;
  } catch (error) {
    throw new UsageError(`${file} is not a valid CSV file: ${(error as Error).message}`);
  }
  if (!header.includes('pronet_url')) {
    throw new UsageError(`${file}: the header row must name a pronet_url column (optional: name, title, headline); found: ${header.join(', ') || 'nothing'}`);
  }
  const rows = records.map(({ record, info }) => {
    const profile: Record<string, string> = { pronet_url: record.pronet_url ?? '' };
    for (const column of COLUMNS.slice(1)) if (record[column]) profile[column] = record[column]!;
    return { line: info.lines, profile: profile as unknown as CreateProfile };
  });
  return { rows, ignored: header.filter((h) => !(COLUMNS as readonly string[]).includes(h)) };
}

export function chunked<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
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
  const prefix = ctx.values['idempotency-prefix'] ?? newIdempotencyKey('import');
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(prefix)) throw new UsageError('--idempotency-prefix takes 1-100 characters from letters, digits, ".", "_", ":" and "-"');

  const { rows, ignored } = await readProfilesCsv(file);
  if (rows.length === 0) throw new UsageError(`${file} has a header but no rows`);
  if (ignored.length > 0) ctx.out.note(`ignoring columns: ${ignored.join(', ')}`);
  const report = await ctx.client.reports.get(reportId);
  const chunks = chunked(rows, ROWS_PER_IMPORT);

  // 2. Preview every import before committing any.
  const preview = Object.fromEntries(PREVIEW_COUNTS.map((k) => [k, 0])) as Record<(typeof PREVIEW_COUNTS)[number], number>;
  const problems: { line: number | null; row: number; field: string; code: string }[] = [];
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
        problems.push({ line: row?.line ?? null, row: index * ROWS_PER_IMPORT + (d.row_number ?? 0), field: d.field, code: d.code });
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
          ['line', 'field', 'problem'],
          problems.map((p) => [p.line, p.field, p.code]),
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
    const key = `${prefix}-${index + 1}-of-${chunks.length}`;
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
        `import ${index + 1}/${chunks.length} failed after ${index} committed; re-run with --idempotency-prefix ${prefix} ` +
          `to resume (committed imports replay, the rest are committed)`,
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
