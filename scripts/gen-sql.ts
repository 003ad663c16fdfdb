/**
 * Writes every statement the store runs to the checked-in snapshot under
 * sql/: one file per module of src/queue/ and src/store/, each operation
 * under a `-- module.operation` header followed by the statements it sends,
 * in order, composed ones whole and parameters as `$1..$n`. A review sees a
 * change to the SQL as SQL. test/unit/sql-snapshot-is-current.test.ts fails
 * when the snapshot differs from what this renders, or when an exported
 * function that takes a database handle is neither sampled nor allow-listed.
 *
 * No database: the operations are called with fixed arguments
 * (scripts/sql-samples/) on the capturing instance of scripts/sql-capture.ts.
 *
 * Usage: npm run gen:sql
 */
import { format } from 'sql-formatter';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { settlePendingRollups } from '../src/queue/settle.js';
import { captureDb, type CapturedStatement } from './sql-capture.js';
import { SAMPLES } from './sql-samples/index.js';
import type { ModuleSamples } from './sql-samples/sample.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SQL_DIR = path.join(ROOT, 'sql');
/** The directories under src/ whose modules run SQL. */
const SOURCE_DIRS = ['queue', 'store'];

/**
 * Exported functions that take a database handle but are not sampled, each
 * with the reason. Keep it short: an operation that runs SQL belongs in the
 * samples.
 */
export const NOT_SAMPLED: Readonly<Record<string, string>> = {
  'store/migrator.migrateTo': 'DDL of the migrator (the migrations under store/migrations/)',
  'store/migrator.migrateToLatest': 'DDL of the migrator (the migrations under store/migrations/)',
  'store/migrator.applyFunctionDefinitions': 'DDL of the migrator (the definitions under store/functions/)',
  'store/queue-channel.listenForItems': 'LISTEN/NOTIFY channel on a connection of its own',
  'store/database.commitsAsynchronously': 'runs no SQL (reads how the pool was made)',
  'store/database.createDb': 'runs no SQL (builds the instance)',
  'store/prepared-statements.statementCachingPool': 'runs no SQL of its own (the pool every statement above goes through)',
  'store/prepared-statements.registerPool': 'runs no SQL (remembers the pool)',
  'store/prepared-statements.runPrepared': 'runs the prepared statements of the modules that call it, sampled there',
  'store/fused-read.runFusedRead': 'runs the fused reads of the modules that define them, sampled there',
  'store/fused-read.readFused': 'runs the fused reads of the modules that define them, sampled there',
  'queue/sweep.startRollupSweep': 'composes queue/settle.settleStaleRollups, on a timer',
  'store/one-statement.insertRowIf': 'builds a write that runs in the statements of the modules that compose it (queue/finish), sampled there',
};

// ---------------------------------------------------------------- coverage

/** The names of the exported functions of a module's text that take a database handle. */
export function functionsTakingDb(text: string): string[] {
  const source = ts.createSourceFile('module.ts', text, ts.ScriptTarget.Latest, true);
  const handle = /\b(Kysely|Db|Transaction|QueryCreator|pg\.Pool|pg\.Client|pg\.PoolClient)\b/u;
  const takesDb = (params: ts.NodeArray<ts.ParameterDeclaration>) => params.some((p) => p.type !== undefined && handle.test(p.type.getText(source)));
  const exported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (!exported(statement)) continue;
    if (ts.isFunctionDeclaration(statement) && statement.name && takesDb(statement.parameters)) names.push(statement.name.text);
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) {
        const init = d.initializer;
        if (ts.isIdentifier(d.name) && init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) && takesDb(init.parameters)) names.push(d.name.text);
      }
    }
  }
  return names;
}

/** `dir/module.function` for every exported function of src/queue/ and src/store/ that takes a database handle. */
export function sqlRunningFunctions(): string[] {
  return SOURCE_DIRS.flatMap((dir) =>
    readdirSync(path.join(ROOT, 'src', dir))
      .filter((f) => f.endsWith('.ts'))
      .sort()
      .flatMap((f) => functionsTakingDb(readFileSync(path.join(ROOT, 'src', dir, f), 'utf8')).map((name) => `${dir}/${f.slice(0, -3)}.${name}`)),
  );
}

/** `dir/module.function` for every sampled operation (a second case of a function counts once). */
export function sampledFunctions(samples: readonly ModuleSamples[] = SAMPLES): string[] {
  return [...new Set(samples.flatMap((s) => Object.keys(s.operations).map((op) => `${s.module}.${op.replace(/ \(.*\)$/u, '')}`)))];
}

// ---------------------------------------------------------------- rendering

/**
 * A statement as written in the snapshot, laid out by sql-formatter (a statement
 * composed by Kysely comes as one line, a written one as its author laid it
 * out: one layout for both makes a change read the same wherever it comes
 * from), ended by `;`. A statement the formatter cannot parse is kept as
 * written, its source indentation removed.
 */
function statementText(statement: CapturedStatement): string {
  let text: string;
  try {
    text = format(statement.sql, { language: 'postgresql', paramTypes: { numbered: ['$'] }, keywordCase: 'lower' });
  } catch {
    const lines = statement.sql.trim().split('\n');
    const indents = lines
      .slice(1)
      .filter((l) => l.trim() !== '')
      .map((l) => /^\s*/u.exec(l)![0].length);
    const cut = indents.length > 0 ? Math.min(...indents) : 0;
    text = [lines[0], ...lines.slice(1).map((l) => l.slice(cut).trimEnd())].join('\n');
  }
  return text.endsWith(';') ? text : `${text};`;
}

/** A statement of at least this many lines, sent by several operations, is written once and referenced. */
const REFERENCED_FROM_LINES = 12;

const HEADER = '-- Generated by scripts/gen-sql.ts (npm run gen:sql) from scripts/sql-samples/: do not edit.\n';

/** The snapshot: each file's path under sql/ and its text. */
export async function renderSqlSnapshot(samples: readonly ModuleSamples[] = SAMPLES): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const failures: string[] = [];
  // A long statement that several operations send (the fold, which the settles and transitions run)
  // is written whole once, where it first appears, and named from the others.
  const written = new Map<string, string>();
  const textOf = (statement: CapturedStatement, at: string): string => {
    const text = statementText(statement);
    if (text.split('\n').length < REFERENCED_FROM_LINES) return text;
    const first = written.get(text);
    if (first !== undefined && first !== at) return `-- the statement written whole under ${first}`;
    written.set(text, at);
    return text;
  };
  for (const sample of [...samples].sort((a, b) => a.module.localeCompare(b.module))) {
    const name = sample.module.split('/').pop()!;
    const parts = [HEADER];
    for (const [operation, { run, rows }] of Object.entries(sample.operations)) {
      const { db, statements } = captureDb(rows);
      let settled = false;
      try {
        await run(db);
        // The fold a transition asks for without waiting (queue/item.ts, settle) is queue/settle's
        // operation, written there: drained here, and named after the operation's own statements.
        const own = statements.length;
        await settlePendingRollups(db);
        if (statements.length > own) {
          statements.length = own;
          settled = true;
        }
      } catch (error) {
        const at = /\(?(src\/[^)\s]+)/u.exec((error as Error).stack ?? '')?.[1] ?? '';
        failures.push(`${sample.module}.${operation}: ${(error as Error).message} ${at}`);
        continue;
      }
      if (statements.length === 0) failures.push(`${sample.module}.${operation} ran no statement`);
      const then = settled ? "\n\n-- then, without waiting for it: the report's fold (settle.settleRollups)" : '';
      parts.push(`-- ${name}.${operation}\n${statements.map((st) => textOf(st, `${name}.${operation}`)).join('\n\n')}${then}\n`);
    }
    files.set(`${sample.module}.sql`, parts.join('\n'));
  }
  if (failures.length > 0) throw new Error(`sample calls failed (give them the rows they need):\n${failures.join('\n')}`);
  return files;
}

/** The snapshot as checked in: each .sql file's path under sql/ and its text. */
export function committedSqlSnapshot(): Map<string, string> {
  const files = new Map<string, string>();
  let entries: string[] = [];
  try {
    entries = readdirSync(SQL_DIR, { recursive: true }) as string[];
  } catch {
    return files;
  }
  for (const f of entries.filter((e) => e.endsWith('.sql')).sort()) files.set(f.split(path.sep).join('/'), readFileSync(path.join(SQL_DIR, f), 'utf8'));
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await renderSqlSnapshot();
  rmSync(SQL_DIR, { recursive: true, force: true });
  for (const [file, text] of files) {
    mkdirSync(path.dirname(path.join(SQL_DIR, file)), { recursive: true });
    writeFileSync(path.join(SQL_DIR, file), text);
  }
  console.log(`sql/: ${files.size} files`);
}
