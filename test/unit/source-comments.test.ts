/**
 * Comments a reader of the repository can follow: no source file cites an
 * issue of a tracker the reader cannot see (an issue and its number); the reason
 * itself belongs in the comment, or a document of docs/ in its place.
 *
 * And comments say why, not what a run once measured: the comments of the
 * source, the benchmarks, the scripts and the migrations carry no dates, no
 * narration of past work sessions or runs, and no measured figures (a number
 * with a unit of time or size per unit of work, a ratio, a percentage, a
 * range of timings). Figures belong in bench/results/*.json, rendered in
 * docs/benchmarks.md; the reasons for big trade-offs in docs/decisions/.
 * Limits that are rules (a 2 MiB budget, a lease of 60 s, contract 4.8 rule 2)
 * are not measurements and stay.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIRS = ['src', 'test', 'bench', 'scripts', 'packages/client/src'];
const CITATION = /\bissues?\s+#?[0-9]+/i;

/** Where comments must not read like a lab notebook: the code, the benchmarks, the scripts, the migrations. */
const DIARY_FREE_DIRS = ['src', 'bench', 'scripts', 'bin'];

const ORDINAL = '(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|[0-9]+(?:st|nd|rd|th))';
const TIME = '(?:ms|µs|us|s|seconds?|minutes?)';
const SIZE = '(?:B|kB|KB|MB|GB|KiB|MiB|GiB)';
const WORK = '(?:item|call|read|request|claim|fold|page|row|person|people|statement|card|glyph|round|delta)';

/** Each kind of diary entry a comment must not hold, by name. */
const DIARY: [string, RegExp][] = [
  // An ISO date, but not an example timestamp ("2026-10-30 14:05 UTC").
  ['a date', /\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b(?![T ][0-2][0-9]:)/],
  ['a work session', new RegExp(`\\b${ORDINAL}\\s+session\\b|\\bsessions?\\s+(?:of|on)\\s+20[0-9]{2}\\b`, 'i')],
  ['a time of day of past work', /\b(?:later that (?:night|day|evening|morning)|that (?:night|evening|morning)|in the same hour)\b/i],
  [
    'a past run',
    /\b(?:bench:[a-z]+|pgbench|the benchmark|a profile)(?:'s [a-z]+)?\s+(?:showed|found|measured|gave)\b|\b(?:earlier|previous|past|last) (?:runs?|sessions)\b/i,
  ],
  ['a measured figure per unit of work', new RegExp(`[0-9][0-9.,]*\\s?(?:${TIME}|${SIZE}|%)\\s+(?:of [a-z ]+ )?(?:per|an?|each)\\s+${WORK}\\b`, 'i')],
  ['a throughput', /[0-9][0-9.,]*\s?(?:items|requests|req)\/s\b/i],
  // Not a target (≤ 1.5 ×, at least 2 ×).
  ['a ratio', /(?:^|[^0-9a-z])[×x]\s?[0-9]+\.[0-9]+\b|(?<!(?:[≤≥<>]|at (?:most|least))\s?)\b[0-9]+\.[0-9]+\s?×/i],
  // A share of a profile or a measured gain; a percentage that is a rule (jitter, a score band) is fine.
  [
    'a percentage',
    /\b[0-9]+(?:\.[0-9]+)?\s?% (?:of (?:the |a |its )?(?:worker|main thread|cores?|CPU|samples|time)|(?:less|more) (?:CPU|items|time|throughput)|faster|slower)/i,
  ],
  ['a range of timings', new RegExp(`\\b[0-9]+(?:\\.[0-9]+)?\\s?(?:-|–|to)\\s?[0-9]+(?:\\.[0-9]+)?\\s?${TIME}\\b`)],
  ['a fractional timing', new RegExp(`\\b[0-9]+\\.[0-9]+\\s?(?:ms|µs|us)\\b|~\\s?[0-9][0-9.,]*\\s?(?:${TIME}|${SIZE})\\b`)],
  ['microseconds', /\b[0-9][0-9.,]*\s?µs\b/],
  ['a measurement', new RegExp(`\\b(?:measured|timed)\\b[^.;()]{0,60}?\\b[0-9][0-9.,]*\\s?(?:${TIME}|${SIZE}|%)(?![a-z])`, 'i')],
];

/** Dates that are facts about the world, not about our work (a provider's change of policy). */
const EXTERNAL_FACTS = [/LinkedIn's data policy change of 2025-11-13/];

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.(ts|tsx|js|mjs|cjs|sql)$/.test(entry.name)) yield full;
  }
}

/** The comment lines of a file, with their line numbers: `--` comments of SQL, and TypeScript's own comment ranges otherwise. */
function commentLines(file: string, text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  if (file.endsWith('.sql')) {
    text.split('\n').forEach((line, i) => {
      const start = line.indexOf('--');
      if (start >= 0) lines.push({ line: i + 1, text: line.slice(start) });
    });
    return lines;
  }
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const seen = new Set<number>();
  const add = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      const first = source.getLineAndCharacterOfPosition(range.pos).line;
      text
        .slice(range.pos, range.end)
        .split('\n')
        .forEach((line, i) => lines.push({ line: first + i + 1, text: line }));
    }
  };
  const visit = (node: ts.Node) => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  visit(source);
  add(ts.getLeadingCommentRanges(text, source.endOfFileToken.pos));
  return lines.sort((a, b) => a.line - b.line);
}

/** The kinds of diary entry in one comment line. */
function diaryEntries(comment: string): string[] {
  const text = EXTERNAL_FACTS.reduce((rest, fact) => rest.replace(fact, ''), comment);
  return DIARY.filter(([, pattern]) => pattern.test(text)).map(([name]) => name);
}

test('no source file cites a tracker issue by number', async () => {
  const citing: string[] = [];
  for (const dir of DIRS) {
    for await (const file of sourceFiles(path.join(root, dir))) {
      const lines = (await fs.readFile(file, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        if (CITATION.test(line)) citing.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  assert.deepEqual(citing, []);
});

test('the check finds a citation where there is one', () => {
  // Spelt in two parts, so that this file does not cite one itself.
  assert.ok(CITATION.test('// Hot reads (issue' + ' 9, item 6)'));
  assert.ok(CITATION.test(' * Fault test (issue' + ' #3)'));
  assert.ok(!CITATION.test('// see docs/scanning.md, "Roll-ups"'));
});

test('no comment of the source, benchmarks, scripts or migrations holds a date, a past session or run, or a measured figure', async () => {
  const found: string[] = [];
  for (const dir of DIARY_FREE_DIRS) {
    for await (const file of sourceFiles(path.join(root, dir))) {
      for (const { line, text } of commentLines(file, await fs.readFile(file, 'utf8'))) {
        const kinds = diaryEntries(text);
        if (kinds.length > 0) found.push(`${path.relative(root, file)}:${line}: ${kinds.join(', ')}: ${text.trim()}`);
      }
    }
  }
  assert.deepEqual(found, []);
});

test('the check finds each kind of diary entry in a comment', () => {
  // Spelt in parts, so that this file's own comments hold none.
  const diary: [string, string][] = [
    ['a date', ' * (docs/benchmarks.md, 2026' + '-11-28)'],
    ['a work session', '// as the seventh' + ' session found'],
    ['a work session', '-- measured in the 12th' + ' session'],
    ['a time of day of past work', '// a fold that reads once (later' + ' that night)'],
    ['a past run', '-- bench:pipeline' + ' showed the sessions idle'],
    ['a past run', "-- (the benchmark's profile" + ' showed the key lookup'],
    ['a measured figure per unit of work', ' * 0.3 ms of PostgreSQL CPU' + ' per item in planning'],
    ['a measured figure per unit of work', ' * about 15 µs' + ' a glyph'],
    ['a throughput', ' * 35-37 items' + '/s in the same run'],
    ['a ratio', ' * claim to roll-up x3' + '.24 the rows alone'],
    ['a ratio', ' * the p99 was 1.86' + ' × the idle one'],
    ['a percentage', ' * (about 6' + ' % of the main thread)'],
    ['a percentage', ' * 2 costs about 30' + ' % less CPU'],
    ['a range of timings', ' * took 31 to 37' + ' s in one statement'],
    ['a range of timings', ' * the shapes cost librsvg 2-5' + ' ms'],
    ['a fractional timing', ' * the fold took 0.57' + ' ms'],
    ['a fractional timing', ' * no ~300' + ' KB string'],
    ['a measurement', ' * measured at about 1' + ' MB more per backend'],
  ];
  for (const [kind, comment] of diary) assert.ok(diaryEntries(comment).includes(kind), `${kind}: ${comment}`);
});

test('the check leaves rules, limits, contract references and plain words alone', () => {
  const fine = [
    ' * Each worker process beats once every 2 s; a worker silent for 10 s is taken for dead.',
    '// The response stays within the 2 MiB budget (contract 4.8 rule 2).',
    '/** Decoded size limit: 40 megapixels (160 MB of RGBA). */',
    ' * Runs `work` while this session holds the advisory lock `key`.',
    '-- Server-side sessions. The cookie carries a random token.',
    '/** "2026-10-30 14:05 UTC" from an RFC 3339 instant. */',
    " * - Since LinkedIn's data policy change of 2025-11-13, `position` is withheld.",
    '/** The pen advance of `content` between two bars, measured at 4x and scaled back. */',
    ' * A measured window: sample() during it.',
    ' * Folds wait GATHER_MS (40 ms) before a round that follows another.',
    ' * 640 x 360, the card size.',
    ' * plus up to 10 % jitter; under 40 % low, under 70 % fair.',
    ' *    (target ≤ 1.5 ×).',
    ' * right before that page is measured (cursors expire after 15 minutes).',
    ' * the claim of 0009 and its successors; a cursor expires after 15 minutes.',
  ];
  for (const comment of fine) assert.deepEqual(diaryEntries(comment), [], comment);
});
