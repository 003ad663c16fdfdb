/** docs/benchmarks.md's latest figures are rendered from bench/results/*.json (scripts/gen-bench-docs.ts). */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { BENCH_DOC_PATH, committedLatestFigures, readResults, renderLatestFigures, RESULTS_DIR } from '../../scripts/gen-bench-docs.js';

test("docs/benchmarks.md's latest figures equal those rendered from bench/results/*.json (run npm run gen:bench-docs after a new result)", () => {
  assert.equal(committedLatestFigures(readFileSync(BENCH_DOC_PATH, 'utf8')), renderLatestFigures(readResults()));
});

test('every results file has a section of its own, named after the file', () => {
  const rendered = renderLatestFigures(readResults());
  for (const file of readdirSync(RESULTS_DIR).filter((name) => name.endsWith('.json'))) {
    assert.match(rendered, new RegExp(`^### .*\\(\`bench/results/${file.replace('.', '\\.')}\`\\)$`, 'm'), file);
  }
});

test('a results file of a benchmark the generator does not know gets a section with its figures', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-results-'));
  try {
    for (const file of readdirSync(RESULTS_DIR).filter((name) => name.endsWith('.json'))) copyFileSync(path.join(RESULTS_DIR, file), path.join(dir, file));
    writeFileSync(
      path.join(dir, 'another.json'),
      JSON.stringify({
        benchmark: 'npm run bench:another',
        generated_at: '2030-01-02T03:04:05.000Z',
        targets: [{ figure: 'calls per second', measured: '12.5', target: '≥ 10', met: true }],
      }),
    );
    writeFileSync(path.join(dir, 'plain.json'), JSON.stringify({ samples: 20, timings: { median_ms: 1.5, values: [1, 2] }, note: null }));
    const rendered = renderLatestFigures(readResults(dir));
    assert.match(rendered, /^### `npm run bench:another` \(`bench\/results\/another\.json`\)$/m);
    assert.match(rendered, /^\| calls per second \| 12\.5 \| ≥ 10 \| met \|$/m);
    assert.match(rendered, /^\| `timings\.median_ms` \| 1\.50 \|$/m);
    assert.match(rendered, /^\| `samples` \| 20 \|$/m);
    // The known files still render as before, the new ones in file-name order among them.
    const titles = rendered.split('\n').filter((line) => line.startsWith('### '));
    assert.deepEqual(
      titles.map((line) => /bench\/results\/([^`]+)`/.exec(line)?.[1]),
      [...readdirSync(dir)].filter((name) => name.endsWith('.json')).sort(),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a results file with missing figures (a filtered run) renders dashes, not an error', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-results-'));
  try {
    writeFileSync(path.join(dir, 'pipeline.json'), JSON.stringify({ benchmark: 'pipeline', targets: [], throughput: { runs: [{ processes: 1 }] } }));
    writeFileSync(path.join(dir, 'queue.json'), JSON.stringify({ samples: 10, figures: [] }));
    const rendered = renderLatestFigures(readResults(dir));
    assert.match(rendered, /^\| 1 \| — \| — \| — \| — \| — \| — \| — \| — \|$/m);
    assert.match(rendered, /No backlog figure in this run\./);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
